// The runtime's signal handlers, installed before main: a fault in a kernel
// ends its CUDA thread and aborts the launch, noting where (a fault in host
// code is named at the student's line, then left to crash); the watchdog's
// interrupt ends a thread that ran past the time limit. And the other two
// ways a CUDA thread is cut short: an access a GPU would fault on, and a
// stop on purpose (a failed assert, a misuse the simulator detects).
#include <execinfo.h>
#include <unistd.h>

#include <atomic>
#include <cinttypes>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <string>

#include "grid/grid.h"

namespace cudalab::rt {

namespace {

// The guard page below each fiber's stack (stack_pool.cpp).
constexpr size_t kGuard = 4096;

struct sigaction g_previous[4];
constexpr int kFaultSignals[4] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};

// The calls that led to a fault or a timeout (from a signal handler:
// backtrace unwinds through the signal's frame to the interrupted code).
void note_callers(FaultInfo& f) {
  void* frames[26];
  const int n = backtrace(frames, 26);
  f.caller_count = 0;
  for (int i = 1; i < n && f.caller_count < 24; ++i)  // past this handler
    f.callers[f.caller_count++] = reinterpret_cast<uintptr_t>(frames[i]);
}

void on_fault(int sig, siginfo_t* info, void* ucontext) {
  SimThread* t = tl_thread;
  BlockContext* b = tl_block;
  if (!t || !b || !fault_jump_of(*t, *b)) {
    // Not in a kernel: the program's own crash. Say where, at the first line
    // of the program's own (not the C library's), once; then put the old
    // handler back and let the instruction fault again.
    static std::atomic<bool> said{false};
    if (!said.exchange(true) && !tl_in_runtime) {
      FaultInfo f;
      f.signal = sig;
      f.address = reinterpret_cast<uintptr_t>(info->si_addr);
      auto* uc = static_cast<ucontext_t*>(ucontext);
#if defined(__x86_64__)
      f.pc = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
#else
      (void)uc;
#endif
      note_callers(f);
      const std::string line = student_line(f);
      const char* what = sig == SIGSEGV  ? "an invalid memory access"
                         : sig == SIGBUS ? "a bad memory access"
                         : sig == SIGFPE ? "an arithmetic error (an integer divided by zero?)"
                                         : "an illegal instruction";
      std::string said_text =
          "cudalab: the program crashed in host code (not in a kernel): " + std::string(what);
      if (sig == SIGSEGV || sig == SIGBUS) {
        char address[64];
        std::snprintf(address, sizeof(address), " at address 0x%" PRIxPTR, f.address);
        said_text += address;
        if (f.address < 65536)
          said_text += " (a null pointer)";
        else if (f.address < (uintptr_t(1) << 24))
          said_text += " (near address 0: a null pointer with an index added?)";
      }
      said_text += line.empty() ? std::string("\n") : "\ncudalab:     at " + line + "\n";
      if (write(2, said_text.data(), said_text.size()) < 0) {
      }
    }
    for (int i = 0; i < 4; ++i)
      if (kFaultSignals[i] == sig) sigaction(sig, &g_previous[i], nullptr);
    return;
  }
  Launch* l = b->launch;
  bool expected = false;
  if (l->faulted.compare_exchange_strong(expected, true)) {
    FaultInfo& f = l->fault;
    f.signal = sig;
    f.address = reinterpret_cast<uintptr_t>(info->si_addr);
    auto* uc = static_cast<ucontext_t*>(ucontext);
#if defined(__x86_64__)
    f.pc = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
    f.write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
    // A fault just below the stack pointer is the guard page under the
    // fiber's stack: the thread ran out of stack.
    const auto sp = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]);
    f.stack_overflow = sig == SIGSEGV && f.address + kGuard * 16 > sp && f.address < sp + kGuard;
#else
    (void)uc;
#endif
    f.block = b->index;
    note_running_thread(f);
    note_callers(f);
  }
  l->aborted.store(true);
  siglongjmp(*fault_jump_of(*t, *b), 1);
}

}  // namespace

void note_running_thread(FaultInfo& f) {
  const SimThread* t = tl_thread;
  f.thread = f.last_thread = t->index;
  f.lanes = tl_lanes > 1 ? tl_lanes : 1;
  if (f.lanes > 1) f.last_thread = (t + (f.lanes - 1))->index;  // (one table: block_loops_threads)
}

std::string running_thread_words(const FaultInfo& f) {
  auto triple = [](uint3 i) {
    return "(" + std::to_string(i.x) + "," + std::to_string(i.y) + "," + std::to_string(i.z) + ")";
  };
  if (f.lanes <= 1) return "thread " + triple(f.thread);
  return "one of the threads " + triple(f.thread) + " to " + triple(f.last_thread) +
         " (lanes of a warp that ran together; CUDALAB_BLOCK_LOOPS=off names the thread)";
}

