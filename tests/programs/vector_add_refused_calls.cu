// Known-wrong vector add (a - b) that first tries the system calls a graded
// run refuses: tracing and reading pid 1 (the sandbox's init, which a
// program could otherwise trace), changing its personality, keyrings, bpf,
// perf events, userfaultfd, io_uring, mounts and new namespaces. Each must
// fail with EPERM (clone3 with ENOSYS) and the program be told which call
// was refused; then the program runs on as before.
#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "lesson.h"

namespace {
void attempt(const char* what, long result) {
  if (result >= 0)
    std::printf("ALLOWED: %s\n", what);
  else
    std::printf("refused: %s (%s)\n", what, errno == EPERM ? "EPERM" : std::strerror(errno));
}

void try_refused_calls() {
  attempt("ptrace", syscall(SYS_ptrace, 16 /* PTRACE_ATTACH */, 1, 0, 0));
  char buffer[64];
  iovec local{buffer, sizeof buffer}, remote{reinterpret_cast<void*>(0x400000), sizeof buffer};
  attempt("process_vm_readv", syscall(SYS_process_vm_readv, 1, &local, 1, &remote, 1, 0));
  attempt("process_vm_writev", syscall(SYS_process_vm_writev, 1, &local, 1, &remote, 1, 0));
  attempt("personality", syscall(SYS_personality, 0x0040000 /* ADDR_NO_RANDOMIZE */));
  attempt("keyctl", syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3, 0));
  attempt("bpf", syscall(SYS_bpf, 0, nullptr, 0));
  attempt("perf_event_open", syscall(SYS_perf_event_open, nullptr, 0, -1, -1, 0));
  attempt("userfaultfd", syscall(SYS_userfaultfd, 0));
  attempt("io_uring_setup", syscall(SYS_io_uring_setup, 1, nullptr));
  attempt("mount", syscall(SYS_mount, "none", "/tmp", "tmpfs", 0, nullptr));
  attempt("unshare", syscall(SYS_unshare, 0x10000000 /* CLONE_NEWUSER */));
  attempt("clone with CLONE_NEWUSER",
          syscall(SYS_clone, 0x10000000 /* CLONE_NEWUSER */ | 17 /* SIGCHLD */, nullptr, nullptr,
                  nullptr, nullptr));
  const long clone3 = syscall(SYS_clone3, nullptr, 0);
  std::printf("clone3: %s\n", clone3 < 0 && errno == ENOSYS ? "not implemented" : "ALLOWED");
  std::fflush(stdout);
}
}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] - b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks, int threads) {
  static bool tried = false;
  if (!tried) try_refused_calls();
  tried = true;
  vector_add<<<blocks, threads>>>(a, b, c, n);
}

// The test of this file (tests/lit/README.md): every call is refused and the
// program is told so; the results are wrong, so each test shows the output.
// REQUIRES: solution
// TEST: lesson.vector_add.refused_system_calls
// LABELS: lesson
// RUN: bwrap --unshare-all --ro-bind / / --proc /proc --dev /dev true 2>/dev/null || exit 77
// SKIP-EXIT: 77
// RUN: %cudalab check --seed 1 vector_add --timeout 10 --file %s > out.txt; test $? -eq 1
// RUN: cat out.txt
// CHECK: cudalab: the program called ptrace(), which graded runs refuse: it failed with EPERM (a graded run may not
// CHECK: cudalab: the program called bpf(), which graded runs refuse: it failed with EPERM.
// CHECK: refused: ptrace (EPERM)
// CHECK: refused: process_vm_readv (EPERM)
// CHECK: refused: process_vm_writev (EPERM)
// CHECK: refused: personality (EPERM)
// CHECK: refused: keyctl (EPERM)
// CHECK: refused: bpf (EPERM)
// CHECK: refused: perf_event_open (EPERM)
// CHECK: refused: userfaultfd (EPERM)
// CHECK: refused: io_uring_setup (EPERM)
// CHECK: refused: mount (EPERM)
// CHECK: refused: unshare (EPERM)
// CHECK: refused: clone with CLONE_NEWUSER (EPERM)
// CHECK: clone3: not implemented
// CHECK-NOT: ALLOWED
