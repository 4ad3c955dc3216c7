// hostile: the kernel writes 100,000,000 elements past the index it should, never c[i] itself
// expect-max-points: 0
//
// Every thread writes a[i] + b[i] to c[i + 100000000]: 400 MB past the
// buffer, into memory that is not c (unmapped, or another allocation). On
// the simulator the write either faults, which must fail the launch and the
// test without bringing down the judge, or lands somewhere silently; c itself
// is never written, so no test may pass either way.
#include "lesson.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    c[i + 100000000] = a[i] + b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
