// Blocks spread over a pool of worker threads (all cores), each block running
// to its end on one worker (block_fibers.cpp); and what happens when a kernel
// faults.
#include <execinfo.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <boost/context/fiber.hpp>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include "block.h"
#include "internal.h"

namespace ctx = boost::context;

thread_local uint3 threadIdx{0, 0, 0};
thread_local uint3 blockIdx{0, 0, 0};
thread_local dim3 blockDim{1, 1, 1};
thread_local dim3 gridDim{1, 1, 1};

namespace cudalab::rt {

thread_local SimThread* tl_thread = nullptr;
thread_local BlockContext* tl_block = nullptr;
thread_local int tl_in_runtime = 0;

namespace {

constexpr size_t kGuard = 4096;
constexpr size_t kAltStack = 64 * 1024;

// Per-worker memory that outlives launches: the dynamic shared memory arena
// and the signal stack.
struct WorkerMemory {
  alignas(128) unsigned char shared[kDynamicSharedArena];
  std::unique_ptr<char[]> signal_stack;
  ~WorkerMemory() {
    // The thread ends (cooperative launches make one per block): stop using
    // the signal stack before it goes.
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
  }
};
thread_local std::unique_ptr<WorkerMemory> tl_worker_memory_owner;
thread_local WorkerMemory* tl_worker_memory = nullptr;

void prepare_worker() {
  if (tl_worker_memory) return;
  tl_worker_memory_owner = std::make_unique<WorkerMemory>();
  tl_worker_memory = tl_worker_memory_owner.get();
  tl_worker_memory->signal_stack.reset(new char[kAltStack]);
  stack_t ss{};
  ss.ss_sp = tl_worker_memory->signal_stack.get();
  ss.ss_size = kAltStack;
  sigaltstack(&ss, nullptr);
}

// The OS threads running a launch's blocks, for CUDALAB_TIMEOUT to stop.
void register_runner(Launch& launch) {
  std::lock_guard lock(launch.runners_mutex);
  launch.runners.push_back(pthread_self());
}

// ---- the worker pool -------------------------------------------------------------

class WorkerPool {
 public:
  // Under memcheck the calling (main) thread only waits: its stack and heap
  // are host memory, which kernels must not use, and whatever a kernel
  // allocates (device-side malloc) stays out of them.
  explicit WorkerPool(unsigned n) : count_(n), host_works_(!memcheck_enabled()) {
    for (unsigned i = host_works_ ? 1 : 0; i < n; ++i)
      threads_.emplace_back([this, i] { loop(i); });
  }
  ~WorkerPool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      ++generation_;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }
  unsigned count() const { return count_; }

  // Runs job(worker) on every worker, the calling thread being worker 0
  // unless memcheck is on.
  void run(const std::function<void(unsigned)>& job) {
    {
      std::lock_guard lock(mutex_);
      job_ = &job;
      pending_ = host_works_ ? count_ - 1 : count_;
      ++generation_;
    }
    wake_.notify_all();
    if (host_works_) {
      prepare_worker();
      job(0);
    }
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    job_ = nullptr;
  }

 private:
  void loop(unsigned index) {
    prepare_worker();
    uint64_t seen = 0;
    while (true) {
      const std::function<void(unsigned)>* job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (stopping_) return;
        job = job_;
      }
      (*job)(index);
      std::lock_guard lock(mutex_);
      if (--pending_ == 0) done_.notify_one();
    }
  }

  unsigned count_;
  bool host_works_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(unsigned)>* job_ = nullptr;
  unsigned pending_ = 0;
  uint64_t generation_ = 0;
  bool stopping_ = false;
};

unsigned configured_workers() {
  if (const char* env = std::getenv("CUDALAB_WORKERS")) {
    char* end = nullptr;
    long v = std::strtol(env, &end, 10);
    if (end && *end == 0 && v >= 1 && v <= 1024) return static_cast<unsigned>(v);
    std::fprintf(stderr,
                 "cudalab: CUDALAB_WORKERS=%s is not a number from 1 to 1024; "
                 "using all cores\n",
                 env);
  }
  unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

WorkerPool& pool() {
  static WorkerPool p(configured_workers());
  return p;
}

// ---- faults ------------------------------------------------------------------------

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
  if (!t || !b || !t->fault_jump) {
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
    f.thread = t->index;
    note_callers(f);
  }
  l->aborted.store(true);
  siglongjmp(*t->fault_jump, 1);
}

}  // namespace

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
    f.thread = t->index;
    note_callers(f);  // the access may be in a header's code the student called
  }
  l->aborted.store(true);
  siglongjmp(*t->fault_jump, 1);
}

