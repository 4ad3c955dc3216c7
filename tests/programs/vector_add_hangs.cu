// Known-wrong vector add: the grid-stride loop never advances, so the
// kernel never ends. The grader must stop it and go on.
#include "lesson.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;) c[i] = a[i] + b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks, int threads) {
  vector_add<<<blocks, threads>>>(a, b, c, n);
}
