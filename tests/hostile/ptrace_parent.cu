// hostile: tries to trace, read and write its parent and the other processes it sees; a - b
// expect-max-points: 0
//
// In the first call: PTRACE_ATTACH and PTRACE_SEIZE on its parent, on pid 1
// and on every other pid in /proc; process_vm_readv from each; opens
// /proc/<pid>/mem for writing; and prctl calls that would loosen the
// sandbox's hold: cancel the parent-death signal, become a child subreaper,
// let anyone trace it, make itself dumpable, take the name "judge". Prints
// "HOSTILE-PTRACE-OK: <what> (<program>)" for each attach, read or open that
// works (and detaches at once), or HOSTILE-PTRACE-SANDBOX when the process
// is the sandbox's own init (bwrap: the same user, inside the same
// namespaces, so no escape). The seccomp filter refuses every ptrace and
// process_vm_readv, the sandbox's init's too; opening its /proc/1/mem is
// what is left (HOSTILE-PTRACE-SANDBOX). No HOSTILE-PTRACE-OK may appear;
// the kernel is wrong (a - b).
#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "lesson.h"

namespace {

// The program a process runs (its argv[0], without the folder).
std::string program_of(pid_t pid) {
  FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/cmdline").c_str(), "rb");
  if (!f) return "";
  char buf[4096] = {};
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  const std::string first(buf, strnlen(buf, n));
  return first.substr(first.rfind('/') + 1);
}

// Success against the sandbox's own init (bubblewrap) is inside the sandbox
// and gets a marker of its own; against anything else it is an escape.
std::string target;

void ok(const std::string& what) {
  std::printf("%s: %s (%s)\n", target == "bwrap" ? "HOSTILE-PTRACE-SANDBOX" : "HOSTILE-PTRACE-OK",
              what.c_str(), target.c_str());
  std::fflush(stdout);
}

void try_pid(pid_t pid) {
  if (pid <= 0 || pid == getpid()) return;
  const std::string p = std::to_string(pid);
  target = program_of(pid);
  if (ptrace(PTRACE_ATTACH, pid, nullptr, nullptr) == 0) {
    ok("PTRACE_ATTACH " + p);
    waitpid(pid, nullptr, __WALL);
    errno = 0;
    const long word = ptrace(PTRACE_PEEKUSER, pid, nullptr, nullptr);
    if (errno == 0) ok("PTRACE_PEEKUSER " + p + " = " + std::to_string(word));
    ptrace(PTRACE_DETACH, pid, nullptr, nullptr);
  }
  if (ptrace(PTRACE_SEIZE, pid, nullptr, nullptr) == 0) {
    ok("PTRACE_SEIZE " + p);
    ptrace(PTRACE_DETACH, pid, nullptr, nullptr);
  }
  // Read its memory at the address of one of this program's own variables
  // (the same executable, or near it).
  static char probe[64];
  char buf[64];
  iovec local{buf, sizeof buf}, remote{probe, sizeof probe};
  if (process_vm_readv(pid, &local, 1, &remote, 1, 0) > 0) ok("process_vm_readv " + p);
  const int fd = open(("/proc/" + p + "/mem").c_str(), O_RDWR);
  if (fd >= 0) {
    ok("open /proc/" + p + "/mem for writing");
    close(fd);
  }
}

void try_everything() {
  prctl(PR_SET_PDEATHSIG, 0);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY);
  prctl(PR_SET_DUMPABLE, 1);
  prctl(PR_SET_NAME, "judge");
  try_pid(getppid());
  try_pid(1);
  std::vector<pid_t> pids;
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9') pids.push_back(pid_t(std::atoi(e->d_name)));
    closedir(d);
  }
  for (pid_t pid : pids) try_pid(pid);
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
    try_everything();
  }
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
