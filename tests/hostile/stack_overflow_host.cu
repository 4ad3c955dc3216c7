// hostile: lifts its stack limit, then recurses without end in host code
// expect-max-points: 0
// note: the kernel is correct; the launcher then overflows the stack (SIGSEGV) before returning
//
// Tries to raise RLIMIT_STACK to unlimited, then recurses with 64 KiB
// frames (kept by a volatile array) on the main thread, which grows until
// it meets the limit or the address-space limit: a SIGSEGV, or the memory
// limit, must end it and fail the test.
#include <sys/resource.h>

#include <cstddef>

#include "lesson.h"

namespace {

__attribute__((noinline)) size_t deeper(size_t depth) {
  if (depth == ~size_t(0)) return 0;  // never: 2^64 frames
  volatile char frame[64 * 1024];
  frame[0] = char(depth);
  frame[sizeof frame - 1] = char(depth >> 8);
  return deeper(depth + 1) + frame[0] + frame[sizeof frame - 1];  // not a tail call
}

}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
  cudaDeviceSynchronize();
  rlimit unlimited{RLIM_INFINITY, RLIM_INFINITY};
  setrlimit(RLIMIT_STACK, &unlimited);
  deeper(0);
}
