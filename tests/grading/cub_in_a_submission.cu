// A vector-add submission that reads through CUB's cache-modifier loads
// (inline PTX in CUB's headers, which the simulator's build rewrites): a
// graded build must see the simulator's copy of CUB's headers, as
// cudalab-cc does outside the sandbox. It earns every point.
#include <cub/cub.cuh>

#include "lesson.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    c[i] = cub::ThreadLoad<cub::LOAD_LDG>(a + i) + cub::ThreadLoad<cub::LOAD_LDG>(b + i);
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
