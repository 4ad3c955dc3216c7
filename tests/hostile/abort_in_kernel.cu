// hostile: the kernel writes the right answer, then calls abort() from device code
// expect-max-points: 0
// note: every thread writes its correct element, then one thread aborts the process
//
// Device code calling a host function compiles only on the simulator, where
// a kernel is host C++; nvcc refuses it.
#include <csignal>
#include <cstdlib>

#include "lesson.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  const int first = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = first; i < n; i += stride) c[i] = a[i] + b[i];
  if (first == int(gridDim.x * blockDim.x) - 1) {
    signal(SIGABRT, SIG_DFL);
    abort();
  }
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
  cudaDeviceSynchronize();
  // If the launch survived the abort (a handler caught it), abort here too.
  signal(SIGABRT, SIG_DFL);
  abort();
}
