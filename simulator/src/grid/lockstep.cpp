// Lock-step warps (CUDALAB_LOCKSTEP): the lanes of a warp advance together
// from one shared or global memory access to the next, as warp-synchronous
// code written for GPUs before Volta expects (a reduction's last warp through
// `volatile` shared memory without __syncwarp(), a scan that reads its
// neighbours' values and then writes its own).
//
// A lane that reaches an access waits there until every other live lane of
// its warp waits too: at an access, at a barrier or warp operation, or has
// returned. Then the lanes at the earliest access in the code go on (all of
// them, one after another, each to its next access); the others wait on. The
// earliest code first is how a GPU brings diverged lanes back together: a
// lane that skipped the body of an `if` or left a loop early waits for the
// lanes still inside it. Only the instrumented build sees accesses, so the
// mode needs it; racecheck still reports such code's races, which are races
// under CUDA's memory model.
#include <algorithm>

#include "grid/block.h"
#include "grid/grid.h"

namespace cudalab::rt {

void BlockRun::lockstep_access(uintptr_t pc) {
  SimThread& t = *tl_thread;
  WarpState& w = warps_[t.warp];
  w.at_access |= 1u << t.lane;
  w.access_pc[t.lane] = pc;
  t.wait = SimThread::Wait::kLockstep;
  t.wait_pc = pc;
  recheck_lockstep(w);
  if (t.wait != SimThread::Wait::kNone) suspend(t);
}

void BlockRun::recheck_lockstep(WarpState& w) {
  if (!w.at_access) return;
  const uint32_t base = uint32_t(&w - warps_.data()) * 32;
  const unsigned live = w.existing & ~w.exited;
  // The other lanes: each must wait somewhere. One not started yet, running,
  // or ready to run will reach an access (mostly the first one looked at).
  for (unsigned others = live & ~w.at_access; others; others &= others - 1) {
    const SimThread& other = threads_[base + unsigned(__builtin_ctz(others))];
    if (!other.started || other.wait == SimThread::Wait::kNone) return;
  }
  uintptr_t earliest = UINTPTR_MAX;
  for (unsigned at = w.at_access; at; at &= at - 1)
    earliest = std::min(earliest, w.access_pc[unsigned(__builtin_ctz(at))]);
  released_.clear();
  for (unsigned lane = 0; lane < 32; ++lane)
    if (((w.at_access >> lane) & 1u) && w.access_pc[lane] == earliest) {
      w.at_access &= ~(1u << lane);
      released_.push_back(&threads_[base + lane]);
    }
  reorder(released_);
  for (SimThread* t : released_) {
    t->wait = SimThread::Wait::kNone;
    if (t != tl_thread) ready_.push_back(t);
  }
  released_.clear();
}

}  // namespace cudalab::rt
