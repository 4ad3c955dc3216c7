// Known-wrong vector add: right results, but each thread loads its next
// elements (one grid further) before it knows they exist, to have them
// ready. On its last round those loads are past the end of a and b: memory
// that is not the arrays'. Memcheck names the line.
// expect-failed: NoOutOfBoundsAccess
#include "lesson.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i];
  for (; i < n; i += stride) {
    const float next_x = a[i + stride], next_y = b[i + stride];  // no bounds check
    c[i] = x + y;
    x = next_x;
    y = next_y;
  }
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks, int threads) {
  vector_add<<<blocks, threads>>>(a, b, c, n);
}
