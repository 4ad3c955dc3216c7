// Requests, sectors and wavefronts from a trace's requests, and warp steps
// from its basic-block counts. The simulator groups lanes into requests as
// it records (the n-th time a lane runs a memory instruction between two
// barriers pairs with the n-th time the others do), so each figure here is
// a sum over requests.
#include "cudalab/trace/metrics.h"

#include <algorithm>
#include <unordered_map>

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

void StepCounts::add(const StepCounts& o) {
  steps += o.steps;
  lanes += o.lanes;
  divergent += o.divergent;
  flops_single += o.flops_single;
  flops_double += o.flops_double;
}

namespace {

// Wavefronts of one shared-memory request, and the fewest it could take:
// lanes go in phases (all 32 for 4-byte accesses, halves for 8, quarters
// for 16); a phase takes as many wavefronts as the most distinct words one
// bank holds.
SharedCounts shared_counts(const LaneAddress* lanes, int n, uint8_t size) {
  const uint32_t per_phase = size <= 4 ? 32 : size == 8 ? 16 : 8;
  const uint64_t words_each = (std::max<uint8_t>(size, 1) + 3) / 4;
  SharedCounts c;
  c.requests = 1;
  uint64_t least = 0;
  for (uint32_t phase = 0; phase < 32 / per_phase; ++phase) {
    uint64_t words[64];
    int count = 0;
    for (int i = 0; i < n; ++i) {
      if (lanes[i].lane / per_phase != phase) continue;
      const uint64_t first = lanes[i].offset / 4;
      const uint64_t last = (lanes[i].offset + std::max<uint8_t>(size, 1) - 1) / 4;
      for (uint64_t w = first; w <= last && w < first + words_each + 1 && count < 64; ++w)
        words[count++] = w;
    }
    if (count == 0) continue;
    std::sort(words, words + count);
    count = int(std::unique(words, words + count) - words);
    uint32_t per_bank[32] = {};
    uint32_t most = 1;
    for (int i = 0; i < count; ++i) most = std::max(most, ++per_bank[words[i] % 32]);
    c.wavefronts += most;
    ++least;
  }
  c.conflicts = c.wavefronts - least;
  return c;
}

// Sectors and the distinct bytes asked for (lanes reading one word share
// it: a broadcast moves 4 useful bytes, not 128).
GlobalCounts global_counts(const Trace& t, const LaneAddress* lanes, int n, uint8_t size) {
  GlobalCounts c;
  c.requests = 1;
  c.lanes = uint64_t(n);
  uint64_t start[32], sectors[64];
  int sector_count = 0;
  const Allocation* cached = nullptr;
  for (int i = 0; i < n; ++i) {
    if (!cached || cached->id != lanes[i].allocation) cached = t.allocation(lanes[i].allocation);
    start[i] = (cached ? cached->base : 0) + lanes[i].offset;
    const uint64_t bytes = std::max<uint8_t>(size, 1);
    for (uint64_t s = start[i] / 32; s <= (start[i] + bytes - 1) / 32 && sector_count < 64; ++s)
      sectors[sector_count++] = s;
  }
  std::sort(sectors, sectors + sector_count);
  c.sectors = uint64_t(std::unique(sectors, sectors + sector_count) - sectors);
  std::sort(start, start + n);
  uint64_t covered_to = 0;
  for (int i = 0; i < n; ++i) {
    const uint64_t end = start[i] + std::max<uint8_t>(size, 1);
    if (end <= covered_to) continue;
    c.bytes += end - std::max(start[i], covered_to);
    covered_to = end;
  }
  return c;
}

struct PerCode {
  GlobalCounts loads, stores, atomics;
  SharedCounts shared_loads, shared_stores;
  StepCounts steps;
};
using PerCodeAddress = std::unordered_map<uint64_t, PerCode>;

// Adds one launch's requests and warp steps to its kernel's counts.
void add_launch(const Trace& t, const Launch& l, KernelMetrics& k, PerCodeAddress& per_pc) {
  ++k.launches;
  // Per block that made requests, each thread's reads and writes.
  std::unordered_map<uint32_t, std::vector<PerThreadMost>> per_thread;
  const uint64_t threads = l.block.count();
  LaneAddress lanes[32];
  PerCode* code = nullptr;  // the last request's code address's counts
  uint64_t code_pc = 0;
  for (const Request& r : l.requests) {
    const int n = l.lanes_of(r, lanes);
    if (!code || r.pc != code_pc) code = &per_pc[r.pc], code_pc = r.pc;
    std::vector<PerThreadMost>& mine = per_thread[r.block];
    if (mine.empty()) mine.resize(threads);
    for (int i = 0; i < n; ++i) {
      PerThreadMost& m = mine[r.warp * 32u + lanes[i].lane];
      ++(r.shared() ? (r.write() ? m.shared_writes : m.shared_reads)
                    : (r.write() ? m.global_writes : m.global_reads));
    }
    if (r.shared()) {
      const SharedCounts c = shared_counts(lanes, n, r.size);
      (r.write() ? code->shared_stores : code->shared_loads).add(c);
      (r.write() ? k.shared_stores : k.shared_loads).add(c);
    } else {
      const GlobalCounts c = global_counts(t, lanes, n, r.size);
      (r.atomic() ? code->atomics : r.write() ? code->stores : code->loads).add(c);
      (r.atomic() ? k.atomics : r.write() ? k.stores : k.loads).add(c);
    }
  }
  for (const auto& [block, mine] : per_thread)
    for (const PerThreadMost& m : mine) {
      k.most.global_reads = std::max(k.most.global_reads, m.global_reads);
      k.most.global_writes = std::max(k.most.global_writes, m.global_writes);
      k.most.shared_reads = std::max(k.most.shared_reads, m.shared_reads);
      k.most.shared_writes = std::max(k.most.shared_writes, m.shared_writes);
    }
  k.flops_counted = t.float_ops_counted;
  for (const WarpSteps& w : l.steps) {
    StepCounts c{w.steps, w.lanes, w.divergent};
    if (auto ops = t.float_ops.find(w.pc); ops != t.float_ops.end()) {
      c.flops_single = w.lanes * ops->second.single_ops;
      c.flops_double = w.lanes * ops->second.double_ops;
    }
    per_pc[w.pc].steps.add(c);
    k.steps.add(c);
  }
}

// The counts per source line, in source order (file, then number).
void fill_lines(const Trace& t, const PerCodeAddress& per_pc, KernelMetrics& k) {
  std::map<std::pair<std::string, uint32_t>, LineMetrics> lines;
  for (const auto& [pc, c] : per_pc) {
    auto site = t.sites.find(pc);
    LineMetrics& m =
        site == t.sites.end() ? lines[{"?", 0}] : lines[{site->second.file, site->second.line}];
    m.where = t.where(pc);
    m.simulator_header =
        site != t.sites.end() && site->second.file.find("include/cudalab/") != std::string::npos;
    m.loads.add(c.loads);
    m.stores.add(c.stores);
    m.atomics.add(c.atomics);
    m.shared_loads.add(c.shared_loads);
    m.shared_stores.add(c.shared_stores);
    m.steps.add(c.steps);
  }
  for (auto& [key, m] : lines) k.lines.push_back(std::move(m));
}

}  // namespace

