// Known-wrong vector add: right results, but each thread adds a contiguous
// chunk of its own, so the 32 threads of a warp read 32 elements a chunk
// apart at once: 32 sectors per request instead of 4 (uncoalesced).
// expect-failed: CoalescedLoads
#include "lesson.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int threads = gridDim.x * blockDim.x;
  const int chunk = (n + threads - 1) / threads;
  const int first = (blockIdx.x * blockDim.x + threadIdx.x) * chunk;
  for (int i = first; i < first + chunk && i < n; ++i) c[i] = a[i] + b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks, int threads) {
  vector_add<<<blocks, threads>>>(a, b, c, n);
}
