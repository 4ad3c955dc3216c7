// hostile: stops itself, its process group and its parent with SIGSTOP; computes a - b
// expect-max-points: 0
//
// In the first call: SIGSTOP and SIGTSTP to its parent and its parent's
// process group (if the judge shared a group with it, the judge would
// stop), then SIGSTOP to its own group and raise(SIGSTOP) on itself. A
// stopped process never answers and does not use CPU time, so only the
// wall-clock limit can end the test, with a SIGKILL (which works on a
// stopped process). If anything continues it, the kernel is wrong (a - b).
#include <signal.h>
#include <unistd.h>

#include "lesson.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] - b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  static bool stopped = false;
  if (!stopped) {
    stopped = true;
    const pid_t parent = getppid();
    if (parent > 1) {
      kill(parent, SIGSTOP);
      kill(parent, SIGTSTP);
      const pid_t group = getpgid(parent);
      if (group > 1 && group != getpgrp()) kill(-group, SIGSTOP);
    }
    kill(0, SIGSTOP);  // its own group: itself and anything that shares it
    raise(SIGSTOP);
  }
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
