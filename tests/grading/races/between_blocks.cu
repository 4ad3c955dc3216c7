// A student's vector add whose result depends on which of two blocks runs
// last: block 1 "fixes up" element 0, which block 0 computes, with no
// ordering between them. On a GPU (and on the simulator with several
// workers) c[0] is right or wrong from run to run; graded, it must get one
// score on every run.
#include "lesson.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
  if (blockIdx.x == 1 && threadIdx.x == 0 && n > 0) c[0] = a[0];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks, int threads) {
  vector_add<<<blocks, threads>>>(a, b, c, n);
}
