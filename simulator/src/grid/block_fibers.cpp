// Running one block on a worker: its CUDA threads as fibers, started lazily
// in the order CUDALAB_SCHEDULE asks, and switched when one has to wait.
//
// A runner fiber runs threads one after another until one has to wait (at
// __syncthreads, or at a warp operation whose other lanes have not arrived);
// the block's loop then resumes a thread that is ready or starts the next one
// on a fresh fiber. The last thread to arrive at a barrier or warp operation
// completes it, makes the waiting threads ready, and goes on. A kernel
// without barriers or warp operations thus costs one fiber per block.
//
// What the threads wait for lives beside this file: barriers.cpp (the block
// barrier and tile barriers), warp_ops.cpp (shuffles, votes, reductions,
// __syncwarp) and deadlock.cpp (when no thread can go on).
#include <algorithm>
#include <csignal>
#include <cstddef>
#include <cstring>
#include <random>

#include "checks/checks.h"
#include "checks/shadow.h"
#include "grid/block.h"
#include "grid/grid.h"
#include "grid/stack_pool.h"
#include "traces/trace.h"

namespace cudalab::rt {

namespace ctx = boost::context;

namespace {

uint3 unflatten(uint32_t linear, dim3 dims) {
  if (dims.y == 1 && dims.z == 1) return uint3{linear, 0, 0};  // (no division: most grids)
  return uint3{linear % dims.x, (linear / dims.x) % dims.y, linear / (dims.x * dims.y)};
}

}  // namespace

BlockRun::BlockRun(Launch& launch) : shape_(launch.block), launch_(&launch) {
  thread_count_ = launch.threads_per_block;
  threads_.resize(thread_count_);
  for (uint32_t i = 0; i < thread_count_; ++i) {
    threads_[i].index = unflatten(i, launch.block);
    threads_[i].linear = i;
    threads_[i].warp = i / 32;
    threads_[i].lane = i % 32;
  }
  warps_.resize((thread_count_ + 31) / 32);
  for (size_t w = 0; w < warps_.size(); ++w) {
    const uint32_t lanes = std::min<uint32_t>(32, thread_count_ - uint32_t(w) * 32);
    warps_[w].existing = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1);
  }
  context_.run = this;
  start_launch(launch);
}

void BlockRun::start_launch(Launch& launch) {
  launch_ = &launch;
  context_.launch = &launch;
  checking_ = shadow_enabled();
  lockstep_ = lockstep_enabled();
  // Loops keep the in-order schedule, and the plain build has no checks or
  // traces to attribute to fibers; a cooperative launch's blocks keep theirs.
  block_loops_ = block_loops_setting() != BlockLoops::kOff &&
                 schedule().kind == Schedule::kInOrder && !check_settings().any && !checking_ &&
                 !lockstep_ && !launch.cooperative;
  block_loops_known_ = false;
  trace_.reset(new_block_trace(thread_count_));
  context_.trace = trace_.get();
  // A launch that ended early (a fault, a deadlock, a timeout) may have left
  // threads marked as they stood: run() resets them at its first block.
  threads_clean_ = false;
}

namespace {
thread_local std::unique_ptr<BlockRun> tl_kept_run;
}  // namespace

BlockRun& BlockRun::for_worker(Launch& launch) {
  const dim3 kept = tl_kept_run ? tl_kept_run->shape_ : dim3{0, 0, 0};
  if (kept.x == launch.block.x && kept.y == launch.block.y && kept.z == launch.block.z) {
    tl_kept_run->start_launch(launch);
  } else {
    tl_kept_run.reset();  // its trace, if any, is written first
    tl_kept_run = std::make_unique<BlockRun>(launch);
  }
  return *tl_kept_run;
}

void BlockRun::worker_done() {
  if (tl_kept_run && tl_kept_run->trace_) tl_kept_run.reset();
}

// Runs thread `t` from the kernel's start (its body, or the whole block's
// when `offer_loops` and the kernel takes them), a fault jumping to `jump`.
void BlockRun::run_thread(SimThread& t, sigjmp_buf& jump, bool offer_loops) {
  t.started = true;
  t.fault_jump = &jump;
  t.stack_top = reinterpret_cast<uintptr_t>(&jump + 1);
  enter_thread(t);
  tl_in_runtime = 0;
  block_loops_offered_ = offer_loops;
  block_loops_jump_ = &jump;
  launch_->body(launch_->closure);
  tl_in_runtime = 1;
  block_loops_offered_ = false;
}