void stop_thread_at_access(uintptr_t address, bool write, uintptr_t pc) {
  SimThread* t = tl_thread;
  BlockContext* b = tl_block;
  Launch* l = b->launch;
  bool expected = false;
  if (l->faulted.compare_exchange_strong(expected, true)) {
    FaultInfo& f = l->fault;
    f.signal = SIGSEGV;
    f.address = address;
    f.pc = pc - 1;  // the call of the access hook: its line is the access's
    f.write = write;
    f.stack_overflow = false;
    f.block = b->index;
    note_running_thread(f);
    note_callers(f);  // the access may be in a header's code the student called
  }
  l->aborted.store(true);
  siglongjmp(*fault_jump_of(*t, *b), 1);
}

namespace {
// A thread's stop was put off (it was in the runtime's code): the watchdog
// signals again soon, not in 50 ms.
std::atomic<bool> g_stop_put_off{false};

// A thread of a launch that timed out notes where it was (the first to get
// here) and ends.
void stop_timed_out(SimThread* t, BlockContext* b, uintptr_t pc) {
  Launch* l = b->launch;
  bool expected = false;
  if (l->timeout_located.compare_exchange_strong(expected, true)) {
    l->timeout_at.pc = pc;
    l->timeout_at.block = b->index;
    note_running_thread(l->timeout_at);
    note_callers(l->timeout_at);
  }
  siglongjmp(*fault_jump_of(*t, *b), 1);
}
}  // namespace

// CUDALAB_TIMEOUT: the watchdog interrupts the threads of a launch that runs
// too long; a thread interrupted inside a kernel's own code notes where it
// was and ends. Not one interrupted in the runtime's code (an access's hook,
// a barrier, a fiber switch): it may hold a lock or be halfway through
// growing a vector, which leaving by siglongjmp would leave locked or
// broken. The watchdog signals again until the thread is gone, and the
// hooks stop it themselves at its next access (stop_thread_at_timeout).
void on_timeout_signal(int, siginfo_t*, void* ucontext) {
  SimThread* t = tl_thread;
  BlockContext* b = tl_block;
  if (!t || !b || !fault_jump_of(*t, *b) || !b->launch->timed_out.load()) return;
#if defined(__x86_64__)
  const auto pc =
      static_cast<uintptr_t>(static_cast<ucontext_t*>(ucontext)->uc_mcontext.gregs[REG_RIP]);
#else
  (void)ucontext;
  const uintptr_t pc = 0;
#endif
  if (tl_in_runtime) {
    g_stop_put_off.store(true, std::memory_order_relaxed);
    return;
  }
  stop_timed_out(t, b, pc);
}

bool stop_put_off() { return g_stop_put_off.exchange(false, std::memory_order_relaxed); }

void locate_timeout_at_wait(Launch& l, uint3 block, const SimThread& t) {
  bool expected = false;
  if (!l.timeout_wait_noted.compare_exchange_strong(expected, true)) return;
  l.timeout_wait_at.pc = t.wait_pc - 1;  // a return address: the call is the byte before
  l.timeout_wait_at.caller_count = 0;
  l.timeout_wait_at.block = block;
  l.timeout_wait_at.thread = t.index;
}

void stop_thread_at_timeout(uintptr_t return_address) {
  SimThread* t = tl_thread;
  BlockContext* b = tl_block;
  if (!t || !b || !fault_jump_of(*t, *b)) return;
  ++tl_in_runtime;  // the watchdog's next signal leaves the backtrace alone
  stop_timed_out(t, b, return_address - 1);  // the call of the hook: its line is the access's
}

void install_fault_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    link_device_printf();
    struct sigaction sa {};
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 4; ++i) sigaction(kFaultSignals[i], &sa, &g_previous[i]);
    struct sigaction st {};
    st.sa_sigaction = on_timeout_signal;
    st.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&st.sa_mask);
    sigaction(SIGUSR2, &st, nullptr);
    // Once here, so that a handler's first backtrace loads nothing.
    void* warm[2];
    backtrace(warm, 2);
  });
}

namespace {
// At start, not at the first launch: a crash in the host code before any
// kernel runs (a null host pointer, say) is said at the student's line too.
[[gnu::constructor]] void install_fault_handlers_at_start() { install_fault_handlers(); }
}  // namespace

void stop_launch_from_thread(cudaError_t error, const std::string& report) {
  Launch* l = tl_block->launch;
  bool expected = false;
  if (l->stopped.compare_exchange_strong(expected, true)) {
    l->stop_report = report;
    l->stop_error = error;
  }
  l->aborted.store(true);
  siglongjmp(*fault_jump_of(*tl_thread, *tl_block), 1);
}

void stop_thread(cudaError_t error, const std::string& what) {
  if (!tl_thread || !tl_block) {
    std::fprintf(stderr, "cudalab: %s, outside a kernel\n", what.c_str());
    std::abort();
  }
  const RuntimeScope runtime;
  const uint3 b = tl_block->index, t = tl_thread->index;
  stop_launch_from_thread(error, launch_heading(*tl_block->launch) + " stopped in thread (" +
                                     std::to_string(t.x) + "," + std::to_string(t.y) + "," +
                                     std::to_string(t.z) + ") of block (" + std::to_string(b.x) +
                                     "," + std::to_string(b.y) + "," + std::to_string(b.z) +
                                     "): " + what + "; every later CUDA call returns " +
                                     cudaGetErrorName(error) + "\n");
}

}  // namespace cudalab::rt
