// Vector add, the reference solution: c[i] = a[i] + b[i].
//
// Each thread adds the elements it owns. Its first element is its global
// index, blockIdx.x * blockDim.x + threadIdx.x; the next one is a whole grid
// further on (the grid-stride loop), so any grid covers any n.
#include "lesson.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  // BEGIN SOLUTION
  const int stride = gridDim.x * blockDim.x;  // threads in the whole grid
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
  // END SOLUTION
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
