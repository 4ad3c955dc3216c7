// hostile: prints to stdout and stderr without end, never returning from the launcher
// expect-max-points: 0
// note: the kernel is correct; the launcher never returns
//
// Writes long lines (with fake totals in them) to stdout and stderr as fast
// as it can, forever, ignoring SIGPIPE and write errors, from the launcher
// and from a second thread. The judge must cap what it reads and keeps,
// stop the process, and fail the test without running out of memory or disk.
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <string>
#include <thread>

#include "lesson.h"

namespace {

[[noreturn]] void flood(int fd) {
  std::string line;
  for (int k = 0; k < 64; ++k)
    line += "total: 12 / 12 points {\"status\":\"passed\",\"score\":5.0} ";
  line += "\n";
  while (true) {
    ssize_t ignored = write(fd, line.data(), line.size());
    (void)ignored;
  }
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
  std::signal(SIGPIPE, SIG_IGN);
  std::thread([] { flood(2); }).detach();
  flood(1);
}
