// Cooperative launches (cudaLaunchCooperativeKernel): every block of the
// grid at once, each on its own OS thread, so that this_grid().sync() can
// hold them all at the grid barrier.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csetjmp>
#include <csignal>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "checks/shadow.h"
#include "grid/block.h"
#include "grid/grid.h"

namespace cudalab::rt {

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

}  // namespace

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

}  // namespace cudalab::rt

namespace cudalab::detail {

bool grid_is_cooperative() {
  using namespace cudalab::rt;
  return tl_block && tl_block->launch->cooperative;
}

void grid_sync() {
  using namespace cudalab::rt;
  if (!tl_thread) return;
  const void* pc = __builtin_return_address(0);
  stop_if_timed_out(pc);
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
  // The block's barriers around the grid's say the caller's line (a report
  // of a launch stopped there, a deadlock).
  block_barrier(BarrierOp::kSync, 0, pc);
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
  block_barrier(BarrierOp::kSync, 0, pc);
}

}  // namespace cudalab::detail
