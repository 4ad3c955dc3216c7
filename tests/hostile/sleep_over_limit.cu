// hostile: sleeps 30 seconds in the first call of each process, then computes correctly
// expect-max-points: 0
// note: correct results, but every test sleeps past a limit of 5 or 10 seconds, so none may pass
//
// The sleep starts again after any signal that interrupts it, and SIGTERM,
// SIGINT and SIGHUP are ignored, so only a hard kill ends it in time.
#include <time.h>

#include <cerrno>
#include <csignal>

#include "lesson.h"

namespace {
bool slept = false;

void sleep_seconds(double s) {
  timespec left{time_t(s), long((s - time_t(s)) * 1e9)};
  while (nanosleep(&left, &left) == -1 && errno == EINTR) {
  }
}
}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  if (!slept) {
    slept = true;
    for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGALRM}) std::signal(sig, SIG_IGN);
    sleep_seconds(30.0);
  }
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
