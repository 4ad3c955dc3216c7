// hostile: none, a right kernel whose program prints 1,000 lines (about 60 KB), not a flood
// expect-max-points: 12
// note: correct results in every test; the output is large but bounded, and must not fail it
//
// A student who left debugging output in: the launcher prints 1,000 lines
// in each process (to stdout and stderr alike), the kernel prints one line
// from its first thread, and none of it looks like a result.
#include <cstdio>

#include "lesson.h"

namespace {
int lines_left = 1000;
}

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  const int first = blockIdx.x * blockDim.x + threadIdx.x;
  if (first == 0) printf("debug: kernel started, n = %d, stride = %d\n", n, stride);
  for (int i = first; i < n; i += stride) c[i] = a[i] + b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  for (int k = 0; k < 500 && lines_left > 0; ++k, lines_left -= 2) {
    std::printf("debug: line %4d of the launcher, n = %d, %d blocks of %d threads\n",
                1000 - lines_left, n, blocks, threads_per_block);
    std::fprintf(stderr, "debug: line %4d of the launcher (stderr)\n", 1001 - lines_left);
  }
  std::fflush(nullptr);
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