// CUDALAB_TIMEOUT: the watchdog interrupts the threads of a launch that runs
// too long; a thread interrupted inside a kernel notes where it was and ends.
void on_timeout_signal(int, siginfo_t*, void* ucontext) {
  SimThread* t = tl_thread;
  BlockContext* b = tl_block;
  if (!t || !b || !t->fault_jump || !b->launch->timed_out.load()) return;
  Launch* l = b->launch;
  bool expected = false;
  if (l->timeout_located.compare_exchange_strong(expected, true)) {
#if defined(__x86_64__)
    l->timeout_at.pc =
        static_cast<uintptr_t>(static_cast<ucontext_t*>(ucontext)->uc_mcontext.gregs[REG_RIP]);
#else
    (void)ucontext;
#endif
    l->timeout_at.block = b->index;
    l->timeout_at.thread = t->index;
    note_callers(l->timeout_at);
  }
  siglongjmp(*t->fault_jump, 1);
}

void install_fault_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
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

unsigned worker_count() { return pool().count(); }

// The grid barrier of a cooperative launch: one thread of each block waits
// here (its OS thread blocks) while the rest of its block waits at the block
// barrier after it.
struct GridBarrier {
  std::mutex mutex;
  std::condition_variable cv;
  uint64_t blocks = 0, arrived = 0, generation = 0;
};

namespace {
// Cooperative launches run every block at once, each on its own OS thread,
// so that the grid can sync. The threads stay for the next cooperative
// launch (with their stacks and shared memory), one per block.
class CooperativePool {
 public:
  ~CooperativePool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      ++generation_;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }
  // Runs job(i) for i in [0, n), each on its own thread, and waits.
  void run(uint64_t n, const std::function<void(uint64_t)>& job) {
    std::unique_lock lock(mutex_);
    while (threads_.size() < n) {
      const uint64_t index = threads_.size();
      threads_.emplace_back([this, index] { loop(index); });
    }
    job_ = &job;
    active_ = n;
    pending_ = n;
    ++generation_;
    wake_.notify_all();
    done_.wait(lock, [this] { return pending_ == 0; });
    job_ = nullptr;
  }

 private:
  void loop(uint64_t index) {
    prepare_worker();
    use_unguarded_stacks();
    uint64_t seen = 0;
    while (true) {
      const std::function<void(uint64_t)>* job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (stopping_) return;
        if (index >= active_) continue;
        job = job_;
      }
      (*job)(index);
      std::lock_guard lock(mutex_);
      if (--pending_ == 0) done_.notify_one();
    }
  }
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(uint64_t)>* job_ = nullptr;
  uint64_t active_ = 0, pending_ = 0, generation_ = 0;
  bool stopping_ = false;
};

void run_cooperative(Launch& launch, uint64_t blocks) {
  static CooperativePool pool;
  GridBarrier barrier;
  barrier.blocks = blocks;
  launch.grid_barrier = &barrier;
  std::atomic<uint64_t> idle{0};
  std::atomic<bool> overflowed{false};
  std::function<void(uint64_t)> job = [&](uint64_t bi) {
    register_runner(launch);
    {
      BlockRun b(launch);
      blockDim = launch.block;
      gridDim = launch.grid;
      b.run(static_cast<uint32_t>(bi));
      idle.fetch_add(b.idle_threads());
    }
    if (unguarded_stack_overflowed()) overflowed.store(true);
  };
  pool.run(blocks, job);
  launch.idle_threads.fetch_add(idle.load());
  if (overflowed.load() && !launch.faulted.load()) {
    // Found after the fact (these stacks have no guard pages).
    launch.fault.signal = SIGSEGV;
    launch.fault.stack_overflow = true;
    launch.faulted.store(true);
  }
  launch.grid_barrier = nullptr;
}
}  // namespace

namespace {
double configured_timeout() {
  static const double seconds = [] {
    const char* env = std::getenv("CUDALAB_TIMEOUT");
    if (!env || !*env) return 0.0;
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (!end || *end || v <= 0) {
      std::fprintf(stderr,
                   "cudalab: CUDALAB_TIMEOUT=%s is not a positive number of seconds; "
                   "no time limit\n",
                   env);
      return 0.0;
    }
    return v;
  }();
  return seconds;
}

// Stops the launch after the time limit: marks it, then interrupts every
// thread running its blocks (again, until they have all left).
class Watchdog {
 public:
  Watchdog(Launch& launch, double seconds) : launch_(launch) {
    if (seconds <= 0) return;
    thread_ = std::thread([this, seconds] {
      std::unique_lock lock(mutex_);
      if (cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; }))
        return;
      launch_.timed_out.store(true);
      launch_.aborted.store(true);
      while (!done_) {
        {
          std::lock_guard runners(launch_.runners_mutex);
          for (pthread_t t : launch_.runners) pthread_kill(t, SIGUSR2);
        }
        cv_.wait_for(lock, std::chrono::milliseconds(50), [this] { return done_; });
      }
    });
  }
  ~Watchdog() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  Launch& launch_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
};
}  // namespace

