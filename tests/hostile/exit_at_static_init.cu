// hostile: calls exit(0) during static initialization, before any test can run
// expect-max-points: 0
// note: the kernel is correct; the process ends with status 0 before it can be called
#include <cstdio>
#include <cstdlib>

#include "lesson.h"

namespace {
const int exited = [] {
  std::printf("total: 12 / 12 points\n");
  std::fflush(stdout);
  std::exit(0);
  return 0;
}();
}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
