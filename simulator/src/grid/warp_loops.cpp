// Warp loops: what a kernel's block body (simulator/passes/block_loops.cpp)
// calls when it has warp operations or barrier votes. The body runs a warp's
// lanes one after another, each to its next wait; a lane that reaches a warp
// operation leaves its operands in its frame (WarpLoopFrame). When every live
// lane of the warp waits at one call with one mask, the body completes it at
// once (cudalab_warp_loops_complete); anything else (lanes at different
// calls or with different masks, __activemask, lanes at the barrier) is
// settled here as the fibers would meet the lanes in lane order. When no
// warp can go on, the block barrier releases the threads at it, or the
// block is over, or it can never finish (a deadlock report).
#include <algorithm>
#include <bit>

#include "grid/block.h"
#include "grid/grid.h"

namespace cudalab::rt {

using Frame = WarpLoopFrame;

namespace {

// The barrier's two passes over a warp's lanes (warp_loops_barrier), without
// branches, so that they are vector loops; each has a copy for AVX2 (twice
// the lanes at a time, the values being 64 bits), taken where the processor
// has it, as the kernels' block bodies do (cudalab_block_loops_wide).
struct BarrierCount {
  uint32_t at = 0, waiting = 0;   // lanes at the barrier; lanes at a warp operation
  int sum = 0, all = 1, any = 0;  // the votes of those at the barrier
};

[[gnu::always_inline]] inline void count_lanes(const uint32_t* flags, const uint64_t* value,
                                               uint32_t lanes, BarrierCount& n) {
  uint32_t at = n.at, waiting = n.waiting;
  int sum = n.sum, all = n.all, any = n.any;
  for (uint32_t l = 0; l < lanes; ++l) {
    const int here = flags[l] == Frame::kAtBarrier, yes = value[l] != 0;
    at += here;
    sum += here & yes;
    all &= !here | yes;
    any |= here & yes;
    waiting += !here & (flags[l] != Frame::kExited);
  }
  n = {at, waiting, sum, all, any};
}

// Lets the lanes at the barrier go on with its result `packed`: whether
// every lane was there, all at one place.
[[gnu::always_inline]] inline int release_lanes(const uint32_t* state, uint32_t* flags,
                                                uint64_t* result, uint32_t lanes, uint64_t packed) {
  int same = 1;
  for (uint32_t l = 0; l < lanes; ++l) {
    const int here = flags[l] == Frame::kAtBarrier;
    result[l] = here ? packed : result[l];
    flags[l] = here ? uint32_t(Frame::kRunnable) : flags[l];
    same &= here & (state[l] == state[0]);
  }
  return same;
}

#if defined(__x86_64__)
#define CUDALAB_AVX2 [[gnu::target("avx2")]]
#else
#define CUDALAB_AVX2
#endif
CUDALAB_AVX2 void count_lanes_wide(const uint32_t* flags, const uint64_t* value, uint32_t lanes,
                                   BarrierCount& n) {
  count_lanes(flags, value, lanes, n);
}
CUDALAB_AVX2 int release_lanes_wide(const uint32_t* state, uint32_t* flags, uint64_t* result,
                                    uint32_t lanes, uint64_t packed) {
  return release_lanes(state, flags, result, lanes, packed);
}
#undef CUDALAB_AVX2

}  // namespace

uint32_t BlockRun::settle_warp(uint32_t warp) {
  const uint32_t base = warp * 32;
  const uint32_t end = std::min(base + 32, thread_count_);
  warp_loops_settled_ = true;
  // What the lanes did since the last settling, as the runtime keeps it:
  // returns first (they complete what waited only for them), then the
  // arrivals in lane order.
  for (uint32_t i = base; i < end; ++i) {
    SimThread& t = threads_[i];
    const Frame f = warp_frame(i);
    t.started = true;
    if (f.flags() == Frame::kExited && !t.exited) {
      thread_exited(t);
    } else if (f.flags() == Frame::kAtBarrier) {
      t.wait = SimThread::Wait::kBarrier;
      t.wait_pc = f.pc();
    }
  }
  // An __activemask() completes once the other live lanes wait elsewhere:
  // those now at the barrier may complete one (as barrier_arrive looks).
  if (!warps_[warp].pending.empty()) recheck_active_masks(warps_[warp]);
  for (uint32_t i = base; i < end; ++i) {
    const Frame f = warp_frame(i);
    if (f.flags() != Frame::kArrived) continue;
    f.flags() = Frame::kPending;
    enter_thread(threads_[i]);
    warp_arrive(detail::WarpOp(f.op()), f.mask(), f.value(), f.arg(), f.width(), f.pc());
  }
  ready_.clear();
  ready_head_ = 0;
  uint32_t released = 0;
  for (uint32_t i = base; i < end; ++i) {
    const Frame f = warp_frame(i);
    const SimThread& t = threads_[i];
    if (f.flags() == Frame::kPending && t.wait == SimThread::Wait::kNone) {
      f.result() = t.result;
      f.flags() = Frame::kRunnable;
      ++released;
    }
  }
  return released;
}

bool BlockRun::warp_loops_barrier() {
  if (launch_->aborted.load(std::memory_order_relaxed)) return false;
  // (A warp's flags, values, ... are arrays of 32: WarpLoopFrame.)
  const uint32_t warps = (thread_count_ + 31) / 32;
  auto lanes_of = [&](uint32_t w) { return std::min(32u, thread_count_ - w * 32); };
  const bool wide = cudalab_block_loops_wide();
  BarrierCount n;
  for (uint32_t w = 0; w < warps; ++w) {
    const uint32_t* flags = Frame::column<uint32_t>(warp_frames(w), Frame::kFlags);
    const uint64_t* value = Frame::column<uint64_t>(warp_frames(w), Frame::kValue);
    if (wide)
      count_lanes_wide(flags, value, lanes_of(w), n);
    else
      count_lanes(flags, value, lanes_of(w), n);
  }
  const auto [at, waiting, sum, all, any] = n;
  if (waiting) {
    // Lanes wait at warp operations. What the others did may complete them
    // (then another phase runs them, the barrier still closed); else they
    // wait for lanes at the barrier, or lanes that returned without meeting
    // them: as the fibers see it, a deadlock.
    uint32_t released = 0;
    for (uint32_t warp = 0; warp < warps_.size(); ++warp) released += settle_warp(warp);
    warp_uniform_ = 0;  // (the general turns find them)
    if (released) return true;
    report_deadlock();
    return false;
  }
  if (!at) return false;
  // Every live thread is at the barrier (threads that returned do not hold
  // it back): one result for all, as release_barrier gives.
  // Released, each warp is uniform where all its lanes were at one barrier.
  const uint64_t packed = uint64_t(sum) | uint64_t(all) << 32 | uint64_t(any) << 33;
  warp_uniform_ = 0;
  for (uint32_t w = 0; w < warps; ++w) {
    const uint32_t* state = Frame::column<uint32_t>(warp_frames(w), Frame::kState);
    uint32_t* flags = Frame::column<uint32_t>(warp_frames(w), Frame::kFlags);
    uint64_t* result = Frame::column<uint64_t>(warp_frames(w), Frame::kResult);
    const int same = wide ? release_lanes_wide(state, flags, result, lanes_of(w), packed)
                          : release_lanes(state, flags, result, lanes_of(w), packed);
    if (same && w < 32) warp_uniform_ |= 1u << w;
    // Only a settled lane (settle_warp) was marked as waiting at the barrier.
    if (warp_loops_settled_)
      for (uint32_t l = 0, lanes = lanes_of(w); l < lanes; ++l)
        if (flags[l] == Frame::kRunnable) threads_[w * 32 + l].wait = SimThread::Wait::kNone;
  }
  return true;
}

// The warps (a bit each) all of whose lanes can go on from one place, as
// the last release of the barrier left them (block_loops_frames: all).
uint32_t BlockRun::warp_loops_uniform() const { return warp_uniform_; }

}  // namespace cudalab::rt