// After a siglongjmp back from a thread (a fault, a failed assert, a time
// limit): the watchdog's signal, if it was that, is blocked while its
// handler runs, and siglongjmp left it so; the runtime's code runs from here.
void BlockRun::jumped_back() {
  sigset_t timeout_signal;
  sigemptyset(&timeout_signal);
  sigaddset(&timeout_signal, SIGUSR2);
  pthread_sigmask(SIG_UNBLOCK, &timeout_signal, nullptr);
  tl_in_runtime = 1;
}

// The body of a runner fiber: start the next unstarted thread and run it to
// its end, until none is left. A thread that waits keeps this fiber.
ctx::fiber BlockRun::runner(BlockRun* b, ctx::fiber&& sink) {
  b->scheduler_ = std::move(sink);  // only the block's loop starts runners
  sigjmp_buf jump;
  if (const int why = sigsetjmp(jump, 0); why != 0) {
    // A fault or a failed assert in the thread that ran on this fiber: the
    // handler recorded it and aborted the launch; this thread is over. Or
    // (kThreadExit) the thread ended itself, as PTX's exit does.
    jumped_back();
    if (why == kThreadExit) b->thread_exited(*tl_thread);
  }
  while (!b->launch_->aborted.load(std::memory_order_relaxed) &&
         b->next_thread_ < b->thread_count_) {
    SimThread& t =
        b->threads_[b->start_order_.empty() ? b->next_thread_ : b->start_order_[b->next_thread_]];
    ++b->next_thread_;
    b->run_thread(t, jump, b->block_loops_ && b->next_thread_ == 1 && !b->trace_);
    if (b->block_loops_taken_) {
      // The kernel ran every thread of the block (take_block_loops).
      b->block_loops_taken_ = false;
      b->block_loops_known_ = true;
      b->finish_block_loops();
      break;
    }
    b->thread_exited(*tl_thread);  // the same thread, maybe resumed several times
  }
  tl_thread = nullptr;
  return std::move(b->scheduler_);
}

void BlockRun::run(uint32_t linear) {
  const int outer = tl_in_runtime;  // the worker's own, whatever the fibers leave
  context_.linear = linear;
  context_.index = unflatten(linear, launch_->grid);
  tl_block = &context_;
  blockIdx = context_.index;
  context_.fenced = false;
  context_.loops_jump = nullptr;  // (a fault may have left the last block's loops)
  tl_lanes = 0;                   // (or its lanes running together)
  if (checking_) shadow_block_start(context_, thread_count_);
  if (trace_) trace_block_start(context_);
  next_thread_ = exited_ = 0;
  idle_ = 0;
  block_loops_offered_ = block_loops_taken_ = false;
  ready_.clear();
  ready_head_ = 0;
  at_barrier_.clear();
  on_objects_.clear();
  barrier_sum_ = barrier_or_ = 0;
  barrier_and_ = 1;
  if (!block_loops_known_) schedule_block(linear);  // (loops: in order)
  if (!threads_clean_) {
    for (auto& t : threads_) {
      t.started = false;
      t.global_accesses = 0;
      t.exited = false;
      t.wait = SimThread::Wait::kNone;
    }
  }
  threads_clean_ = false;
  for (auto& w : warps_) {
    w.exited = 0;
    w.pending.clear();
    w.at_access = 0;
    w.unnamed_pc = 0;
    w.unnamed_lanes = 0;
  }
  group_barriers_.clear();
  if (block_loops_known_ && !trace_)
    run_block_loops_here();
  else
    run_fibers();
  // Unwinding dropped fibers ran their RuntimeScopes' ends on this thread.
  tl_in_runtime = outer;
  if (tl_pending_writes) resolve_pending_writes();
  if (trace_) trace_phase_end(context_, 0);
  tl_block = nullptr;
  tl_thread = nullptr;
}

