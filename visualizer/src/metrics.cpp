// Requests and sectors from a trace's accesses. The trace has each thread's
// accesses in the order it made them; the n-th access a lane makes at one
// code address belongs to the n-th execution of that instruction by its
// warp, which is how a GPU's warp groups them when its lanes run together
// (lanes that skip an iteration leave it with fewer active lanes).
#include "metrics.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace cudalab::trace {

void SharedCounts::add(const SharedCounts& o) {
  requests += o.requests;
  wavefronts += o.wavefronts;
  conflicts += o.conflicts;
}

void GlobalCounts::add(const GlobalCounts& o) {
  requests += o.requests;
  sectors += o.sectors;
  bytes += o.bytes;
  lanes += o.lanes;
}

namespace {

// One execution of a memory instruction by one warp.
struct Request {
  uint64_t pc = 0;
  bool write = false;
  std::vector<uint64_t> sectors;  // absolute sector numbers (repeats until counted)
  std::vector<std::pair<uint64_t, uint8_t>> ranges;  // each lane's address and size
  std::vector<uint32_t> lane_of;                     // the lane of each range
  bool shared = false;
  uint32_t lanes = 0;
};

// Wavefronts of one shared-memory request, and the fewest it could take.
std::pair<uint64_t, uint64_t> wavefronts(const Request& r) {
  const uint8_t size = r.ranges.empty() ? 4 : std::max<uint8_t>(r.ranges.front().second, 1);
  const uint32_t per_phase = size <= 4 ? 32 : size == 8 ? 16 : 8;
  uint64_t total = 0, least = 0;
  for (uint32_t phase = 0; phase < 32 / per_phase; ++phase) {
    std::set<uint64_t> words[32];  // distinct words per bank
    bool any = false;
    for (size_t i = 0; i < r.ranges.size(); ++i) {
      if (r.lane_of[i] / per_phase != phase) continue;
      any = true;
      const auto [offset, bytes] = r.ranges[i];
      for (uint64_t w = offset / 4; w <= (offset + std::max<uint8_t>(bytes, 1) - 1) / 4; ++w)
        words[w % 32].insert(w);
    }
    if (!any) continue;
    size_t most = 1;
    for (const auto& b : words) most = std::max(most, b.size());
    total += most;
    ++least;
  }
  return {total, least};
}

// Bytes the lanes asked for, each counted once (lanes reading one word share
// it: a broadcast moves 4 useful bytes, not 128).
uint64_t distinct_bytes(std::vector<std::pair<uint64_t, uint8_t>> ranges) {
  std::sort(ranges.begin(), ranges.end());
  uint64_t total = 0, covered_to = 0;
  for (const auto& [address, size] : ranges) {
    const uint64_t end = address + size;
    if (end <= covered_to) continue;
    total += end - std::max(address, covered_to);
    covered_to = end;
  }
  return total;
}

}  // namespace

