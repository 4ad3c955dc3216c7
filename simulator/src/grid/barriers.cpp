// The waits of a whole block or part of it: __syncthreads() (with its
// count, and and or over a predicate), the barriers of tiles larger than a
// warp and their scratch memory; synccheck's look at which threads reached
// which barrier.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>

#include "checks/checks.h"
#include "checks/shadow.h"
#include "grid/block.h"
#include "grid/grid.h"
#include "traces/symbols.h"
#include "traces/trace.h"

namespace cudalab::rt {

// ---- the block barrier ---------------------------------------------------------

uint64_t BlockRun::barrier(int predicate, uintptr_t pc) {
  SimThread& t = *tl_thread;
  if (barrier_arrive(predicate, pc)) suspend(t);
  return t.result;
}

bool BlockRun::barrier_arrive(int predicate, uintptr_t pc) {
  SimThread& t = *tl_thread;
  barrier_sum_ += predicate != 0;
  barrier_and_ &= predicate != 0;
  barrier_or_ |= predicate != 0;
  at_barrier_.push_back(&t);
  t.wait = SimThread::Wait::kBarrier;
  t.wait_pc = pc;
  if (next_thread_ == thread_count_ && at_barrier_.size() == thread_count_ - exited_) {
    release_barrier();  // this thread came last: it goes on at once
    return false;
  }
  if (!warps_[t.warp].pending.empty()) recheck_active_masks(warps_[t.warp]);
  if (lockstep_) recheck_lockstep(warps_[t.warp]);
  return true;
}

void BlockRun::release_barrier() {
  if (synccheck_enabled() && !at_barrier_.empty()) {
    const uintptr_t first = at_barrier_.front()->wait_pc;
    std::vector<uintptr_t> pcs = {first};
    for (const SimThread* t : at_barrier_)
      if (std::find(pcs.begin(), pcs.end(), t->wait_pc) == pcs.end() &&
          !same_source_line(t->wait_pc, first))
        pcs.push_back(t->wait_pc);
    if (pcs.size() > 1) {
      // The barrier inside the branch or loop that not every thread takes
      // is the one to fix: of the lines the threads wait at, the earliest
      // in the file (a barrier in a loop whose trip count differs per
      // thread comes before the one after the loop).
      std::vector<uintptr_t> calls;
      for (uintptr_t pc : pcs) calls.push_back(pc - 1);
      const auto lines = symbolize(calls);
      size_t pick = 0;
      long best = -1;
      for (size_t i = 0; i < lines.size(); ++i) {
        const size_t colon = lines[i].rfind(':');
        const long line = colon == std::string::npos ? -1 : std::atol(lines[i].c_str() + colon + 1);
        if (line > 0 && (best < 0 || line < best)) best = line, pick = i;
      }
      synccheck_barrier("divergent", pcs[pick],
                        "Threads of one block wait at different __syncthreads() calls "
                        "(divergent barriers: undefined on a GPU): this one is inside a branch "
                        "or a loop that not every thread of the block takes as often");
    }
  }
  // One result for every thread: count, and or or over the predicates.
  const uint64_t packed =
      uint64_t(barrier_sum_) | uint64_t(barrier_and_) << 32 | uint64_t(barrier_or_) << 33;
  if (trace_) trace_phase_end(context_, at_barrier_.empty() ? 0 : at_barrier_.front()->wait_pc);
  reorder(at_barrier_);
  for (SimThread* t : at_barrier_) {
    t->result = packed;
    t->wait = SimThread::Wait::kNone;
    if (t != tl_thread) ready_.push_back(t);
  }
  at_barrier_.clear();
  barrier_sum_ = barrier_or_ = 0;
  barrier_and_ = 1;
  if (checking_) shadow_barrier(context_);
}

// ---- tiles larger than a warp --------------------------------------------------------

void BlockRun::group_barrier(uint32_t first, uint32_t size, uintptr_t pc) {
  SimThread& t = *tl_thread;
  auto g = std::find_if(group_barriers_.begin(), group_barriers_.end(),
                        [&](const GroupBarrier& x) { return x.first == first && x.size == size; });
  if (g == group_barriers_.end()) {
    group_barriers_.push_back({first, size, {}});
    g = group_barriers_.end() - 1;
  }
  g->waiting.push_back(&t);
  t.wait = SimThread::Wait::kBarrier;
  t.wait_pc = pc;
  release_groups_if_complete();
  if (lockstep_) recheck_lockstep(warps_[t.warp]);
  if (t.wait != SimThread::Wait::kNone) suspend(t);
}

void BlockRun::release_groups_if_complete() {
  for (size_t i = 0; i < group_barriers_.size();) {
    GroupBarrier& g = group_barriers_[i];
    // Complete when every thread of the range has started and either
    // arrived or returned.
    const uint32_t end = std::min(g.first + g.size, thread_count_);
    bool complete = true;
    for (uint32_t k = g.first; complete && k < end; ++k) complete = threads_[k].started;
    uint32_t live = 0;
    for (uint32_t k = g.first; complete && k < end; ++k) live += !threads_[k].exited;
    complete = complete && g.waiting.size() == live;
    if (!complete) {
      ++i;
      continue;
    }
    reorder(g.waiting);
    for (SimThread* w : g.waiting) {
      w->wait = SimThread::Wait::kNone;
      if (w != tl_thread) ready_.push_back(w);
    }
    group_barriers_.erase(group_barriers_.begin() + long(i));
    // racecheck: counted as a block barrier (it may hide a race between
    // other threads, never invent one).
    if (checking_) shadow_barrier(context_);
  }
}

// ---- waits on the program's objects (libcu++) ----------------------------------------

void BlockRun::wait_on_object(const void* object, uintptr_t pc) {
  SimThread& t = *tl_thread;
  on_objects_.emplace_back(object, &t);
  t.wait = SimThread::Wait::kObject;
  t.wait_pc = pc;
  if (!warps_[t.warp].pending.empty()) recheck_active_masks(warps_[t.warp]);
  if (lockstep_) recheck_lockstep(warps_[t.warp]);
  suspend(t);
}

void BlockRun::release_object(const void* object, bool completes_barrier) {
  released_.clear();
  for (size_t i = 0; i < on_objects_.size();) {
    if (on_objects_[i].first == object) {
      released_.push_back(on_objects_[i].second);
      on_objects_.erase(on_objects_.begin() + long(i));
    } else {
      ++i;
    }
  }
  reorder(released_);
  for (SimThread* w : released_) {
    w->wait = SimThread::Wait::kNone;
    ready_.push_back(w);
  }
  released_.clear();
  if (completes_barrier) order_memory();
}

void BlockRun::order_memory() {
  // racecheck: a barrier's phase ends here, after every arrival; counted as
  // a block barrier (it may hide a race between threads that did not
  // arrive, never invent one).
  if (checking_) shadow_barrier(context_);
}

void* BlockRun::scratch(size_t bytes_per_thread) {
  const size_t need = bytes_per_thread * thread_count_;
  // Grows with the largest type reduced so far; a block that reduces a
  // larger type than before gets a new buffer before any thread uses it.
  if (scratch_.size() < need) scratch_.resize(need);
  // The runtime's memory, which the block's threads may use (memcheck).
  context_.scratch_low = reinterpret_cast<uintptr_t>(scratch_.data());
  context_.scratch_high = context_.scratch_low + scratch_.size();
  return scratch_.data();
}

int barrier_vote(detail::BarrierOp op, uint64_t packed) {
  switch (op) {
    case detail::BarrierOp::kCount:
      return int(uint32_t(packed));
    case detail::BarrierOp::kAnd:
      return int((packed >> 32) & 1);
    case detail::BarrierOp::kOr:
      return int((packed >> 33) & 1);
    default:
      return 0;
  }
}

}  // namespace cudalab::rt

