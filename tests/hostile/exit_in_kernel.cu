// hostile: the kernel writes the right answer, then calls exit(0) from device code
// expect-max-points: 0
// note: every thread writes its correct element, then the process ends with status 0
//
// Device code calling a host function compiles only on the simulator, where
// a kernel is host C++; nvcc refuses it.
#include <cstdlib>

#include "lesson.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  const int first = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = first; i < n; i += stride) c[i] = a[i] + b[i];
  // The last thread of the grid: by then most of c is written.
  if (first == int(gridDim.x * blockDim.x) - 1) exit(0);
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
  cudaDeviceSynchronize();
  exit(0);  // in case the kernel's exit was intercepted
}
