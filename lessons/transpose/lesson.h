// Matrix transpose: what the student's file (exercise.cu or solution.cu)
// provides. `in` is a matrix of `height` rows and `width` columns, stored
// row by row: the element in row r and column c is in[r * width + c]. Its
// transpose `out` has `width` rows and `height` columns, and
//
//   out[c * height + r] = in[r * width + c]      (out[c][r] = in[r][c])
//
// in and out are device pointers; width and height need not be equal, nor a
// multiple of any block or tile size.
#pragma once

// Stages 2 to 4 stage the matrix through shared memory, one kTile x kTile
// tile per block.
constexpr int kTile = 32;
// Stage 1 and stage 4: blocks of kTile x kBlockRows threads; in stage 4 each
// thread moves kTile / kBlockRows = 4 elements of its block's tile.
constexpr int kBlockRows = 8;

void launch_transpose_naive(const float* in, float* out, int width, int height);
void launch_transpose_tiled(const float* in, float* out, int width, int height);
void launch_transpose_padded(const float* in, float* out, int width, int height);
void launch_transpose_coarsened(const float* in, float* out, int width, int height);
