// The worker pool: blocks spread over worker threads (one per core, or
// CUDALAB_WORKERS), each block running to its end on one worker
// (block_fibers.cpp); each worker's own memory (dynamic shared memory, a
// signal stack); and the CUDA built-in variables and thread context of
// whatever runs on a worker now. Cooperative launches run elsewhere
// (cooperative.cpp), under the same time limit (watchdog.cpp).
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "checks/checks.h"
#include "grid/block.h"
#include "grid/grid.h"
#include "grid/watchdog.h"
#include "runtime/device.h"
#include "traces/trace.h"

thread_local uint3 threadIdx{0, 0, 0};
thread_local uint3 blockIdx{0, 0, 0};
thread_local dim3 blockDim{1, 1, 1};
thread_local dim3 gridDim{1, 1, 1};

namespace cudalab::rt {

constinit thread_local SimThread* tl_thread = nullptr;
constinit thread_local uint32_t tl_lanes = 0;
constinit thread_local BlockContext* tl_block = nullptr;
constinit thread_local int tl_in_runtime = 0;

namespace {

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

}  // namespace

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

namespace {

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

WorkerPool& pool() {
  static WorkerPool p(workers_setting());
  return p;
}

}  // namespace

unsigned worker_count() { return pool().count(); }

void run_grid(Launch& launch) {
  // Already done before main (fault_handlers.cpp); this call also makes sure
  // that file is linked into every program that launches.
  install_fault_handlers();
  // The device runs one grid at a time; host threads that launch at once
  // take turns (the worker pool serves one launch).
  static std::mutex device;
  std::lock_guard one_at_a_time(device);
  Watchdog watchdog(launch);
  const uint64_t blocks = uint64_t(launch.grid.x) * launch.grid.y * launch.grid.z;
  if (launch.cooperative) {
    run_cooperative(launch, blocks);
    return;
  }
  // Workers take blocks a few at a time in large grids: every take moves
  // the counter's cache line between cores, which cost a quarter of a
  // block of eight threads' time. A worker takes at most 16, and at most a
  // 64th of its share, so that the workers still share a grid evenly
  // (under 128 blocks a worker, one at a time).
  std::atomic<uint64_t> next_block{0};
  // A sample (CUDALAB_TRACE_SAMPLE): the workers take its blocks in turn
  // until the launch has recorded enough; a large launch like one traced
  // already runs none (a small one runs whole, unrecorded).
  if (launch.sample_repeat && !launch.sample_repeat_runs) return;
  const bool sampled = !launch.sample.empty();
  const uint64_t to_run = sampled ? launch.sample.size() : blocks;
  auto sample_done = [&](uint64_t index) {
    return sampled && index >= launch.sample_first &&
           trace_accesses_recorded() - launch.sample_accesses_before >= kSampleAccesses;
  };
  const uint64_t take =
      sampled ? 1 : std::clamp<uint64_t>(to_run / (uint64_t(pool().count()) * 64), 1, 16);
  std::vector<uint8_t> ran(sampled ? to_run : 0);  // each written by the worker that took it
  std::function<void(unsigned)> job = [&](unsigned) {
    register_runner(launch);
    BlockRun& b = BlockRun::for_worker(launch);
    blockDim = launch.block;
    gridDim = launch.grid;
    uint64_t idle = 0;
    while (!launch.aborted.load(std::memory_order_relaxed)) {
      const uint64_t first = next_block.fetch_add(take, std::memory_order_relaxed);
      if (first >= to_run || sample_done(first)) break;
      const uint64_t end = std::min(to_run, first + take);
      for (uint64_t bi = first; bi < end && !launch.aborted.load(std::memory_order_relaxed); ++bi) {
        if (sampled) ran[bi] = 1;
        b.run(sampled ? launch.sample[bi] : static_cast<uint32_t>(bi));
        idle += b.idle_threads();
      }
    }
    BlockRun::worker_done();
    launch.idle_threads.fetch_add(idle);
  };
  // Under memcheck, kernels never run on the main thread: its stack and
  // heap are host memory the checks watch for.
  if (to_run == 1 && !memcheck_enabled()) {
    // One block: no need to wake the other workers.
    prepare_worker();
    job(0);
    return;
  }
  pool().run(job);
  if (sampled) {
    // The sample is the blocks that ran.
    size_t kept = 0;
    for (size_t i = 0; i < ran.size(); ++i)
      if (ran[i]) launch.sample[kept++] = launch.sample[i];
    launch.sample.resize(kept);
  }
}

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
