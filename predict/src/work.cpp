// What a launch did, from its trace: each figure summed over the requests
// of the blocks that ran, each block weighed by how many of the grid's
// blocks it stands for (all of them: 1 each; a sample: sample.h).
#include <algorithm>
#include <cstdlib>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "cudalab/predict/predict.h"
#include "cudalab/trace/metrics.h"
#include "cudalab/trace/sample.h"

namespace cudalab::predict {
namespace {

// Per warp, per load instruction: its runs that hit L1 and that missed,
// and whether its addresses went up or down in equal steps (a loop's
// index: the next address does not wait for the data).
struct Chain {
  double hits = 0, misses = 0;
  uint64_t last = 0;
  int64_t step = 0;
  bool in_steps = true;
  uint64_t stores_before = 0;  // the warp's global stores before its last run
  bool stores = false;         // a store came between two runs
  bool grid_stride = false;    // its step is the grid's threads' (a grid-stride loop)
};
using Chains = std::unordered_map<uint64_t, std::unordered_map<uint64_t, Chain>>;

// A warp's global request, as far as telling a repeat of it goes.
struct Poll {
  uint64_t pc = 0;
  uint32_t mask = 0, allocation = 0;
  uint64_t offset = 0;
  uint8_t kind = 0;
  bool operator==(const Poll&) const = default;
};

// The slowest chain of loads and the slowest loop, of all warps' loads.
// A chain: a load whose addresses are not a loop's equal steps (each may
// wait for the data of the one before, as following a pointer does). A
// loop: the slowest by a weight (a miss as ten hits; a waiting iteration
// as four overlapped ones, nvcc's usual unrolling). A load in a loop whose
// count is known when compiled does not wait for the iteration before
// even when its step is the grid's (one block's loop over its tile with
// the block's threads as its step): nvcc unrolls the loop and issues its
// loads together.
void slowest_waits(const trace::Trace& t, const Chains& per_warp, Work& w) {
  double loop_weight = 0;
  for (const auto& [warp, by_pc] : per_warp) {
    // A loop's loads: one load instruction in equal steps, or several
    // that the host's compiler made of one by unrolling its loop, each a
    // share of its iterations: as many runs each, the same step, their
    // addresses that step's equal parts apart (four floats a step of 16
    // bytes). Loads of one iteration at other distances (a stencil's
    // neighbours) go together on a GPU: the slowest of them is the loop's.
    struct Loop {
      double hits = 0, misses = 0;
      bool stores = false, grid_stride = false;
      uint64_t last = 0;  // the instruction's last address
    };
    // The load instructions of equal steps, by their step and runs.
    std::map<std::pair<int64_t, double>, std::vector<Loop>> candidates;
    for (const auto& [pc, c] : by_pc) {
      if (!(c.in_steps && c.hits + c.misses > 1)) {
        if (c.hits + 10 * c.misses > w.path_hits + 10 * w.path_misses)
          w.path_hits = c.hits, w.path_misses = c.misses;
        continue;
      }
      candidates[{c.step, c.hits + c.misses}].push_back(
          {c.hits, c.misses, c.stores, c.grid_stride && !t.in_unrolled_loop(pc), c.last});
    }
    std::vector<Loop> loops;
    for (auto& [key, same] : candidates) {
      std::sort(same.begin(), same.end(),
                [](const Loop& a, const Loop& b) { return a.last < b.last; });
      const uint64_t step = uint64_t(std::llabs(key.first)), part = step / same.size();
      bool unrolled = same.size() > 1 && part > 0 && part * same.size() == step;
      for (size_t k = 1; unrolled && k < same.size(); ++k)
        unrolled = same[k].last - same[k - 1].last == part;
      if (!unrolled) {
        loops.insert(loops.end(), same.begin(), same.end());
        continue;
      }
      Loop all;
      for (const Loop& one : same) {
        all.hits += one.hits, all.misses += one.misses;
        all.stores |= one.stores, all.grid_stride |= one.grid_stride;
      }
      loops.push_back(all);
    }
    for (const Loop& l : loops) {
      const bool waits = l.stores || l.grid_stride;
      const double weight = (waits ? 4 : 1) * (l.hits + 10 * l.misses);
      if (weight > loop_weight) {
        loop_weight = weight, w.loop_hits = l.hits, w.loop_misses = l.misses;
        w.loop_wait = l.stores        ? Work::LoopWait::kStore
                      : l.grid_stride ? Work::LoopWait::kGridStride
                                      : Work::LoopWait::kOverlapped;
      }
    }
  }
}

// The most lanes of a request on one address.
int most_on_one_address(const trace::LaneAddress* lanes, int n) {
  int most = 1;
  for (int i = 0; i < n; ++i) {
    int same = 0;
    for (int j = 0; j < n; ++j)
      same += lanes[j].allocation == lanes[i].allocation && lanes[j].offset == lanes[i].offset;
    most = std::max(most, same);
  }
  return most;
}

// A global atomic request of `n` lanes, standing for `bw` of them.
void count_global_atomic(Work& w, bool on_floats, const trace::LaneAddress* lanes, int n,
                         double bw) {
  w.atomic_requests += bw;
  w.atomic_lanes += bw * n;
  // A warp's lanes on one address: one operation (nvcc sends a warp's
  // atomic on a uniform address once, with the lanes' sum), but on
  // floating-point values each lane's goes on its own.
  const int most = most_on_one_address(lanes, n);
  const bool one_address = most == n;
  if (on_floats) {
    w.atomic_ops += bw * n;
    w.float_atomic_lanes += bw * n;
    w.float_atomic_turns += bw * most;
  } else {
    w.atomic_ops += bw * (one_address ? 1 : n);
    if (one_address)
      w.atomic_uniform_requests += bw;
    else
      w.atomic_turns += bw * most;
  }
}

// A global load's lines that have a word in one bank of L1 (4-byte words,
// 32 banks, as shared memory's), the most of any bank: L1's data stage
// reads the words of one line in a bank at a time, so a gather whose lanes
// read lines at one bank takes a turn a line, one whose lines' words lie in
// other banks fewer (measured on an H200: calibration/gather_lines.cu).
int lines_in_one_bank(uint64_t base, const trace::LaneAddress* lanes, int n, unsigned size) {
  uint64_t words[128];  // the bank in the top 5 bits, the line below
  int nw = 0;
  for (int i = 0; i < n; ++i) {
    const uint64_t first = (base + lanes[i].offset) / 4;
    const uint64_t last = (base + lanes[i].offset + std::max(size, 1u) - 1) / 4;
    for (uint64_t word = first; word <= last && nw < 128; ++word)
      words[nw++] = (word & 31) << 59 | word / 32;
  }
  // Distinct (bank, line) pairs, counted per bank.
  std::sort(words, words + nw);
  nw = int(std::unique(words, words + nw) - words);
  int most = nw > 0 ? 1 : 0;
  for (int i = 0, run = 0; i < nw; ++i) {
    run = i > 0 && words[i] >> 59 == words[i - 1] >> 59 ? run + 1 : 1;
    most = std::max(most, run);
  }
  return most;
}

// The launch's warp steps (each basic block a warp ran, `scale` blocks
// for each that ran): instructions, chains, a switch's turns, FLOPs and
// the calls of math functions, from each block's counts (float_ops).
void add_warp_steps(const trace::Trace& t, const trace::Launch& l, double scale, Work& w) {
  w.instructions = w.load_requests + w.store_requests + w.atomic_requests + w.shared_requests +
                   w.constant_requests;
  const double warps = double(w.blocks) * double((w.threads_per_block + 31) / 32);
  for (const trace::WarpSteps& s : l.steps) {
    const double steps = scale * double(s.steps);
    w.warp_steps += steps;
    const auto ops = t.float_ops.find(s.pc);
    w.instructions +=
        steps * std::max<uint32_t>(1, ops == t.float_ops.end() ? 0 : ops->second.instructions);
    if (ops == t.float_ops.end()) continue;
    w.chain_single += steps * ops->second.chain_single / warps;
    w.chain_double += steps * ops->second.chain_double / warps;
    // Where a warp's lanes parted more than two ways (an if / else-if
    // ladder, a switch), nvcc's code has more than the host's: the
    // reconvergence around the branches (BSSY and BSYNC) and a branch at
    // the end of each path the lanes took. (A two-way branch whose sides
    // are short, nvcc predicates: no branch at all.)
    if (s.divergent && s.targets > 2 * s.divergent)
      w.instructions += scale * double(2 * s.divergent + s.targets);
    // A switch's jump table: a turn for each case a divergent step's lanes
    // went to, one for each step whose lanes went one way.
    if (ops->second.indirect_jump)
      w.switch_turns += scale * double(s.targets + (s.steps - s.divergent));
    w.flops_single += scale * double(s.lanes) * ops->second.single_ops;
    w.flops_double += scale * double(s.lanes) * ops->second.double_ops;
    w.special_ops += scale * double(s.lanes) * ops->second.special_ops;
    w.flops_single_issued += steps * 32 * ops->second.single_ops;
    w.flops_double_issued += steps * 32 * ops->second.double_ops;
    w.special_ops_issued += steps * 32 * ops->second.special_ops;
    w.double_calls += scale * double(s.lanes) * ops->second.double_calls;
    w.double_calls_issued += steps * 32 * ops->second.double_calls;
  }
  w.switch_turns_per_warp = w.switch_turns / warps;
}

}  // namespace

Work work_of(const trace::Trace& t, const trace::Launch& l) {
  Work w;
  w.blocks = l.grid.count();
  w.threads_per_block = l.block.count();
  std::vector<uint32_t> ran = l.sample;
  if (!l.sampled) {
    // Every block ran (those that made no request too).
    ran.resize(w.blocks);
    for (uint64_t b = 0; b < w.blocks; ++b) ran[b] = uint32_t(b);
  }
  w.sampled_blocks = ran.size();
  w.uses = l.uses;
  if (ran.empty()) return w;  // nothing ran: a repeat of a launch traced before
  const std::vector<double> weights = trace::sample_weights(l.grid.x, l.grid.y, l.grid.z, ran);
  std::unordered_map<uint32_t, double> weight;
  for (size_t i = 0; i < ran.size(); ++i) weight[ran[i]] = weights[i];
  const double scale = double(w.blocks) / double(ran.size());

  // Per block, the load sectors it has seen (a second load of one is an L1
  // hit, as far as the block's own reuse goes); per buffer, the sectors
  // any block read or wrote (what DRAM moves, once).
  std::unordered_map<uint32_t, std::unordered_set<uint64_t>> seen_by_block;
  std::unordered_map<uint32_t, std::unordered_set<uint64_t>> read_sectors, written_sectors;
  std::unordered_set<uint64_t> atomic_words;
  // Per buffer, its loads' sectors alone in their line that missed L1 (a
  // gather's, a strided read's), to set against the sectors it has.
  std::unordered_map<uint32_t, double> scattered_reads;
  std::unordered_map<uint32_t, std::unordered_set<uint64_t>> loaded_by_block;
  Chains per_warp;
  std::unordered_map<uint64_t, Poll> last_request;  // each warp's last global request
  std::unordered_map<uint64_t, uint64_t> stores_by_warp;
  const int64_t grid_threads = int64_t(w.blocks * w.threads_per_block);
  uint64_t static_shared = 0;
  trace::LaneAddress lanes[32];
  for (const trace::Request& r : l.requests) {
    const auto it = weight.find(r.block);
    const double bw = it == weight.end() ? scale : it->second;
    const int n = l.lanes_of(r, lanes);
    if (r.shared()) {
      if (r.allocation == trace::kStaticSharedId)
        for (int i = 0; i < n; ++i)
          static_shared = std::max<uint64_t>(static_shared, lanes[i].offset + r.size);
      if (r.float_atomic()) {
        w.shared_float_atomic_requests += bw;
        w.shared_float_atomic_rounds += bw * (most_on_one_address(lanes, n) - 1);
      } else if (r.atomic()) {
        w.shared_atomic_lanes += bw * n;
      }
      w.shared_wavefronts += bw * double(trace::request_shared_counts(l, r).wavefronts);
      w.shared_requests += bw;
      continue;
    }
    // A load that repeats the warp's request just before (its code, lanes
    // and addresses) polls for a value another block or thread will write
    // (a compiler keeps a plain load out of such a loop): counted once, as
    // the polls a sampled run makes depend on how the CPU ran its blocks.
    {
      const uint64_t warp = uint64_t(r.block) << 16 | r.warp;
      const Poll now{r.pc, r.mask, r.allocation, r.offset, r.kind};
      const auto [last, first] = last_request.try_emplace(warp, now);
      if (!first) {
        const bool again = !r.write() && last->second == now;
        last->second = now;
        if (again) continue;
      }
    }
    const trace::Allocation* a = t.allocation(r.allocation);
    const uint64_t base = a ? a->base : 0;
    uint64_t sectors[64], lines[64];
    int ns = 0, nl = 0;
    for (int i = 0; i < n; ++i) {
      const uint64_t first = base + lanes[i].offset;
      const uint64_t last = first + std::max<uint8_t>(r.size, 1) - 1;
      for (uint64_t s = first / 32; s <= last / 32 && ns < 64; ++s) sectors[ns++] = s;
      for (uint64_t s = first / 128; s <= last / 128 && nl < 64; ++s) lines[nl++] = s;
      if (r.atomic()) atomic_words.insert(first / 4);
    }
    std::sort(sectors, sectors + ns);
    ns = int(std::unique(sectors, sectors + ns) - sectors);
    std::sort(lines, lines + nl);
    nl = int(std::unique(lines, lines + nl) - lines);
    // Sectors alone in their line: as many as lines with one sector.
    bool alone_in_line[64] = {};
    {
      int alone = 0;
      for (int i = 0, j = 0; i < nl; ++i) {
        int in_line = 0;
        while (j < ns && sectors[j] / 4 < lines[i]) ++j;
        for (int k = j; k < ns && sectors[k] / 4 == lines[i]; ++k) ++in_line;
        alone += in_line == 1;
        if (in_line == 1) alone_in_line[j] = true;
      }
      w.scattered_sectors += bw * alone;
      if (r.write() && !r.atomic()) w.scattered_store_sectors += bw * alone;
      w.all_sectors += bw * ns;
    }
    auto& footprint = r.write() ? written_sectors[r.allocation] : read_sectors[r.allocation];
    for (int i = 0; i < ns; ++i) footprint.insert(sectors[i]);
    if (r.atomic()) {
      count_global_atomic(w, r.float_atomic(), lanes, n, bw);
    } else if (r.write()) {
      w.store_requests += bw;
      w.store_sectors += bw * ns;
      w.store_lines += bw * nl;
      ++stores_by_warp[uint64_t(r.block) << 16 | r.warp];
      // L1 is written through: a store leaves no line of it there to hit
      // (measured: a thread's load after its store to the same sector
      // goes to L2, corpus kernel rows_per_thread).
      if (auto s = seen_by_block.find(r.block); s != seen_by_block.end())
        for (int i = 0; i < ns; ++i) s->second.erase(sectors[i]);
    } else {
      w.load_requests += bw;
      w.load_sectors += bw * ns;
      w.load_lines += bw * nl;
      w.load_wavefronts += bw * std::max(lines_in_one_bank(base, lanes, n, r.size), (nl + 3) / 4);
      auto& seen = seen_by_block[r.block];
      bool missed = false;
      for (int i = 0; i < ns; ++i)
        if (seen.insert(sectors[i]).second) {
          w.l1_missed_sectors += bw, missed = true;
          // (Not a sector the block loaded before and stored to since: L2
          // still has it.)
          if (alone_in_line[i] && loaded_by_block[r.block].insert(sectors[i]).second)
            scattered_reads[r.allocation] += bw;
        }
      const uint64_t warp = uint64_t(r.block) << 16 | r.warp;
      Chain& c = per_warp[warp][r.pc];
      const uint64_t at = base + r.offset;
      const uint64_t stores = stores_by_warp[warp];
      if (c.hits + c.misses > 0) {
        const int64_t step = int64_t(at - c.last);
        if (step == 0 || (c.hits + c.misses > 1 && step != c.step)) c.in_steps = false;
        c.step = step;
        if (stores != c.stores_before) c.stores = true;
        if (step == grid_threads * int64_t(r.size) || step == -grid_threads * int64_t(r.size))
          c.grid_stride = true;
      }
      c.stores_before = stores;
      c.last = at;
      ++(missed ? c.misses : c.hits);
    }
  }
  for (const trace::Launch::ConstantReads& c : l.constant_reads) {
    const auto it = weight.find(c.block);
    const double bw = it == weight.end() ? scale : it->second;
    w.constant_requests += bw * double(c.requests);
    w.constant_addresses += bw * double(c.addresses);
  }
  w.atomic_addresses = atomic_words.size();
  slowest_waits(t, per_warp, w);
  for (const trace::Request& r : l.requests)
    w.phases_per_block = std::max(w.phases_per_block, double(r.phase) + 1);
  w.shared_bytes_per_block = static_shared + l.shared_bytes;
  // Each buffer's bytes touched, scaled up from the sample but never past
  // the buffer's size.
  auto bytes_of = [&](const std::unordered_map<uint32_t, std::unordered_set<uint64_t>>& by) {
    double total = 0;
    for (const auto& [id, sectors] : by) {
      const trace::Allocation* a = t.allocation(id);
      const double cap = a ? double(a->size) + 32 : 1e300;
      total += std::min(32.0 * double(sectors.size()) * scale, cap);
    }
    return total;
  };
  w.dram_read_bytes = bytes_of(read_sectors);
  // Scattered loads of a sector read before by another block (or warp):
  // each finds it in L2 only as far as L2 holds what the launch touches.
  for (const auto& [id, reads] : scattered_reads) {
    const auto sectors = read_sectors.find(id);
    const trace::Allocation* a = t.allocation(id);
    const double cap = a ? double(a->size) / 32 + 1 : 1e300;
    const double distinct =
        sectors == read_sectors.end() ? 0 : std::min(double(sectors->second.size()) * scale, cap);
    w.scattered_rereads += std::max(0.0, reads - distinct);
  }
  w.dram_written_bytes = bytes_of(written_sectors);
  w.flops_counted = t.float_ops_counted;
  add_warp_steps(t, l, scale, w);
  return w;
}

Prediction predict_launch(const trace::Trace& t, size_t index, const Gpu& gpu, Work* work) {
  *work = work_of(t, t.launches[index]);
  Prediction p = predict(*work, gpu);
  const bool capped = std::any_of(t.notes.begin(), t.notes.end(), [](const std::string& n) {
    return n.find("access recording stopped") != std::string::npos;
  });
  if (!capped) return p;
  // Recording stops for good: the last launch with accesses was cut short,
  // and those after it recorded none.
  size_t last = 0;
  for (size_t i = 0; i < t.launches.size(); ++i)
    if (t.launches[i].accesses) last = i;
  if (index < last) return p;
  p.covered = false;
  p.not_covered =
      "the trace stopped recording accesses at its limit (CUDALAB_TRACE_MAX_ACCESSES) during "
      "this launch or before it: its work was not all counted. cudalab predict -- PROGRAM "
      "traces a sample of each launch's blocks instead";
  return p;
}

}  // namespace cudalab::predict
