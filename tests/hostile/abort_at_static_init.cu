// hostile: calls abort() during static initialization, before any test can run
// expect-max-points: 0
// note: the kernel is correct; the process dies of SIGABRT before it can be called
#include <csignal>
#include <cstdlib>

#include "lesson.h"

namespace {
const int aborted = [] {
  // Make sure no handler (the simulator's or the harness's) turns it into
  // something gentler.
  std::signal(SIGABRT, SIG_DFL);
  std::abort();
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