extern "C" {
// The block's frames, every thread at the kernel's start (zeroed).
void* cudalab_warp_loops_frames(size_t stride, uint32_t* threads) {
  return cudalab::rt::tl_block->run->block_loops_frames(stride, threads);
}

// Every lane of `lanes` (a warp's, whose frames start at `frames`) waits at
// one call of warp operation `op` with one mask that names them all: their
// results, and they go on.
void cudalab_warp_loops_complete(int op, unsigned char* frames, unsigned lanes) {
  using namespace cudalab::rt;
  auto frame = [&](unsigned l) { return Frame(frames, l); };
  const Frame first = frame(unsigned(std::countr_zero(lanes)));
  PendingWarpOp p(first.mask(), cudalab::detail::WarpOp(op));
  for (unsigned rest = lanes; rest; rest &= rest - 1) {
    const unsigned l = unsigned(std::countr_zero(rest));
    const Frame f = frame(l);
    p.record(l, f.value(), f.arg(), f.width());
  }
  std::array<uint64_t, 32> result;
  warp_op_results(p, lanes, result);
  for (unsigned rest = lanes; rest; rest &= rest - 1) {
    const unsigned l = unsigned(std::countr_zero(rest));
    const Frame f = frame(l);
    f.result() = result[l];
    f.flags() = Frame::kRunnable;
  }
}

uint32_t cudalab_warp_loops_settle(uint32_t warp) {
  using namespace cudalab::rt;
  stop_if_timed_out(__builtin_return_address(0));  // (the watchdog leaves the runtime alone)
  const RuntimeScope runtime;
  return tl_block->run->settle_warp(warp);
}

// At the start of each phase: the warps whose lanes all go on from one
// place, which the body may run in fast turns.
uint32_t cudalab_warp_loops_uniform() { return cudalab::rt::tl_block->run->warp_loops_uniform(); }

bool cudalab_warp_loops_barrier() {
  using namespace cudalab::rt;
  stop_if_timed_out(__builtin_return_address(0));
  const RuntimeScope runtime;
  return tl_block->run->warp_loops_barrier();
}
}  // extern "C"
