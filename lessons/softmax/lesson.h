// Softmax: what the student's file (exercise.cu or solution.cu) provides.
// x and out are rows x cols matrices of floats stored row by row (element
// (r, c) at [r * cols + c]), device pointers; every row of out becomes the
// softmax of the same row of x:
//
//   out[r][c] = exp(x[r][c] - m_r) / sum over c' of exp(x[r][c'] - m_r)
//
// with m_r the largest value of row r. cols need not be a multiple of any
// block size; a row may have a single column.
#pragma once

// Stage 1: blocks of kThreads threads, one row per thread. Stages 2 to 4:
// one block of kThreads threads per row.
constexpr int kThreads = 256;
// The warps of a block (stages 3 and 4).
constexpr int kWarps = kThreads / 32;

void launch_softmax_thread_per_row(const float* x, float* out, int rows, int cols);
void launch_softmax_block_per_row(const float* x, float* out, int rows, int cols);
void launch_softmax_warp_shuffle(const float* x, float* out, int rows, int cols);
void launch_softmax_online(const float* x, float* out, int rows, int cols);
