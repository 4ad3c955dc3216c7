// hostile: after a correct launch, the host code spins forever, ignoring the signals it can
// expect-max-points: 0
// graded-with-limit: 3
// note: the kernel is correct; the launcher never returns
#include <pthread.h>

#include <csignal>

#include "lesson.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
  cudaDeviceSynchronize();
  // Survive what can be survived: SIGTERM, SIGINT, SIGHUP, SIGALRM, the CPU
  // limit's SIGXCPU (the hard limit's SIGKILL cannot be).
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGUSR1,
                  SIGUSR2, SIGPIPE})
    std::signal(sig, SIG_IGN);
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  volatile unsigned long spins = 0;
  while (true) spins = spins + 1;
}