void run_grid(Launch& launch) {
  install_fault_handlers();
  // The device runs one grid at a time; host threads that launch at once
  // take turns (the worker pool serves one launch).
  static std::mutex device;
  std::lock_guard one_at_a_time(device);
  Watchdog watchdog(launch, configured_timeout());
  const uint64_t blocks = uint64_t(launch.grid.x) * launch.grid.y * launch.grid.z;
  if (launch.cooperative) {
    run_cooperative(launch, blocks);
    return;
  }
  std::atomic<uint64_t> next_block{0};
  std::function<void(unsigned)> job = [&](unsigned) {
    register_runner(launch);
    BlockRun b(launch);
    blockDim = launch.block;
    gridDim = launch.grid;
    uint64_t idle = 0;
    while (!launch.aborted.load(std::memory_order_relaxed)) {
      const uint64_t bi = next_block.fetch_add(1, std::memory_order_relaxed);
      if (bi >= blocks) break;
      b.run(static_cast<uint32_t>(bi));
      idle += b.idle_threads();
    }
    launch.idle_threads.fetch_add(idle);
  };
  // Under memcheck, kernels never run on the main thread: its stack and
  // heap are host memory the checks watch for.
  if (blocks == 1 && !memcheck_enabled()) {
    // One block: no need to wake the other workers.
    prepare_worker();
    job(0);
    return;
  }
  pool().run(job);
}

}  // namespace cudalab::rt

namespace cudalab::detail {}  // namespace cudalab::detail

namespace cudalab::rt {
uintptr_t dynamic_shared_base() {
  return tl_worker_memory ? reinterpret_cast<uintptr_t>(tl_worker_memory->shared) : 0;
}
}  // namespace cudalab::rt

namespace cudalab::detail {
void* dynamic_shared_memory() {
  cudalab::rt::prepare_worker();
  return cudalab::rt::tl_worker_memory->shared;
}
}  // namespace cudalab::detail

namespace cudalab::rt {

void stop_launch_from_thread(cudaError_t error, const std::string& report) {
  Launch* l = tl_block->launch;
  bool expected = false;
  if (l->stopped.compare_exchange_strong(expected, true)) {
    l->stop_report = report;
    l->stop_error = error;
  }
  l->aborted.store(true);
  siglongjmp(*tl_thread->fault_jump, 1);
}

}  // namespace cudalab::rt

namespace cooperative_groups::detail {

bool grid_is_cooperative() {
  using namespace cudalab::rt;
  return tl_block && tl_block->launch->cooperative;
}

void grid_sync() {
  using namespace cudalab::rt;
  if (!tl_thread) return;
  const RuntimeScope runtime;
  Launch* l = tl_block->launch;
  if (!l->cooperative) {
    stop_launch_from_thread(
        cudaErrorLaunchFailure,
        launch_heading(*l) +
            " called this_grid().sync(), which needs a cooperative launch: launch it with "
            "cudaLaunchCooperativeKernel, not <<<...>>> (every later CUDA call returns "
            "cudaErrorLaunchFailure)\n");
  }
  __syncthreads();
  if (tl_thread->linear == 0) {
    GridBarrier& g = *l->grid_barrier;
    std::unique_lock lock(g.mutex);
    const uint64_t generation = g.generation;
    if (++g.arrived == g.blocks) {
      g.arrived = 0;
      ++g.generation;
      // Everything before the grid sync is ordered before everything after.
      l->shadow_phase = next_shadow_phase();
      g.cv.notify_all();
    } else {
      // A fault elsewhere aborts the launch: stop waiting then too.
      while (g.generation == generation && !l->aborted.load())
        g.cv.wait_for(lock, std::chrono::milliseconds(20));
    }
    if (l->aborted.load()) {
      lock.unlock();
      siglongjmp(*tl_thread->fault_jump, 1);
    }
  }
  __syncthreads();
}

}  // namespace cooperative_groups::detail
