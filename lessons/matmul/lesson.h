// Matrix multiply: what the student's file (exercise.cu or solution.cu)
// provides. C = A x B for n x n matrices of floats stored row by row: the
// element in row r and column c is at [r * n + c]. a, b and c are device
// pointers; n need not be a multiple of any block or tile size.
#pragma once

// Stage 3: the shared-memory tiles are kTile x kTile, one thread per element.
constexpr int kTile = 16;
// Stage 4: a block of 16 x 16 threads computes a kBlockTile x kBlockTile
// part of C, each thread kThreadTile x kThreadTile of it, walking k in steps
// of kStepK.
constexpr int kBlockTile = 128;
constexpr int kThreadTile = 8;
constexpr int kStepK = 16;

void launch_matmul_naive(const float* a, const float* b, float* c, int n);
void launch_matmul_coalesced(const float* a, const float* b, float* c, int n);
void launch_matmul_tiled(const float* a, const float* b, float* c, int n);
void launch_matmul_register_tiled(const float* a, const float* b, float* c, int n);
