// Known-wrong vector add: no bounds check. Threads past the end write.
// expect-failed: NotAMultipleOfBlockSize,OneElement,GridStride,HiddenRandomShapes,NoOutOfBoundsAccess,CoalescedLoads
#include "lesson.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  c[i] = a[i] + b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks, int threads) {
  vector_add<<<blocks, threads>>>(a, b, c, n);
}
