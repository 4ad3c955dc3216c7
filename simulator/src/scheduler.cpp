// Blocks and threads: blocks spread over a pool of worker threads (all cores),
// each CUDA thread of a block runs on a fiber of its worker. A fiber runs
// threads one after another until one waits at __syncthreads; then a fresh
// fiber starts the next thread. When every thread of the block has either
// finished or reached the barrier, the waiting ones are resumed. So a kernel
// without barriers costs one fiber per block, not one per thread.
#include <sys/mman.h>
#include <unistd.h>

#include <boost/context/fiber.hpp>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>

#include "internal.h"

namespace ctx = boost::context;

thread_local uint3 threadIdx{0, 0, 0};
thread_local uint3 blockIdx{0, 0, 0};
thread_local dim3 blockDim{1, 1, 1};
thread_local dim3 gridDim{1, 1, 1};

namespace cudalab::rt {

thread_local SimThread* tl_thread = nullptr;
thread_local BlockContext* tl_block = nullptr;

namespace {

constexpr size_t kFiberStack = 256 * 1024;
constexpr size_t kGuard = 4096;
constexpr size_t kDynamicSharedMax = 228 * 1024;
constexpr size_t kAltStack = 64 * 1024;

// Stacks are reused across blocks and launches: a worker keeps the ones it
// has made. Each has a guard page below it, so overflowing the stack faults
// instead of silently overwriting memory.
struct StackPool {
  std::vector<void*> free_stacks;
  ~StackPool() {
    for (void* p : free_stacks) munmap(p, kFiberStack + kGuard);
  }
};
thread_local StackPool tl_stacks;

struct PooledStack {
  ctx::stack_context allocate() {
    void* base;
    if (!tl_stacks.free_stacks.empty()) {
      base = tl_stacks.free_stacks.back();
      tl_stacks.free_stacks.pop_back();
    } else {
      base = mmap(nullptr, kFiberStack + kGuard, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (base == MAP_FAILED) throw std::bad_alloc();
      mprotect(base, kGuard, PROT_NONE);
    }
    ctx::stack_context sc;
    sc.size = kFiberStack;
    sc.sp = static_cast<char*>(base) + kGuard + kFiberStack;
    return sc;
  }
  void deallocate(ctx::stack_context& sc) noexcept {
    tl_stacks.free_stacks.push_back(static_cast<char*>(sc.sp) - kFiberStack - kGuard);
  }
};

// Per-worker memory that outlives launches: the dynamic shared memory arena
// and the signal stack.
struct WorkerMemory {
  alignas(128) unsigned char shared[kDynamicSharedMax];
};
thread_local WorkerMemory* tl_worker_memory = nullptr;

void prepare_worker() {
  if (tl_worker_memory) return;
  tl_worker_memory = new WorkerMemory;
  stack_t ss{};
  ss.ss_sp = std::malloc(kAltStack);
  ss.ss_size = kAltStack;
  sigaltstack(&ss, nullptr);
}

// ---- one block ---------------------------------------------------------------

struct BlockRun {
  Launch* launch = nullptr;
  BlockContext context;
  uint32_t thread_count = 0;
  uint32_t next_thread = 0;
  uint64_t idle = 0;
  std::vector<SimThread> threads;
  std::vector<ctx::fiber> waiting, releasing;
};

inline void enter_thread(SimThread& t) {
  tl_thread = &t;
  threadIdx = t.index;
}

uint3 unflatten(uint32_t linear, dim3 dims) {
  return uint3{linear % dims.x, (linear / dims.x) % dims.y, linear / (dims.x * dims.y)};
}

// The body of a runner fiber: take the next unstarted thread and run it to
// the end, until there is none left. A thread that waits at a barrier keeps
// this fiber; the block's loop then starts another.
ctx::fiber runner(BlockRun* b, ctx::fiber&& sink) {
  sigjmp_buf jump;
  if (sigsetjmp(jump, 0) != 0) {
    // A fault in the thread that ran on this fiber: the handler recorded it
    // and aborted the launch; this thread is over.
    sink = std::move(tl_thread->sink);
  }
  while (!b->launch->aborted.load(std::memory_order_relaxed) && b->next_thread < b->thread_count) {
    SimThread& t = b->threads[b->next_thread++];
    t.global_accesses = 0;
    t.fault_jump = &jump;
    t.sink = std::move(sink);
    enter_thread(t);
    b->launch->body(b->launch->closure);
    SimThread* self = tl_thread;  // the same thread, maybe re-entered after barriers
    sink = std::move(self->sink);
    if (self->global_accesses == 0) ++b->idle;
  }
  tl_thread = nullptr;
  return std::move(sink);
}

void run_block(BlockRun& b) {
  tl_block = &b.context;
  blockIdx = b.context.index;
  b.next_thread = 0;
  b.waiting.clear();
  while (true) {
    if (b.launch->aborted.load(std::memory_order_relaxed)) {
      // Dropping a suspended fiber unwinds its stack; its thread never ends.
      b.waiting.clear();
      break;
    }
    if (b.next_thread < b.thread_count) {
      ctx::fiber f(std::allocator_arg, PooledStack{},
                   [&b](ctx::fiber&& sink) { return runner(&b, std::move(sink)); });
      f = std::move(f).resume();
      if (f) b.waiting.push_back(std::move(f));
    } else if (!b.waiting.empty()) {
      // Every thread has reached the barrier or finished: release them all.
      std::swap(b.waiting, b.releasing);
      b.waiting.clear();
      for (auto& f : b.releasing) {
        f = std::move(f).resume();
        if (f) b.waiting.push_back(std::move(f));
      }
      b.releasing.clear();
    } else {
      break;
    }
  }
  tl_block = nullptr;
  tl_thread = nullptr;
}

// ---- the worker pool -------------------------------------------------------------

class WorkerPool {
 public:
  explicit WorkerPool(unsigned n) : count_(n) {
    for (unsigned i = 1; i < n; ++i) threads_.emplace_back([this, i] { loop(i); });
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

  // Runs job(worker) on every worker, the calling thread being worker 0.
  void run(const std::function<void(unsigned)>& job) {
    {
      std::lock_guard lock(mutex_);
      job_ = &job;
      pending_ = count_ - 1;
      ++generation_;
    }
    wake_.notify_all();
    prepare_worker();
    job(0);
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

void on_fault(int sig, siginfo_t* info, void* ucontext) {
  SimThread* t = tl_thread;
  BlockContext* b = tl_block;
  if (!t || !b || !t->fault_jump) {
    // Not in a kernel: the program's own crash. Put the old handler back and
    // let the instruction fault again.
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
  }
  l->aborted.store(true);
  siglongjmp(*t->fault_jump, 1);
}

}  // namespace

void install_fault_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 4; ++i) sigaction(kFaultSignals[i], &sa, &g_previous[i]);
  });
}

unsigned worker_count() { return pool().count(); }

void run_grid(Launch& launch) {
  install_fault_handlers();
  const uint64_t blocks = uint64_t(launch.grid.x) * launch.grid.y * launch.grid.z;
  std::atomic<uint64_t> next_block{0};
  std::function<void(unsigned)> job = [&](unsigned) {
    BlockRun b;
    b.launch = &launch;
    b.thread_count = launch.threads_per_block;
    b.threads.resize(b.thread_count);
    for (uint32_t i = 0; i < b.thread_count; ++i) {
      b.threads[i].index = unflatten(i, launch.block);
      b.threads[i].linear = i;
    }
    blockDim = launch.block;
    gridDim = launch.grid;
    uint64_t idle = 0;
    while (!launch.aborted.load(std::memory_order_relaxed)) {
      uint64_t bi = next_block.fetch_add(1, std::memory_order_relaxed);
      if (bi >= blocks) break;
      b.context.launch = &launch;
      b.context.linear = static_cast<uint32_t>(bi);
      b.context.index = unflatten(static_cast<uint32_t>(bi), launch.grid);
      b.idle = 0;
      run_block(b);
      idle += b.idle;
    }
    launch.idle_threads.fetch_add(idle);
  };
  pool().run(job);
}

}  // namespace cudalab::rt

namespace cudalab::detail {
void* dynamic_shared_memory() {
  cudalab::rt::prepare_worker();
  return cudalab::rt::tl_worker_memory->shared;
}
}  // namespace cudalab::detail

void __syncthreads() {
  using namespace cudalab::rt;
  SimThread* t = tl_thread;
  if (!t) return;  // called outside a kernel: nothing to wait for
  t->sink = std::move(t->sink).resume();
  enter_thread(*t);
}
