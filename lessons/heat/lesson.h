// Heat equation: what the student's file (exercise.cu or solution.cu)
// provides. The temperature u on an nx x ny grid, stored row by row (cell
// (x, y) at [y * nx + x]), moves one time step by the explicit update
//
//   out = in + alpha * (left + right + up + down - 4 * in)
//
// for every interior cell; cells on the edge of the grid keep their value
// (fixed boundaries). The update is stable only for alpha <= 1/4.
#pragma once

#include <cuda_runtime.h>

// Stage 2: a block of kBlockX x kBlockY threads stages its cells and a halo
// of one cell around them in shared memory.
constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
// Stage 3 (advanced): each thread of a kBlockX x kBlockY block steps
// kRowsPerThread cells down its column.
constexpr int kRowsPerThread = 4;

// One step from `in` to `out` (device pointers, nx * ny floats each).
void launch_heat_step(const float* in, float* out, int nx, int ny, float alpha);
void launch_heat_step_shared(const float* in, float* out, int nx, int ny, float alpha);
void launch_heat_step_columns(const float* in, float* out, int nx, int ny, float alpha);

// `steps` steps from u, with `scratch` as the second buffer (double
// buffering); the result ends in u, made by the kernel of `stage` (1, 2 or 3).
// Returns cudaErrorInvalidValue, without changing u, when alpha is below 0
// or above 1/4 (the update would blow up), and the first CUDA error
// otherwise.
cudaError_t heat_simulate(float* u, float* scratch, int nx, int ny, float alpha, int steps,
                          int stage);
