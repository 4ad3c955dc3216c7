// A block that can never finish: every live thread waits (at a barrier or a
// warp operation) for others that will not come. The report groups the
// threads by where they wait and what for; the launch is aborted.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "grid/block.h"
#include "grid/grid.h"
#include "traces/symbols.h"

namespace cudalab::rt {

void BlockRun::report_deadlock() {
  // Every live thread waits and none can go on.
  std::vector<uintptr_t> pcs;
  // Each wait_pc is a return address: the call is the byte before it (the
  // address itself may be the next line's, after a call that ends one).
  for (const auto& t : threads_)
    if (!t.exited) pcs.push_back(t.wait_pc ? t.wait_pc - 1 : 0);
  auto lines = symbolize(pcs);
  std::ostringstream s;
  const uint3 b = context_.index;
  s << "block (" << b.x << "," << b.y << "," << b.z
    << ") can never finish: " << (thread_count_ - exited_) << " of its " << thread_count_
    << " threads wait for others that will not come\n";
  // Threads waiting at the same place for the same thing, as one line each.
  struct Group {
    std::string what, where;
    uint3 first;
    size_t count = 0;
  };
  std::vector<Group> groups;
  size_t k = 0;
  size_t leave_themselves_out = 0;  // lanes waiting with a mask that does not name them
  for (const auto& t : threads_) {
    if (t.exited) continue;
    std::string what;
    if (t.wait == SimThread::Wait::kBarrier) {
      what = "__syncthreads()";
    } else if (t.wait == SimThread::Wait::kObject) {
      what =
          "a libcu++ wait (a barrier's, latch's, semaphore's, pipeline's or atomic's) that "
          "no thread of the block will end";
    } else if (t.wait == SimThread::Wait::kLockstep) {
      what =
          "a memory access, for the other lanes of warp " + std::to_string(t.warp) + " (lock-step)";
    } else {
      const WarpState& w = warps_[t.warp];
      std::string name = "a warp operation";
      unsigned mask = 0;
      for (const auto& p : w.pending)
        if ((p.arrived >> t.lane) & 1u) name = warp_op_name(p.op), mask = p.mask;
      if (!((mask >> t.lane) & 1u)) ++leave_themselves_out;
      char m[64];
      std::snprintf(m, sizeof(m), " with mask 0x%08x (warp %u)", mask, t.warp);
      what = name + m;
    }
    const std::string& where = lines[k++];
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const Group& x) { return x.what == what && x.where == where; });
    if (g == groups.end())
      groups.push_back({what, where, t.index, 1});
    else
      ++g->count;
  }
  for (const auto& g : groups) {
    s << "cudalab:     " << g.count << (g.count == 1 ? " thread" : " threads") << " from ("
      << g.first.x << "," << g.first.y << "," << g.first.z << ") wait at " << g.what;
    if (!g.where.empty()) s << " at " << g.where;
    s << "\n";
  }
  if (leave_themselves_out)
    s << "cudalab:     " << leave_themselves_out
      << (leave_themselves_out == 1 ? " thread waits with a mask that leaves out its own lane"
                                    : " threads wait with masks that leave out their own lanes")
      << ": a warp operation's mask must name the calling lane (undefined on a GPU)\n";
  bool expected = false;
  if (launch_->deadlocked.compare_exchange_strong(expected, true))
    launch_->deadlock_report = s.str();
  launch_->aborted.store(true);
}

}  // namespace cudalab::rt
