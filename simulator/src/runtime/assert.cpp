// A failed assert: in a kernel, the GPU's message and cudaErrorAssert; on
// the host, the C library's behaviour.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "grid/grid.h"

extern "C" void cudalab_assert_fail(const char* expression, const char* file, unsigned line,
                                    const char* function) {
  using namespace cudalab::rt;
  if (!tl_thread || !tl_block) {
    std::fprintf(stderr, "%s:%u: %s: Assertion `%s' failed.\n", file, line, function, expression);
    std::fflush(stderr);
    std::abort();
  }
  const RuntimeScope runtime;
  const uint3 b = tl_block->index, t = tl_thread->index;
  std::fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n",
               file, line, function, b.x, b.y, b.z, t.x, t.y, t.z, expression);
  const Launch& l = *tl_block->launch;
  stop_launch_from_thread(
      cudaErrorAssert,
      launch_heading(l) +
          " stopped at a failed assert; every later CUDA call returns cudaErrorAssert\n");
}

void __trap() {
  using namespace cudalab::rt;
  if (!tl_thread || !tl_block) std::abort();
  const RuntimeScope runtime;
  const Launch& l = *tl_block->launch;
  const uint3 b = tl_block->index, t = tl_thread->index;
  stop_launch_from_thread(cudaErrorLaunchFailure,
                          launch_heading(l) + " called __trap() in thread (" + std::to_string(t.x) +
                              "," + std::to_string(t.y) + "," + std::to_string(t.z) +
                              ") of block (" + std::to_string(b.x) + "," + std::to_string(b.y) +
                              "," + std::to_string(b.z) +
                              "); every later CUDA call returns cudaErrorLaunchFailure\n");
}
