// hostile: wrong results (a - b), and an exit handler that never returns
// expect-max-points: 0
//
// Every test fails; after each answer the program does not end (an atexit
// handler waits forever). The judge must stop waiting once the answer is in: one
// limit for the whole submission, not one per test, and the student is told
// that the program did not end.
#include <unistd.h>

#include <cstdlib>

#include "lesson.h"

namespace {
const int registered = [] {
  std::atexit([] {
    for (;;) pause();
  });
  return 0;
}();
}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] - b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks, int threads) {
  vector_add<<<blocks, threads>>>(a, b, c, n);
}
