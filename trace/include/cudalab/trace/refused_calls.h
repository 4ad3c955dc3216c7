// The system calls a graded run refuses, in one place: the judge's sandbox
// turns them into a seccomp filter (framework/cli/sandbox.cpp), and the
// simulator's runtime names the one a program tried (simulator/src/
// runtime/settings.cpp). Nothing a CUDA program needs is among them: they reach other
// processes (ptrace, process_vm_readv), change how the process runs
// (personality), or reach the kernel's less guarded parts (keyrings, bpf,
// perf events, mounts, namespaces, io_uring, userfaultfd).
#pragma once

#include <sys/syscall.h>

namespace cudalab::trace {

struct RefusedCall {
  long number;
  const char* name;
};

#define CUDALAB_REFUSED(name) {SYS_##name, #name},
inline constexpr RefusedCall kRefusedCalls[] = {
    CUDALAB_REFUSED(ptrace)             //
    CUDALAB_REFUSED(process_vm_readv)   //
    CUDALAB_REFUSED(process_vm_writev)  //
    CUDALAB_REFUSED(personality)        //
    CUDALAB_REFUSED(add_key)            //
    CUDALAB_REFUSED(request_key)        //
    CUDALAB_REFUSED(keyctl)             //
    CUDALAB_REFUSED(bpf)                //
    CUDALAB_REFUSED(perf_event_open)    //
    CUDALAB_REFUSED(userfaultfd)        //
    CUDALAB_REFUSED(mount)              //
    CUDALAB_REFUSED(umount2)            //
    CUDALAB_REFUSED(pivot_root)         //
    CUDALAB_REFUSED(chroot)             //
    CUDALAB_REFUSED(unshare)            //
    CUDALAB_REFUSED(setns)              //
    CUDALAB_REFUSED(kcmp)               //
    CUDALAB_REFUSED(syslog)             //
    CUDALAB_REFUSED(name_to_handle_at)  //
    CUDALAB_REFUSED(open_by_handle_at)  //
    CUDALAB_REFUSED(kexec_load)         //
    CUDALAB_REFUSED(init_module)        //
    CUDALAB_REFUSED(finit_module)       //
    CUDALAB_REFUSED(delete_module)      //
    CUDALAB_REFUSED(swapon)             //
    CUDALAB_REFUSED(swapoff)            //
    CUDALAB_REFUSED(reboot)             //
    CUDALAB_REFUSED(acct)               //
#ifdef SYS_kexec_file_load
    CUDALAB_REFUSED(kexec_file_load)  //
#endif
#ifdef SYS_iopl
    CUDALAB_REFUSED(iopl)    //
    CUDALAB_REFUSED(ioperm)  //
#endif
#ifdef SYS_io_uring_setup
    CUDALAB_REFUSED(io_uring_setup)     //
    CUDALAB_REFUSED(io_uring_enter)     //
    CUDALAB_REFUSED(io_uring_register)  //
#endif
#ifdef SYS_pidfd_getfd
    CUDALAB_REFUSED(pidfd_getfd)  //
#endif
#ifdef SYS_open_tree
    CUDALAB_REFUSED(open_tree)   //
    CUDALAB_REFUSED(move_mount)  //
    CUDALAB_REFUSED(fsopen)      //
    CUDALAB_REFUSED(fsconfig)    //
    CUDALAB_REFUSED(fsmount)     //
    CUDALAB_REFUSED(fspick)      //
#endif
#ifdef SYS_mount_setattr
    CUDALAB_REFUSED(mount_setattr)  //
#endif
};
#undef CUDALAB_REFUSED

// clone() with any of these flags makes new namespaces: refused too.
// (clone3, whose flags a filter cannot read, fails with ENOSYS, and
// the C library then calls clone.)
inline constexpr unsigned long kRefusedCloneFlags = 0x00020000UL |  // CLONE_NEWNS
                                                    0x02000000UL |  // CLONE_NEWCGROUP
                                                    0x04000000UL |  // CLONE_NEWUTS
                                                    0x08000000UL |  // CLONE_NEWIPC
                                                    0x10000000UL |  // CLONE_NEWUSER
                                                    0x20000000UL |  // CLONE_NEWPID
                                                    0x40000000UL;   // CLONE_NEWNET

// What a program is told the first time it tries one (after the call's name).
inline constexpr const char* kRefusedCallWhy =
    " (a graded run may not reach other processes or the kernel's less guarded parts: no "
    "ptrace, process_vm_readv or _writev, personality, keyrings, bpf, perf events, userfaultfd, "
    "io_uring, mounts or new namespaces)";

}  // namespace cudalab::trace
