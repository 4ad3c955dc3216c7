// hostile: none, a right kernel with an unusual grid-stride loop (64-bit tiles, early return)
// expect-max-points: 12
// note: correct results, no access outside the arrays, coalesced loads: all 12 points
//
// Walks the array in tiles of one whole grid: tile t covers elements
// t * (gridDim.x * blockDim.x) onward, and each thread takes its own lane
// of each tile, so neighbouring threads still touch neighbouring elements.
// Indices are 64-bit, the loop is a while counting tiles, threads with no
// element at all return first, and the launcher checks its own arguments.
#include <cstdint>

#include "lesson.h"

__global__ void vector_add(const float* __restrict__ a, const float* __restrict__ b,
                           float* __restrict__ c, int n) {
  const int64_t lane = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (lane >= n) return;  // past the end from the start: nothing to do
  const int64_t grid = int64_t(gridDim.x) * blockDim.x;
  const int64_t tiles = (int64_t(n) + grid - 1) / grid;
  int64_t tile = 0;
  while (tile < tiles) {
    const int64_t i = tile * grid + lane;
    if (i < n) {
      const float x = a[i];
      const float y = b[i];
      c[i] = x + y;
    }
    ++tile;
  }
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  if (n <= 0 || blocks <= 0 || threads_per_block <= 0) return;
  vector_add<<<dim3(unsigned(blocks)), dim3(unsigned(threads_per_block))>>>(a, b, c, n);
}
