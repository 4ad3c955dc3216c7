// Warp-level operations: shuffles, votes, matches, reductions,
// __syncwarp and __activemask. The lanes of a warp meet at an operation with
// the same mask; the last to arrive computes every lane's result at once, so
// the results are a GPU's whatever order the lanes ran in. synccheck's look
// at the masks.
#include <algorithm>
#include <bit>
#include <cstdio>

#include "checks/checks.h"
#include "checks/shadow.h"
#include "grid/block.h"
#include "grid/grid.h"
#include "traces/symbols.h"

namespace cudalab::rt {

const char* warp_op_name(detail::WarpOp op) {
  using detail::WarpOp;
  switch (op) {
    case WarpOp::kSync:
      return "__syncwarp";
    case WarpOp::kShflIdx:
      return "__shfl_sync";
    case WarpOp::kShflUp:
      return "__shfl_up_sync";
    case WarpOp::kShflDown:
      return "__shfl_down_sync";
    case WarpOp::kShflXor:
      return "__shfl_xor_sync";
    case WarpOp::kBallot:
      return "__ballot_sync (or __any_sync/__all_sync)";
    case WarpOp::kMatchAny:
      return "__match_any_sync";
    case WarpOp::kMatchAll:
      return "__match_all_sync";
    default:
      return "__reduce_*_sync";
  }
}

bool BlockRun::warp_op_complete(const WarpState& w, const PendingWarpOp& p) const {
  const unsigned needed = p.mask & w.existing & ~w.exited;
  if (p.op == detail::WarpOp::kActiveMask) {
    // Complete once every other live lane has been started and waits
    // somewhere else: those are not converged with this one.
    const uint32_t base = uint32_t(&w - warps_.data()) * 32;
    for (unsigned l = 0; l < 32; ++l) {
      if (!((needed >> l) & 1u) || ((p.arrived >> l) & 1u)) continue;
      const SimThread& t = threads_[base + l];
      if (!t.started || t.wait == SimThread::Wait::kNone) return false;
    }
    return true;
  }
  // Every lane named in the mask has arrived, returned, or does not exist.
  // A lane not yet started will arrive.
  return (p.arrived & needed) == needed;
}

void BlockRun::recheck_active_masks(WarpState& w) {
  for (size_t i = 0; i < w.pending.size();) {
    if (w.pending[i].op == detail::WarpOp::kActiveMask && warp_op_complete(w, w.pending[i]))
      complete_warp_op(w, i);
    else
      ++i;
  }
}

void BlockRun::lane_left_out(WarpState& w, detail::WarpOp op, unsigned mask, uintptr_t pc) {
  const SimThread& t = *tl_thread;
  if (synccheck_enabled()) {
    char what[200];
    std::snprintf(what, sizeof(what),
                  "%s called by lane %u with mask 0x%08x, which leaves out the calling lane "
                  "(undefined on a GPU: the mask must name the lane itself)",
                  warp_op_name(op), t.lane, mask);
    synccheck_barrier("warp-mask", pc, what);
  }
  // Lanes that all pass one such mask run on an H100; lanes of a warp that
  // pass different ones at the same call (each lane the lanes below it, say)
  // stop the kernel with an illegal instruction. Compared: the lanes' latest
  // visits of the same call (a lane's second visit starts a new round). A
  // plain run's warp loops may reach one call through two copies of the
  // code (a fast turn's and the general one): the same line is the same call.
  const unsigned me = 1u << t.lane;
  const bool same_call =
      w.unnamed_pc == pc || (w.unnamed_lanes && same_source_line(w.unnamed_pc, pc));
  if (!same_call || (w.unnamed_lanes & me)) w.unnamed_pc = pc, w.unnamed_lanes = 0;
  unsigned other = 32;
  for (unsigned l = 0; l < 32 && other == 32; ++l)
    if ((w.unnamed_lanes >> l) & 1u && w.unnamed_mask[l] != mask) other = l;
  w.unnamed_lanes |= me;
  w.unnamed_mask[t.lane] = mask;
  if (other < 32) {
    const std::string line = symbolize({pc - 1}).front();  // the call, not what follows
    char what[500];
    std::snprintf(what, sizeof(what),
                  "%s%s%s with mask 0x%08x in lane %u and 0x%08x in lane %u: neither mask names "
                  "the lane that passes it. A warp operation's mask must name the calling lane; "
                  "an H100 stops such a kernel with an illegal instruction",
                  warp_op_name(op), line.empty() ? "" : " at ", line.c_str(), mask, t.lane,
                  w.unnamed_mask[other], other);
    stop_thread(cudaErrorIllegalInstruction, what);
  }
}

uint64_t BlockRun::warp_op(detail::WarpOp op, unsigned mask, uint64_t value, int arg, int width,
                           uintptr_t pc) {
  SimThread& t = *tl_thread;
  if (warp_arrive(op, mask, value, arg, width, pc)) suspend(t);
  return t.result;
}

bool BlockRun::warp_arrive(detail::WarpOp op, unsigned mask, uint64_t value, int arg, int width,
                           uintptr_t pc) {
  return arrive_at_warp_op(op, mask, value, arg, width, pc);
}

inline bool BlockRun::arrive_at_warp_op(detail::WarpOp op, unsigned mask, uint64_t value, int arg,
                                        int width, uintptr_t pc) {
  SimThread& t = *tl_thread;
  WarpState& w = warps_[t.warp];
  const unsigned me = 1u << t.lane;
  // Most arrivals: the lane names itself, and its warp waits at no other
  // operation, or at this one with this mask; without lock-step, nothing
  // else is to be looked at (a fifth of a shuffle's time in block loops).
  if (op != detail::WarpOp::kActiveMask && (mask & me) && !lockstep_ && w.pending.size() <= 1) {
    PendingWarpOp* p = nullptr;
    if (w.pending.empty()) {
      p = &w.pending.emplace_back(mask, op);
    } else if (PendingWarpOp& q = w.pending.front();
               q.mask == mask && q.op != detail::WarpOp::kActiveMask && !(q.arrived & me)) {
      p = &q;
    }
    if (p) {
      p->record(t.lane, value, arg, width);
      t.wait = SimThread::Wait::kWarp;
      t.wait_pc = pc;
      const unsigned needed = mask & w.existing & ~w.exited;
      if ((p->arrived & needed) != needed) return true;
      complete_warp_op(w, 0);
      return false;
    }
  }
  return arrive_generally(op, mask, value, arg, width, pc);
}

bool BlockRun::arrive_generally(detail::WarpOp op, unsigned mask, uint64_t value, int arg,
                                int width, uintptr_t pc) {
  SimThread& t = *tl_thread;
  WarpState& w = warps_[t.warp];
  const unsigned me = 1u << t.lane;
  const bool asks_mask = op == detail::WarpOp::kActiveMask;
  // Lanes of one warp meet at the operation with the same mask.
  if (asks_mask) mask = w.existing;
  PendingWarpOp* p = std::to_address(w.pending.begin());
  PendingWarpOp* const end = std::to_address(w.pending.end());
  while (p != end && (p->mask != mask || (p->op == detail::WarpOp::kActiveMask) != asks_mask ||
                      (p->arrived & me)))
    ++p;
  if (!asks_mask && !(mask & me)) lane_left_out(w, op, mask, pc);
  if (p == end) p = &w.pending.emplace_back(mask, op);
  p->record(t.lane, value, arg, width);
  t.wait = SimThread::Wait::kWarp;
  t.wait_pc = pc;
  if (warp_op_complete(w, *p)) {
    complete_warp_op(w, size_t(p - w.pending.data()));
    return false;
  }
  if (w.pending.size() > 1) recheck_active_masks(w);  // this lane now waits elsewhere
  if (lockstep_) recheck_lockstep(w);
  return t.wait != SimThread::Wait::kNone;
}

namespace {

// The lane whose value lane `l` takes when it passes `a` and its segment is
// [base, base + width), or `l` itself where the source is outside the
// segment (up; down and xor past its end) or past the warp. Only the
// argument's low five bits count, as PTX's shfl reads them (as an H100
// does).
template <detail::WarpOp kOp>
[[gnu::always_inline]] inline int source_of(int l, int a, int width, int base) {
  using detail::WarpOp;
  a &= 31;
  int src;
  bool inside = true;
  if constexpr (kOp == WarpOp::kShflIdx) {
    // With masks for the widths CUDA allows (a division here was a third of
    // a shuffle's time).
    src = base + ((width & (width - 1)) == 0 ? a & (width - 1) : ((a % width) + width) % width);
  } else if constexpr (kOp == WarpOp::kShflUp) {
    src = l - a;
    inside = src >= base;
  } else if constexpr (kOp == WarpOp::kShflDown) {
    src = l + a;
    inside = src < base + width;
  } else {
    src = l ^ a;
    inside = src < base + width;
  }
  return inside && src >= 0 && src < 32 ? src : l;
}

// Every taking lane's shuffle result into `out`: its source lane's value,
// or its own where the source does not take part (undefined on a GPU).
// The lanes' widths are almost always one power of two: then a lane's
// segment starts at its number with the low bits cleared, and each lane's
// result is computed without a branch (where every lane passed the same
// argument, an offset, without reading each lane's).
template <detail::WarpOp kOp>
void shuffle_all(const PendingWarpOp& p, unsigned lanes, std::array<uint64_t, 32>& out) {
  auto one = [&](int l, int a, int width, int base) {
    const int src = source_of<kOp>(l, a, width, base);
    out[l] = p.value[(lanes >> src) & 1u ? src : l];
  };
  const int common = p.first_width;
  if (common > 0 && (common & (common - 1)) == 0 && p.same_width) {
    const bool same_arg = p.same_arg;
    const int a = p.first_arg;
    if (lanes == 0xffffffffu) {
      for (int l = 0; l < 32; ++l) one(l, same_arg ? a : p.arg[l], common, l & -common);
    } else {
      for (unsigned rest = lanes; rest; rest &= rest - 1) {
        const int l = std::countr_zero(rest);
        one(l, same_arg ? a : p.arg[l], common, l & -common);
      }
    }
    return;
  }
  // Widths that differ between lanes, or are not a power of two (undefined
  // on a GPU): each lane's own segment.
  for (unsigned rest = lanes; rest; rest &= rest - 1) {
    const int l = std::countr_zero(rest);
    const int width = p.width[l] > 0 ? p.width[l] : 32;
    one(l, p.arg[l], width, (width & (width - 1)) == 0 ? l & -width : l - l % width);
  }
}

}  // namespace

// Each taking lane's result (`lanes`: those that arrived), the operation
// chosen once for all of them.
void warp_op_results(const PendingWarpOp& p, unsigned lanes, std::array<uint64_t, 32>& result) {
  using detail::WarpOp;
  switch (p.op) {
    case WarpOp::kShflIdx:
      shuffle_all<WarpOp::kShflIdx>(p, lanes, result);
      break;
    case WarpOp::kShflUp:
      shuffle_all<WarpOp::kShflUp>(p, lanes, result);
      break;
    case WarpOp::kShflDown:
      shuffle_all<WarpOp::kShflDown>(p, lanes, result);
      break;
    case WarpOp::kShflXor:
      shuffle_all<WarpOp::kShflXor>(p, lanes, result);
      break;
    case WarpOp::kMatchAny:
    case WarpOp::kMatchAll:
      for (unsigned rest = lanes; rest; rest &= rest - 1) {
        const int l = std::countr_zero(rest);
        uint64_t same = 0;
        for (unsigned k = 0; k < 32; ++k)
          if (((lanes >> k) & 1u) && p.value[k] == p.value[l]) same |= 1ull << k;
        if (p.op == WarpOp::kMatchAny)
          result[l] = same;
        else
          result[l] = same == lanes ? (uint64_t(lanes) | 1ull << 32) : 0;
      }
      break;
    default: {
      // One answer for every lane: a vote, a reduction over the lanes that
      // took part, the lanes themselves, or nothing (__syncwarp).
      uint64_t ballot = 0, sum = 0, all_and = ~uint64_t(0), all_or = 0, all_xor = 0;
      uint32_t umin = 0xffffffffu, umax = 0;
      int32_t smin = 0x7fffffff, smax = int32_t(0x80000000u);
      for (unsigned rest = lanes; rest; rest &= rest - 1) {
        const int l = std::countr_zero(rest);
        const uint64_t v = p.value[l];
        if (v) ballot |= 1ull << l;
        const uint32_t u = uint32_t(v);
        sum += u;
        all_and &= u;
        all_or |= u;
        all_xor ^= u;
        umin = std::min(umin, u);
        umax = std::max(umax, u);
        smin = std::min(smin, int32_t(u));
        smax = std::max(smax, int32_t(u));
      }
      uint64_t r = 0;
      switch (p.op) {
        case WarpOp::kBallot:
          r = ballot;
          break;
        case WarpOp::kReduceAdd:
          r = uint32_t(sum);
          break;
        case WarpOp::kReduceMinUnsigned:
          r = umin;
          break;
        case WarpOp::kReduceMaxUnsigned:
          r = umax;
          break;
        case WarpOp::kReduceMinSigned:
          r = uint32_t(smin);
          break;
        case WarpOp::kReduceMaxSigned:
          r = uint32_t(smax);
          break;
        case WarpOp::kReduceAnd:
          r = uint32_t(all_and);
          break;
        case WarpOp::kReduceOr:
          r = uint32_t(all_or);
          break;
        case WarpOp::kReduceXor:
          r = uint32_t(all_xor);
          break;
        case WarpOp::kActiveMask:
          r = lanes;
          break;
        default:  // __syncwarp
          break;
      }
      for (unsigned rest = lanes; rest; rest &= rest - 1) result[std::countr_zero(rest)] = r;
      break;
    }
  }
}

void BlockRun::complete_warp_op(WarpState& w, size_t index) {
  using detail::WarpOp;
  const PendingWarpOp& p = w.pending[index];  // erased at the end
  const unsigned lanes = p.arrived;
  const uint32_t warp_base = uint32_t(&w - warps_.data()) * 32;
  if (checking_ && p.op == WarpOp::kSync) shadow_warp_sync(warp_base / 32, lanes);
  if (synccheck_enabled() && p.op != WarpOp::kActiveMask && (p.mask & ~lanes)) {
    const unsigned missing = p.mask & ~lanes;
    const SimThread& first = threads_[warp_base + unsigned(std::countr_zero(lanes ? lanes : 1u))];
    char what[260];
    std::snprintf(what, sizeof(what),
                  "%s with mask 0x%08x names lanes that %s (lanes 0x%08x): undefined on a GPU, "
                  "where it may hang; name only the lanes that reach this call",
                  warp_op_name(p.op), p.mask,
                  (missing & ~w.existing) == missing ? "the block does not have" : "have returned",
                  missing);
    synccheck_barrier("warp-mask", first.wait_pc, what);
  }
  std::array<uint64_t, 32> result;
  warp_op_results(p, lanes, result);
  // The lanes go on, each with its result: the running one at once, the
  // others from the ready list, in lane order unless a schedule reorders.
  const bool in_order = start_order_.empty();
  std::vector<SimThread*>& released = in_order ? ready_ : released_;
  if (!in_order) released.clear();
  for (unsigned rest = lanes; rest; rest &= rest - 1) {
    const int l = std::countr_zero(rest);
    SimThread& t = threads_[warp_base + unsigned(l)];
    t.result = result[l];
    t.wait = SimThread::Wait::kNone;
    if (&t != tl_thread) released.push_back(&t);
  }
  w.pending.erase(w.pending.begin() + long(index));
  if (!in_order) {
    reorder(released);
    ready_.insert(ready_.end(), released.begin(), released.end());
  }
}

}  // namespace cudalab::rt

// ---- the kernel-language entry points --------------------------------------------------

namespace cudalab::detail {

__attribute__((noinline)) uint64_t warp_op(WarpOp op, unsigned mask, uint64_t value, int arg,
                                           int width, const void* pc) {
  using namespace cudalab::rt;
  if (!tl_thread) return value;
  if (!pc) pc = __builtin_return_address(0);
  stop_if_timed_out(pc);
  const RuntimeScope runtime;
  return tl_block->run->warp_op(op, mask, value, arg, width, reinterpret_cast<uintptr_t>(pc));
}

unsigned active_mask() {
  using namespace cudalab::rt;
  if (!tl_thread) return 1;
  stop_if_timed_out(__builtin_return_address(0));
  const RuntimeScope runtime;
  return unsigned(tl_block->run->warp_op(WarpOp::kActiveMask, 0, 0, 0, 32,
                                         reinterpret_cast<uintptr_t>(__builtin_return_address(0))));
}

unsigned lane_id() {
  using namespace cudalab::rt;
  return tl_thread ? tl_thread->lane : 0;
}

}  // namespace cudalab::detail
