// hostile: forks until it cannot; detached children try to outlive the test; computes a - b
// expect-max-points: 0
// graded-with-limit: 3
//
// Forks until fork() fails (at most 4096 children). Each child starts its own
// session and forks again so that its own child is orphaned, and that
// grandchild ignores SIGTERM, SIGHUP, SIGINT and friends, cancels any
// parent-death signal, renames itself, keeps the descriptors it inherited
// (the judge's pipes, stdout and stderr stay open while it lives) and waits;
// the first 16 spin on the CPU instead of sleeping. When a grandchild sees
// that the process which launched it has ended, it writes the marker files
// /tmp/cudalab-hostile-escaped-fork_bomb_escape and
// $HOME/cudalab-hostile-escaped-fork_bomb_escape (and the same name in the
// password file's home, /var/tmp and /dev/shm). Survivors give up after ten
// minutes, so that a broken sandbox does not leave them forever.
//
// Nothing may remain after the test: no such process, and no such file
// outside the sandbox (its private /tmp and home vanish with it).
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lesson.h"

namespace {

constexpr const char* kMarker = "cudalab-hostile-escaped-fork_bomb_escape";
constexpr int kMaxChildren = 4096;
constexpr int kSpinners = 16;
constexpr int kLifetimeSeconds = 600;

double now() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

void write_marker(const std::string& dir) {
  if (dir.empty()) return;
  const std::string path = dir + "/" + kMarker;
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) return;
  char line[128];
  const int len =
      std::snprintf(line, sizeof line, "escaped: pid %d outlived its parent\n", int(getpid()));
  ssize_t ignored = write(fd, line, size_t(len));
  (void)ignored;
  close(fd);
}

void write_markers() {
  write_marker("/tmp");
  write_marker("/var/tmp");
  write_marker("/dev/shm");
  if (const char* home = std::getenv("HOME")) write_marker(home);
  if (const passwd* pw = getpwuid(getuid())) write_marker(pw->pw_dir);
}

// The grandchild: waits for the launching process to end, then leaves its
// marks; never returns.
[[noreturn]] void survive(int parent_alive_fd, bool spin) {
  for (int sig : {SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU,
                  SIGTTIN, SIGTTOU, SIGTSTP, SIGCHLD})
    std::signal(sig, SIG_IGN);
  prctl(PR_SET_PDEATHSIG, 0);
  prctl(PR_SET_NAME, "kworker/0:1", 0, 0, 0);
  if (chdir("/") != 0) {
  }
  const double deadline = now() + kLifetimeSeconds;
  bool marked = false;
  while (now() < deadline) {
    // The pipe's write end is held only by the launching process: end of
    // file here means it is gone.
    pollfd p{parent_alive_fd, POLLIN, 0};
    const int r = poll(&p, 1, spin ? 0 : 1000);
    const bool parent_gone = r > 0 && (p.revents & (POLLHUP | POLLIN));
    if (parent_gone && !marked) {
      write_markers();
      marked = true;
    }
    if (spin) {
      volatile unsigned long x = 0;
      for (int k = 0; k < 20000000; ++k) x = x + 1;
    } else if (parent_gone) {
      sleep(1);
    }
  }
  _exit(0);
}

void bomb() {
  int alive[2];
  if (pipe(alive) != 0) return;
  int forked = 0;
  for (int k = 0; k < kMaxChildren; ++k) {
    const pid_t child = fork();
    if (child < 0) break;  // the process limit, as it should be
    if (child == 0) {
      close(alive[1]);
      setsid();
      const pid_t grandchild = fork();
      if (grandchild != 0) _exit(0);  // orphan the grandchild
      setsid();
      survive(alive[0], k < kSpinners);
    }
    ++forked;
    waitpid(child, nullptr, 0);  // the middle process exits at once
  }
  close(alive[0]);
  std::fprintf(stderr, "fork_bomb_escape: %d children forked\n", forked);
  // alive[1] stays open until this process ends.
}

}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] - b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  static bool bombed = false;
  if (!bombed) {
    bombed = true;
    bomb();
  }
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
