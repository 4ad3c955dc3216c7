// hostile: computes correctly, then never exits: an exit handler blocks signals and sleeps forever
// expect-max-points: 12
// note: correct results; 12 or 0 both acceptable, but each test must end within its limit
//
// The answers are right, so a grader that takes the answers and then stops
// the process may give full points; one that waits for the process to end
// must stop waiting at the limit and fail the test. Either way the grader
// must not hang, and no process may remain. Exit handlers (atexit, a static
// object's destructor) block every signal they can and sleep forever.
#include <pthread.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>

#include "lesson.h"

namespace {

[[noreturn]] void never_return() {
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGALRM, SIGPIPE, SIGXCPU, SIGUSR1, SIGUSR2})
    std::signal(sig, SIG_IGN);
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  while (true) pause();
}

struct Forever {
  ~Forever() { never_return(); }
};
Forever forever;

const int registered = [] {
  std::atexit([] { never_return(); });
  std::at_quick_exit([] { never_return(); });
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