std::vector<KernelMetrics> memory_metrics(const Trace& t) {
  std::vector<KernelMetrics> kernels;
  std::map<std::string, size_t> kernel_index;
  // Per kernel: per code address and direction, the counts.
  std::vector<std::map<std::pair<uint64_t, bool>, GlobalCounts>> per_pc;
  std::vector<std::map<std::pair<uint64_t, bool>, SharedCounts>> per_pc_shared;
  for (const Launch& l : t.launches) {
    auto [it, fresh] = kernel_index.try_emplace(l.kernel, kernels.size());
    if (fresh) {
      kernels.push_back({});
      kernels.back().kernel = l.kernel;
      per_pc.emplace_back();
      per_pc_shared.emplace_back();
    }
    const size_t ki = it->second;
    KernelMetrics& k = kernels[ki];
    ++k.launches;
    // A block's accesses, in the order its threads made them (blocks never
    // share a request): one block at a time keeps the lookups small.
    std::vector<uint32_t> order(l.accesses.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
      return l.accesses[x].block < l.accesses[y].block;
    });
    // (warp, pc, write, n) -> request; n counts a lane's executions of pc.
    std::map<std::tuple<uint32_t, uint64_t, bool, uint32_t>, size_t> request_of;
    std::map<std::tuple<uint32_t, uint64_t, bool>, uint32_t> executions;
    std::vector<Request> requests;
    std::map<uint32_t, PerThreadMost> per_thread;
    auto finish_block = [&] {
      for (const auto& [who, m] : per_thread) {
        k.most.global_reads = std::max(k.most.global_reads, m.global_reads);
        k.most.global_writes = std::max(k.most.global_writes, m.global_writes);
        k.most.shared_reads = std::max(k.most.shared_reads, m.shared_reads);
        k.most.shared_writes = std::max(k.most.shared_writes, m.shared_writes);
      }
      for (Request& r : requests) {
        if (r.shared) {
          const auto [waves, least] = wavefronts(r);
          SharedCounts c{1, waves, waves - least};
          per_pc_shared[ki][{r.pc, r.write}].add(c);
          (r.write ? k.shared_stores : k.shared_loads).add(c);
          continue;
        }
        std::sort(r.sectors.begin(), r.sectors.end());
        GlobalCounts c;
        c.requests = 1;
        c.sectors = uint64_t(std::unique(r.sectors.begin(), r.sectors.end()) - r.sectors.begin());
        c.bytes = distinct_bytes(r.ranges);
        c.lanes = r.lanes;
        per_pc[ki][{r.pc, r.write}].add(c);
        (r.write ? k.stores : k.loads).add(c);
      }
      request_of.clear();
      executions.clear();
      requests.clear();
      per_thread.clear();
    };
    for (size_t i = 0; i < order.size(); ++i) {
      const Access& a = l.accesses[order[i]];
      if (i > 0 && l.accesses[order[i - 1]].block != a.block) finish_block();
      const Allocation* alloc = a.shared() ? nullptr : t.allocation(a.allocation);
      const uint64_t address = (alloc ? alloc->base : 0) + a.offset;
      const uint32_t n = executions[{a.thread, a.pc, a.write}]++;
      auto [slot, added] = request_of.try_emplace({a.thread / 32, a.pc, a.write, n}, 0);
      if (added) {
        slot->second = requests.size();
        requests.emplace_back();
      }
      Request& r = requests[slot->second];
      r.pc = a.pc;
      r.write = a.write;
      r.shared = a.shared();
      if (!r.shared)
        for (uint64_t s = address / 32; s <= (address + std::max<uint8_t>(a.size, 1) - 1) / 32; ++s)
          r.sectors.push_back(s);
      r.ranges.emplace_back(address, a.size);
      r.lane_of.push_back(a.thread % 32);
      ++r.lanes;
      PerThreadMost& mine = per_thread[a.thread];
      ++(a.shared() ? (a.write ? mine.shared_writes : mine.shared_reads)
                    : (a.write ? mine.global_writes : mine.global_reads));
    }
    finish_block();
  }
  // Per source line, in source order.
  for (size_t i = 0; i < kernels.size(); ++i) {
    std::map<std::pair<std::string, uint32_t>, LineMetrics> lines;
    // The line of a code address (its file and number order the lines).
    auto line_of = [&](uint64_t pc) -> LineMetrics& {
      auto site = t.sites.find(pc);
      LineMetrics& m =
          site == t.sites.end() ? lines[{"?", 0}] : lines[{site->second.file, site->second.line}];
      m.where = t.where(pc);
      return m;
    };
    for (const auto& [key, c] : per_pc[i]) {
      LineMetrics& m = line_of(key.first);
      (key.second ? m.stores : m.loads).add(c);
    }
    for (const auto& [key, c] : per_pc_shared[i]) {
      LineMetrics& m = line_of(key.first);
      (key.second ? m.shared_stores : m.shared_loads).add(c);
    }
    for (auto& [key, m] : lines) kernels[i].lines.push_back(std::move(m));
  }
  return kernels;
}

}  // namespace cudalab::trace
