// Known-wrong vector add: bounds check but no grid-stride loop, so a grid
// smaller than the array leaves elements unwritten.
// expect-failed: GridStride,HiddenRandomShapes,CoalescedLoads
#include "lesson.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks, int threads) {
  vector_add<<<blocks, threads>>>(a, b, c, n);
}
