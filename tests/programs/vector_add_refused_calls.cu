// Known-wrong vector add (a - b) that first tries each system call a graded
// run refuses: tracing and reading pid 1 (the sandbox's init, which a
// program could otherwise trace), changing its personality, keyrings, bpf,
// perf events, userfaultfd, io_uring, mounts, new namespaces and the
// administrator's calls. Each must fail with EPERM (clone3 with ENOSYS) and
// the program be told which call was refused; then the program runs on as
// before.
#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iterator>

#include "lesson.h"

namespace {
void attempt(const char* what, long result) {
  if (result >= 0)
    std::printf("ALLOWED: %s\n", what);
  else
    std::printf("refused: %s (%s)\n", what, errno == EPERM ? "EPERM" : std::strerror(errno));
}

// The calls a program might try for a reason, each with its own arguments.
void try_named_calls() {
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
  std::printf("clone3: %s\n", clone3 < 0 && errno == ENOSYS ? "refused with ENOSYS" : "ALLOWED");
  std::fflush(stdout);
}

// The rest of the list, with no arguments: each must fail with EPERM
// (allowed, most would fail otherwise: a bad address or descriptor).
void try_other_calls(bool first_half) {
  const struct {
    const char* name;
    long number;
  } others[] = {
      {"add_key", SYS_add_key},     {"request_key", SYS_request_key},
      {"umount2", SYS_umount2},     {"pivot_root", SYS_pivot_root},
      {"chroot", SYS_chroot},       {"setns", SYS_setns},
      {"kcmp", SYS_kcmp},           {"syslog", SYS_syslog},
      {"name_to_handle_at", SYS_name_to_handle_at},
      {"open_by_handle_at", SYS_open_by_handle_at},
      {"kexec_load", SYS_kexec_load}, {"kexec_file_load", SYS_kexec_file_load},
      {"init_module", SYS_init_module}, {"finit_module", SYS_finit_module},
      {"delete_module", SYS_delete_module}, {"swapon", SYS_swapon},
      {"swapoff", SYS_swapoff},     {"reboot", SYS_reboot},
      {"acct", SYS_acct},           {"iopl", SYS_iopl},
      {"ioperm", SYS_ioperm},       {"io_uring_enter", SYS_io_uring_enter},
      {"io_uring_register", SYS_io_uring_register}, {"pidfd_getfd", SYS_pidfd_getfd},
      {"open_tree", SYS_open_tree}, {"move_mount", SYS_move_mount},
      {"fsopen", SYS_fsopen},       {"fsconfig", SYS_fsconfig},
      {"fsmount", SYS_fsmount},     {"fspick", SYS_fspick},
      {"mount_setattr", SYS_mount_setattr},
  };
  const size_t half = std::size(others) / 2;
  const size_t from = first_half ? 0 : half, to = first_half ? half : std::size(others);
  int refused = 0;
  for (size_t k = from; k < to; ++k) {
    const auto& c = others[k];
    if (syscall(c.number, 0, 0, 0, 0, 0, 0) < 0 && errno == EPERM)
      ++refused;
    else
      std::printf("ALLOWED: %s (%s)\n", c.name, std::strerror(errno));
  }
  std::printf("refused with EPERM: %d of these %zu others\n", refused, to - from);
  std::fflush(stdout);
}
}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] - b[i];
}

// Each test is a process of its own: the first tries the named calls, the
// second and third the others (so that each test's output, which a student
// sees cut to its last 3000 characters, holds all of its messages).
void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks, int threads) {
  static bool tried = false;
  if (!tried && n == 65536) try_named_calls();
  if (!tried && n == 100003) try_other_calls(true);
  if (!tried && n == 1) try_other_calls(false);
  tried = true;
  vector_add<<<blocks, threads>>>(a, b, c, n);
}

// The test of this file (tests/lit/README.md): every call is refused and the
// program is told so; the results are wrong, so each test shows its output.
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
// CHECK: clone3: refused with ENOSYS
// CHECK: NotAMultipleOfBlockSize
// CHECK: cudalab: the program called add_key(), which graded runs refuse: it failed with EPERM (a graded run may not
// CHECK: cudalab: the program called kexec_load(), which graded runs refuse: it failed with EPERM.
// CHECK: cudalab: the program called delete_module(), which graded runs refuse: it failed with EPERM.
// CHECK: refused with EPERM: 15 of these 15 others
// CHECK: OneElement
// CHECK: cudalab: the program called swapon(), which graded runs refuse: it failed with EPERM (a graded run may not
// CHECK: cudalab: the program called reboot(), which graded runs refuse: it failed with EPERM.
// CHECK: cudalab: the program called mount_setattr(), which graded runs refuse: it failed with EPERM.
// CHECK: refused with EPERM: 16 of these 16 others
// CHECK-NOT: ALLOWED