GlobalCounts request_global_counts(const Trace& t, const Launch& l, const Request& r) {
  LaneAddress lanes[32];
  const int n = l.lanes_of(r, lanes);
  return global_counts(t, lanes, n, r.size);
}

SharedCounts request_shared_counts(const Launch& l, const Request& r) {
  LaneAddress lanes[32];
  const int n = l.lanes_of(r, lanes);
  return shared_counts(lanes, n, r.size);
}

std::vector<KernelMetrics> memory_metrics(const Trace& t) {
  std::vector<KernelMetrics> kernels;
  std::unordered_map<std::string, size_t> kernel_index;
  std::vector<PerCodeAddress> per_pc;  // per kernel
  for (const Launch& l : t.launches) {
    auto [it, fresh] = kernel_index.try_emplace(l.kernel, kernels.size());
    if (fresh) {
      kernels.push_back({});
      kernels.back().kernel = l.kernel;
      per_pc.emplace_back();
    }
    add_launch(t, l, kernels[it->second], per_pc[it->second]);
  }
  for (size_t i = 0; i < kernels.size(); ++i) fill_lines(t, per_pc[i], kernels[i]);
  return kernels;
}

KernelMetrics launch_metrics(const Trace& t, const Launch& l) {
  KernelMetrics k;
  k.kernel = l.kernel;
  PerCodeAddress per_pc;
  add_launch(t, l, k, per_pc);
  fill_lines(t, per_pc, k);
  return k;
}

}  // namespace cudalab::trace
