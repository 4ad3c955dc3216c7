// A student's vector add whose result depends on the order of a block's
// warps: the last warp copies element 0 of its block's range from c before
// warp 0 may have written it (no __syncthreads between them). Graded, it
// must get one score on every run.
#include "lesson.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
  const int first = blockIdx.x * blockDim.x;
  if (threadIdx.x == blockDim.x - 1 && blockDim.x > 32 && first + 1 < n) c[first + 1] = c[first];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks, int threads) {
  vector_add<<<blocks, threads>>>(a, b, c, n);
}