// ---- the kernel-language entry points --------------------------------------------------

namespace cudalab::detail {

__attribute__((noinline)) int block_barrier(BarrierOp op, int predicate, const void* pc) {
  using namespace cudalab::rt;
  if (!tl_thread) return predicate;  // outside a kernel: nothing to wait for
  if (!pc) pc = __builtin_return_address(0);
  stop_if_timed_out(pc);
  const RuntimeScope runtime;
  return barrier_vote(op, tl_block->run->barrier(predicate, reinterpret_cast<uintptr_t>(pc)));
}

}  // namespace cudalab::detail

void __syncthreads() {
  cudalab::detail::block_barrier(cudalab::detail::BarrierOp::kSync, 0, __builtin_return_address(0));
}

namespace cudalab::detail {

void tile_sync(unsigned first, unsigned size) {
  using namespace cudalab::rt;
  if (!tl_thread) return;
  stop_if_timed_out(__builtin_return_address(0));
  const RuntimeScope runtime;
  tl_block->run->group_barrier(first, size,
                               reinterpret_cast<uintptr_t>(__builtin_return_address(0)));
}

void wait_on_object(const void* object, const void* pc) {
  using namespace cudalab::rt;
  if (!tl_thread) {  // the host: its caller looks again
    std::this_thread::yield();
    return;
  }
  if (!pc) pc = __builtin_return_address(0);
  stop_if_timed_out(pc);
  const RuntimeScope runtime;
  tl_block->run->wait_on_object(object, reinterpret_cast<uintptr_t>(pc));
}

void release_object(const void* object, bool completes_barrier) {
  using namespace cudalab::rt;
  if (!tl_thread) return;
  const RuntimeScope runtime;
  tl_block->run->release_object(object, completes_barrier);
}

void order_block_memory() {
  using namespace cudalab::rt;
  if (!tl_thread) return;
  const RuntimeScope runtime;
  tl_block->run->order_memory();
}

void* tile_scratch(size_t bytes_per_thread) {
  using namespace cudalab::rt;
  if (!tl_thread) return nullptr;
  const RuntimeScope runtime;
  return tl_block->run->scratch(bytes_per_thread);
}

}  // namespace cudalab::detail