// The block's loop: resume a thread that is ready, else start the next on
// a fresh runner fiber, until every thread has ended (or the launch stopped).
void BlockRun::run_fibers() {
  auto resume = [&](ctx::fiber f) {
    switching_from_ = nullptr;
    f = std::move(f).resume();
    if (f) switching_from_->handle = std::move(f);  // that thread now waits
  };
  while (true) {
    if (launch_->aborted.load(std::memory_order_relaxed)) {
      // A launch that timed out with this block's threads waiting (at a
      // barrier, a warp operation): one of them says where.
      if (launch_->timed_out.load())
        for (const SimThread& t : threads_)
          if (t.handle && t.wait_pc) {
            locate_timeout_at_wait(*launch_, context_.index, t);
            break;
          }
      // Dropping a suspended fiber unwinds its stack; its thread never ends
      // (nor is it the thread running, for the watchdog's signal).
      tl_thread = nullptr;
      for (auto& t : threads_) t.handle = {};
      break;
    }
    if (SimThread* t = take_ready()) {
      resume(std::move(t->handle));
    } else if (next_thread_ < thread_count_) {
      resume(ctx::fiber(std::allocator_arg, PooledStack{},
                        [this](ctx::fiber&& sink) { return runner(this, std::move(sink)); }));
    } else if (exited_ < thread_count_) {
      report_deadlock();
      tl_thread = nullptr;
      for (auto& t : threads_) t.handle = {};
      break;
    } else {
      break;
    }
  }
}

void BlockRun::thread_exited(SimThread& t) {
  t.exited = true;
  ++exited_;
  if (t.global_accesses == 0) ++idle_;
  WarpState& w = warps_[t.warp];
  w.exited |= 1u << t.lane;
  // Threads that have returned no longer hold the others back.
  if (!at_barrier_.empty() && next_thread_ == thread_count_ &&
      at_barrier_.size() == thread_count_ - exited_) {
    if (synccheck_enabled())
      synccheck_barrier("partial", at_barrier_.front()->wait_pc,
                        "__syncthreads() was reached by " + std::to_string(at_barrier_.size()) +
                            " of the block's " + std::to_string(thread_count_) +
                            " threads; the other " + std::to_string(exited_) +
                            " ended without reaching it: a barrier inside a branch not all "
                            "threads take (an if around it), or a return before it "
                            "(undefined on a GPU)");
    release_barrier();
  }
  for (size_t i = 0; i < w.pending.size();) {
    if (warp_op_complete(w, w.pending[i]))
      complete_warp_op(w, i);
    else
      ++i;
  }
  if (lockstep_) recheck_lockstep(w);
}

// ---- block loops -----------------------------------------------------------------------

void BlockRun::finish_block_loops() {
  // Every thread has returned (or, after a deadlock or a fault, never will
  // run again): the block is over, and nothing waits any more. Counted here
  // at once, not by thread_exited() one by one: a loop over threads that
  // wait at nothing spent a fifth of its time there (run() resets each
  // thread's state for the next block). The plain build, which alone has
  // loops, counts no accesses: every thread is idle.
  next_thread_ = exited_ = idle_ = thread_count_;
  context_.loops_jump = nullptr;
  if (!warp_loops_settled_) {
    // Only the first thread's state changed (its runner started it): the
    // next block need not reset every thread's.
    threads_.front().started = false;
    threads_clean_ = true;
  }
  warp_loops_settled_ = false;
  for (WarpState& w : warps_) w.exited = w.existing, w.pending.clear();
  at_barrier_.clear();
  ready_.clear();
  ready_head_ = 0;
}

// A block whose kernel is known to run as loops: its body runs every thread
// from the worker's own stack, as a runner would run the first thread, but
// without making a fiber (a block of 8 threads spent a quarter of its time
// making, switching to and freeing one). Nothing in a block body waits on a
// fiber; a fault or a time limit jumps back here.
void BlockRun::run_block_loops_here() {
  if (launch_->aborted.load(std::memory_order_relaxed)) return;
  SimThread& t = threads_.front();  // (in-order schedule: loops have no other)
  sigjmp_buf jump;
  if (sigsetjmp(jump, 0) != 0) {
    // As in runner(): the handler recorded the fault and aborted the launch.
    jumped_back();
    block_loops_offered_ = block_loops_taken_ = false;
    return;
  }
  ++next_thread_;
  run_thread(t, jump, true);
  block_loops_taken_ = false;
  finish_block_loops();
}

bool BlockRun::take_block_loops() {
  if (!block_loops_offered_) return false;
  block_loops_offered_ = false;
  block_loops_taken_ = true;
  return true;
}

void* BlockRun::block_loops_frames(size_t stride, uint32_t* threads) {
  *threads = thread_count_;
  constexpr size_t kAlign = 64;
  // Whole warps (warp loops lay out a warp's frames by field).
  const size_t bytes = stride * ((size_t(thread_count_) + 31) / 32 * 32);
  if (frames_.size() < bytes + kAlign) frames_.resize(bytes + kAlign);
  auto at = reinterpret_cast<uintptr_t>(frames_.data());
  auto* aligned = reinterpret_cast<unsigned char*>((at + kAlign - 1) & ~uintptr_t(kAlign - 1));
  std::memset(aligned, 0, bytes);  // every thread at the kernel's start
  // A fault ends the launch, as on a fiber: every thread leaves to the runner
  // that runs them all.
  context_.loops_jump = block_loops_jump_;
  frames_base_ = aligned;
  frames_stride_ = stride;
  // Every warp's lanes start together (warp_loops_uniform).
  const uint32_t warps = (thread_count_ + 31) / 32;
  warp_uniform_ = warps >= 32 ? ~0u : (1u << warps) - 1;
  return aligned;
}

void* BlockRun::block_loops_threads(uint64_t* stride) {
  static_assert(offsetof(SimThread, index) == 0 && sizeof(SimThread::index) == 12);
  *stride = sizeof(SimThread);
  return threads_.data();
}

// ---- schedules (CUDALAB_SCHEDULE) ------------------------------------------------------

void BlockRun::schedule_block(uint32_t linear) {
  const Schedule& s = schedule();
  if (s.kind == Schedule::kInOrder) return;
  start_order_.resize(thread_count_);
  for (uint32_t i = 0; i < thread_count_; ++i) start_order_[i] = i;
  if (s.kind == Schedule::kReverse) {
    std::reverse(start_order_.begin(), start_order_.end());
  } else {
    // The same order for a block whichever worker runs it.
    if (!random_) random_ = std::make_unique<std::mt19937_64>();
    random_->seed(s.seed ^ (uint64_t(linear) * 0x9e3779b97f4a7c15ull));
    std::shuffle(start_order_.begin(), start_order_.end(), *random_);
  }
}

void BlockRun::reorder(std::vector<SimThread*>& threads) {
  const Schedule& s = schedule();
  if (s.kind == Schedule::kReverse)
    std::sort(threads.begin(), threads.end(),
              [](const SimThread* a, const SimThread* b) { return a->linear > b->linear; });
  else if (s.kind == Schedule::kRandom)
    std::shuffle(threads.begin(), threads.end(), *random_);
}

}  // namespace cudalab::rt

// What a kernel compiled with block loops calls (simulator/passes/).
extern "C" {
bool cudalab_block_loops_offered() {
  using namespace cudalab::rt;
  return tl_block && tl_block->run->take_block_loops();
}
// Whether the block body's copy for wide vectors (AVX2) may run: the
// processor has them, and CUDALAB_BLOCK_LOOPS is not narrow.
bool cudalab_block_loops_wide() {
  using namespace cudalab::rt;
#if defined(__x86_64__)
  static const bool wide =
      block_loops_setting() == BlockLoops::kOn && __builtin_cpu_supports("avx2");
  return wide;
#else
  return false;
#endif
}
void* cudalab_block_loops_frame(size_t stride, uint32_t* threads) {
  return cudalab::rt::tl_block->run->block_loops_frames(stride, threads);
}
// The block's threads: the loops enter thread k themselves (as
// enter_thread does) from entry k of this table, `*stride` bytes apart,
// whose first 12 bytes are its threadIdx.
void* cudalab_block_loops_threads(uint64_t* stride) {
  return cudalab::rt::tl_block->run->block_loops_threads(stride);
}

}  // extern "C"

// PTX's `exit` (CUB's ThreadExit): the thread ends where it is. On a fiber it
// goes back to its runner, which counts it as returned; in block loops the
// pass made the kernel's own calls of this a return.
extern "C" [[noreturn]] void cudalab_exit_thread() {
  using namespace cudalab::rt;
  if (!tl_thread || !tl_block) {
    std::fprintf(stderr, "cudalab: PTX's exit outside a kernel\n");
    std::abort();
  }
  if (tl_block->run->in_block_loops())
    stop_thread(cudaErrorNotSupported,
                "inline PTX `exit` in a function the kernel does not inline, while the block runs "
                "in block loops (CUDALAB_BLOCK_LOOPS=off runs it)");
  siglongjmp(*tl_thread->fault_jump, BlockRun::kThreadExit);
}

// What a barrier vote (__syncthreads_count, _and, _or) returns in a block
// body, from the barrier's packed result.
extern "C" int cudalab_block_loops_vote(int op, uint64_t packed) {
  using namespace cudalab;
  return rt::barrier_vote(detail::BarrierOp(op), packed);
}
