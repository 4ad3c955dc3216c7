// The model: a launch takes as long as the most loaded of the GPU's limits
// needs for its work (a roofline with every limit the calibration
// measures), on the multiprocessors its blocks keep busy.
//
// - Throughput limits of a multiprocessor (the L1 and shared-memory data
//   pipe's wavefronts, FP32 and FP64 arithmetic) count the work of the
//   busiest multiprocessor: blocks go round the multiprocessors, so it has
//   ceil(blocks / multiprocessors) of them. A grid of 16 blocks uses 16 of
//   132 and gets an eighth of the GPU.
// - A global load request's lanes are served one 128-byte line a
//   wavefront, the same data pipe as shared memory's wavefronts (the
//   calibration's conflicted shared loads measure its rate).
// - L2 moves the sectors a block had not loaded before, its stores and its
//   atomics; DRAM moves each byte the launch touched once, unless all it
//   touches fits in half the L2, where an earlier launch on the same
//   buffers left it (warm caches, as a benchmark's repeated launches find).
//   Both at the calibration's bandwidths, but a sector alone in its
//   128-byte line in its request (a gather, a strided read, a write down a
//   column) at their rates of scattered sectors.
// - Atomics on global memory go at the rate the calibration measured for
//   as many addresses (one, or spread out); a warp's lanes on one
//   address are one atomic (nvcc sends their sum once), but not on
//   floating-point values (each lane's float atomic its own). On a few addresses
//   (up to 1024), a request's lanes on one address take turns (each as
//   long as an atomic on one address), after the request's own cost.
// - Single-precision sinf, expf, ... go at the special function unit's
//   rate (the calibration's __sinf).
// - CUDA events around the one launch add the launch's own cost (an empty
//   kernel's, timed the same way).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cudalab/predict/predict.h"
#include "cudalab/trace/format.h"

namespace cudalab::predict {
namespace {

std::string si(double v, const char* unit) {
  const char* prefix[] = {"", "K", "M", "G", "T", "P"};
  int p = 0;
  while (std::fabs(v) >= 1000 && p < 5) v /= 1000, ++p;
  char b[64];
  std::snprintf(b, sizeof(b), "%.3g %s%s", v, prefix[p], unit);
  std::string s = b;
  if (s.back() == ' ') s.pop_back();  // a count: "249", not "249 "
  return s;
}

// A figure measured for blocks of 8 warps (256 threads) and of 32 (1024),
// for a block of `warps`: along the line between the two, and as the
// nearer one outside them (a figure missing: the other one).
double by_block_size(double at_8, double at_32, double warps) {
  if (at_8 <= 0 || at_32 <= 0) return std::max(at_8, at_32);
  const double x = std::clamp((warps - 8) / 24, 0.0, 1.0);
  return at_8 + x * (at_32 - at_8);
}

// A barrier round, and starting a block on a multiprocessor, for blocks
// of `warps` warps (s): the calibration's blocks of 256 and of 1024.
double barrier_of(const Gpu& gpu, double warps) {
  return by_block_size(gpu.figure("barrier_256"), gpu.figure("barrier"), warps) * 1e-9;
}
double block_start_of(const Gpu& gpu, double warps) {
  const double alone = gpu.figure("launch_alone");
  const double at_8 = (gpu.figure("launch_wide_grid") - alone) / 64;
  const double at_32 = gpu.figure("launch_wide_grid_1024") > 0
                           ? (gpu.figure("launch_wide_grid_1024") - alone) / 16
                           : 0;
  return std::max(0.0, by_block_size(at_8, at_32, warps)) * 1e-6;
}

// Global atomics' term (w.atomic_ops > 0).
Term atomics_term(const Work& w, const Gpu& gpu) {
  const double one =
      gpu.figure("atomic_one_address") > 0 ? 1 / (1e9 * gpu.figure("atomic_one_address")) : 0;
  // A float lane's turn on one address: the calibration's floats on one
  // address (nvcc adds no lanes together); without that figure, an
  // integer's.
  const double one_float = gpu.figure("atomic_float_one_address") > 0
                               ? 1 / (1e9 * gpu.figure("atomic_float_one_address"))
                               : one;
  const std::string floats = w.float_atomic_lanes > 0
                                 ? ", of them " + si(w.float_atomic_turns, "") +
                                       " turns of float lanes on one address at " +
                                       time_text(one_float)
                                 : "";
  if (w.atomic_addresses > 1 && w.atomic_addresses <= 1024 && one > 0 &&
      gpu.figure("atomic_32_addresses") > 0) {
    // Few addresses: a request's lanes on one address take turns, each
    // turn as long as an atomic on one address takes (the calibration's
    // one-address rate), after what a request costs in itself: the
    // calibration's request of 32 lanes on 32 addresses (one turn) less
    // its one turn. A request of one address is one atomic, unless its
    // lanes' values are floats.
    const double request = std::max(0.0, 32 / (1e9 * gpu.figure("atomic_32_addresses")) - one);
    const double requests = w.atomic_requests - w.atomic_uniform_requests;
    return {"global atomics",
            requests * request + w.atomic_turns * one + w.atomic_uniform_requests * one +
                w.float_atomic_turns * one_float,
            si(w.atomic_ops, "atomics") + " on " + std::to_string(w.atomic_addresses) +
                " addresses: " + si(requests, "") + " requests at " + time_text(request) + " and " +
                si(w.atomic_turns + w.atomic_uniform_requests + w.float_atomic_turns, "") +
                " turns of their lanes on one address at " + time_text(one) + floats};
  }
  if (w.atomic_addresses <= 1) {
    // One address: integers at the calibration's rate for it (a warp's
    // lanes one atomic), floats a turn a lane.
    if (one <= 0) return {"global atomics", 0, "no calibration figure for them"};
    return {"global atomics",
            (w.atomic_ops - w.float_atomic_lanes) * one + w.float_atomic_turns * one_float,
            si(w.atomic_ops, "atomics") + " on one address at " + time_text(one) + floats};
  }
  const double rate = 1e9 * gpu.figure("atomic_spread");
  if (rate <= 0) return {"global atomics", 0, "no calibration figure for them"};
  return {"global atomics", w.atomic_ops / rate,
          si(w.atomic_ops, "atomics") + " on " + std::to_string(w.atomic_addresses) +
              " addresses at " + si(rate, "/s")};
}

// The latency term: a launch's least time, its blocks' starts and each
// round of blocks' slowest waits. `in_l2`: the share of what the launch
// touches that L2 holds.
Term latency_term(const Work& w, const Gpu& gpu, double busiest, double resident, double in_l2,
                  int per_sm, double memory_seconds, double wavefront_seconds) {
  const double warps = std::ceil(double(w.threads_per_block) / 32);
  // Latency: the slowest warp's loads one after another (an L1 hit's
  // latency, or L2's or DRAM's for a miss, as the data stays in L2 or
  // not) and its barriers, for each round of blocks its multiprocessor
  // runs, after a launch's least time (an empty kernel's own duration).
  // A miss finds its data in L2 as far as what the launch touches fits in
  // half of it (an earlier launch left it there), else in DRAM.
  auto at_level = [&](const char* l2, const char* dram) {
    return (in_l2 * gpu.figure(l2) + (1 - in_l2) * gpu.figure(dram)) * 1e-9;
  };
  const double floor = gpu.figure("empty_kernel_duration") * 1e-6;
  const double l1 = gpu.figure("latency_l1") * 1e-9;
  const double chase = w.path_hits * l1 + w.path_misses * at_level("latency_l2", "latency_dram");
  // A loop's iterations: each waits for its load (the calibration's warp
  // alone in a loop with a store), or overlap (its loop that sums).
  using Wait = Work::LoopWait;
  // Hits wait L1's latency each where an iteration waits for its load; in
  // a loop whose loads overlap, four at a time (nvcc's usual unrolling,
  // as the calibration's loop that sums measures for misses).
  const double loop =
      w.loop_hits * l1 / (w.loop_wait == Wait::kOverlapped ? 4 : 1) +
      w.loop_misses *
          (w.loop_wait == Wait::kStore ? at_level("warp_loop_store_l2", "warp_loop_store_dram")
           : w.loop_wait == Wait::kGridStride
               ? at_level("warp_loop_sum_grid_stride_l2", "warp_loop_sum_grid_stride_dram")
               : at_level("warp_loop_sum_l2", "warp_loop_sum_dram"));
  const double rounds_of_blocks = std::ceil(busiest / resident);
  // The warp's own chains of dependent work: each instruction waits for
  // the one before it (single precision and integer at the mean of the
  // calibration's two, which it measured alike), and its turns at the jump
  // tables of a switch whose lanes parted.
  const double work_chain =
      w.chain_single * (gpu.figure("dependent_fp32") + gpu.figure("dependent_int")) / 2 * 1e-9 +
      w.chain_double * gpu.figure("dependent_fp64") * 1e-9 +
      w.switch_turns_per_warp * gpu.figure("switch_turn") * 1e-9;
  double path =
      std::max(chase, loop) + work_chain + (w.phases_per_block - 1) * barrier_of(gpu, warps);
  // Blocks so large that a multiprocessor holds two at most, waiting at
  // barriers: no other block moves bytes or works shared memory while they
  // wait, so a round's misses queue behind the round's own bytes, and its
  // shared-memory wavefronts come between its barriers on top of its
  // waits. With b the round's share of the busiest memory level's time, t
  // the round's time and `rest` its barriers and wavefronts, a miss takes
  // its latency L stretched by 1 / (1 - b / t) (one queue, Little's law):
  // t = rest + L / (1 - b / t), whose larger root is taken.
  bool queued = false;
  if (per_sm <= 2 && w.phases_per_block > 1 && memory_seconds > 0) {
    const double misses = chase >= loop ? w.path_misses * at_level("latency_l2", "latency_dram")
                                        : loop - w.loop_hits * l1;
    const double rest = path - misses + wavefront_seconds / rounds_of_blocks;
    const double b = memory_seconds / rounds_of_blocks;
    const double sum = rest + b + misses;
    if (misses > 0) {
      path = (sum + std::sqrt(std::max(0.0, sum * sum - 4 * rest * b))) / 2;
      queued = true;
    }
  }
  // Starting a block: what a grid of empty blocks (of 256 threads, of
  // 1024) costs beyond an empty launch, per block on a multiprocessor. A multiprocessor starts its
  // blocks one after another, and a block holds its place until its
  // slowest warp's waits are over: the two add up.
  const double start = block_start_of(gpu, warps);
  return {"latency", floor + busiest * start + rounds_of_blocks * path,
          "an empty kernel's " + time_text(floor) + ", " + si(busiest, "") +
              " blocks started on the busiest multiprocessor at " + time_text(start) + " each, " +
              si(rounds_of_blocks, "") + " rounds of blocks of " + time_text(path) + ": " +
              (work_chain > 0.05 * path
                   ? si(w.chain_single + w.chain_double, "") + " dependent instructions a warp" +
                         (w.switch_turns_per_warp >= 1
                              ? " and " + si(w.switch_turns_per_warp, "") + " turns at a switch"
                              : "") +
                         " (" + time_text(work_chain) + "), "
                   : "") +
              (chase >= loop ? si(w.path_hits, "") + " L1 hits and " + si(w.path_misses, "") +
                                   " misses of one load one after another"
                             : "a loop's " + si(w.loop_hits + w.loop_misses, "") + " iterations (" +
                                   si(w.loop_misses, "") + " missing L1), " +
                                   (w.loop_wait == Wait::kStore
                                        ? "each waiting for its load (a store between)"
                                    : w.loop_wait == Wait::kGridStride
                                        ? "each waiting for its load (a grid-stride loop)"
                                        : "their loads overlapping")) +
              (queued ? ", the misses queued behind the round's own bytes, and its wavefronts "
                        "(blocks of " +
                            std::to_string(w.threads_per_block) + " threads, " +
                            std::to_string(per_sm) + " a multiprocessor at most)"
                      : "")};
}

// Instruction issue: four warp schedulers a multiprocessor, one
// instruction a cycle each (`schedulers`: the share of them that have a
// warp). A warp's run of a basic block issues the block's own work (its
// machine code's, as a GPU's instructions: an estimate) and a memory
// request one; a switch's turns where a warp's lanes part (nvcc's compare
// trees and jump tables, a turn for each case taken) go at the
// calibration's rate. `multiprocessors`: those the launch keeps busy.
Term issue_term(const Work& w, const Gpu& gpu, double multiprocessors, double schedulers) {
  const double issue = 4.0 * gpu.clock_ghz * 1e9 * schedulers;
  const double turn_rate = gpu.figure("switch_turns_multiprocessor") * 1e6;
  const double turns = turn_rate > 0 ? w.switch_turns / (turn_rate * multiprocessors) : 0;
  return {"instruction issue", w.instructions / (issue * multiprocessors) + turns,
          si(w.instructions, "") + " warp instructions (estimated from the code) at " +
              si(issue * gpu.multiprocessors, "/s") +
              (schedulers < 1 ? " (" + si(4 * schedulers, "") +
                                    " of 4 schedulers a multiprocessor with a warp)"
                              : "") +
              (turns > 0 ? ", and " + si(w.switch_turns, "") +
                               " turns at a switch whose lanes parted at " +
                               si(turn_rate * gpu.multiprocessors, "/s")
                         : "")};
}

}  // namespace

Prediction predict(const Work& w, const Gpu& gpu) {
  Prediction p;
  const double sms = gpu.multiprocessors;
  if (sms <= 0 || w.blocks == 0) {
    p.covered = false;
    p.not_covered = "the launch has no blocks, or the GPU's data has no multiprocessors";
    return p;
  }
  if (w.uses) {
    // What the calibration does not time: no figure rather than a wrong one.
    std::string what;
    const std::pair<uint32_t, const char*> names[] = {
        {trace::kUsesTensorCores, "tensor cores (wmma)"},
        {trace::kUsesTextures, "textures"},
        {trace::kUsesChildLaunches, "launches from the kernel (dynamic parallelism)"},
        {trace::kUsesStreams, "kernels on several streams, which may run at once"}};
    for (const auto& [bit, name] : names)
      if (w.uses & bit) what += (what.empty() ? "" : ", ") + std::string(name);
    p.covered = false;
    p.not_covered = "it uses " + what + ", which the model does not time";
    return p;
  }
  if (w.sampled_blocks == 0) {
    p.covered = false;
    p.not_covered = "nothing of it was recorded (it repeats a launch traced before: see that one)";
    return p;
  }
  // Occupancy: blocks a multiprocessor holds at once (its 64 warps, 32
  // blocks, 228 KiB of shared memory with 1 KiB a block reserved;
  // registers are not known on the simulator).
  const uint64_t warps = (w.threads_per_block + 31) / 32;
  int per_sm = int(std::min<uint64_t>(32, 64 / std::max<uint64_t>(warps, 1)));
  if (w.shared_bytes_per_block > 0)
    per_sm = std::min<int>(per_sm, int((228 * 1024) / (w.shared_bytes_per_block + 1024)));
  if (per_sm == 0) {
    p.covered = false;
    p.not_covered = "a block needs more threads or shared memory than a multiprocessor holds";
    return p;
  }
  p.blocks_per_multiprocessor = per_sm;
  const double busiest = std::ceil(double(w.blocks) / sms);  // blocks on the busiest SM
  const double resident = std::min<double>(busiest, per_sm);
  p.occupancy = resident * double(warps) / 64.0;
  // The share of a multiprocessor's limit the launch gets: 1 when every
  // multiprocessor has as many blocks as the busiest.
  const double spread = double(w.blocks) / (busiest * sms);
  // A multiprocessor's four schedulers each issue one warp's instruction a
  // cycle: with fewer than four warps, some have none to issue, and its
  // arithmetic units and issue go at that share.
  const double schedulers = std::min(4.0, resident * double(warps)) / 4.0;

  auto add = [&](const std::string& name, double seconds, const std::string& figures) {
    if (seconds > 0) p.terms.push_back({name, seconds, figures});
  };
  const double wavefront_rate = gpu.figure("shared_wavefronts_conflicted") * 1e9;
  const double wavefronts =
      w.load_wavefronts + w.store_lines + w.atomic_requests + w.shared_wavefronts;
  add("L1 and shared-memory wavefronts", wavefronts / (wavefront_rate * spread),
      si(wavefronts, "wavefronts") + " at " + si(wavefront_rate, "/s"));
  const double fp32 = gpu.figure("fp32_fma") * 1e12, fp64 = gpu.figure("fp64_fma") * 1e12;
  // Arithmetic goes at the rate of whole warps: a warp's instruction takes
  // its 32 lanes' time, those idle in a branch included.
  auto issued = [](double ops, double slots) {
    std::string s = si(ops, "FLOP");
    if (slots > ops * 1.05)
      s += " (" + si(slots, "") + " lanes' worth issued, idle lanes included)";
    return s;
  };
  add("FP32 arithmetic", w.flops_single_issued / (fp32 * spread * schedulers),
      issued(w.flops_single, w.flops_single_issued) + " at " + si(fp32, "FLOP/s"));
  add("FP64 arithmetic", w.flops_double_issued / (fp64 * spread * schedulers),
      issued(w.flops_double, w.flops_double_issued) + " at " + si(fp64, "FLOP/s"));
  const Term issue = issue_term(w, gpu, sms * spread, schedulers);
  add(issue.name, issue.seconds, issue.figures);
  // The share of sectors alone in their line (scattered): L2 and DRAM
  // serve those at the calibration's scattered rates, the rest at its
  // streaming bandwidths.
  auto level = [&](const std::string& name, double bytes, double rate, double sector_rate,
                   double scattered, double share, double more, const std::string& more_text) {
    const double seconds = (1 - scattered) * bytes / rate +
                           scattered * (sector_rate > 0 ? bytes / 32 / sector_rate : bytes / rate);
    add(name, (seconds + more) / share,
        si(bytes, "B") + " at " + si(rate, "B/s") +
            (scattered > 0.01 ? ", " + si(100 * scattered, "") + "% of it scattered sectors at " +
                                    si(sector_rate, "/s")
                              : "") +
            more_text);
  };
  // L2: a store of a sector alone in its line (4 bytes down a column) goes
  // at the calibration's rate for such writes, apart from the rest.
  const double store_rate = gpu.figure("scattered_store_sectors") * 1e9;
  const double scattered_stores = store_rate > 0 ? w.scattered_store_sectors : 0;
  const double rest = w.all_sectors - scattered_stores;
  level("L2 bandwidth",
        32 * (w.l1_missed_sectors + w.store_sectors - scattered_stores + w.atomic_lanes),
        gpu.figure("l2_read") * 1e9, gpu.figure("l2_scattered_sectors") * 1e9,
        rest > 0 ? (w.scattered_sectors - scattered_stores) / rest : 0, spread,
        scattered_stores > 0 ? scattered_stores / store_rate : 0,
        scattered_stores > 0
            ? ", and " + si(scattered_stores, "") + " stores of a sector alone in its line at " +
                  si(store_rate, "/s")
            : "");
  const double scattered = w.all_sectors > 0 ? w.scattered_sectors / w.all_sectors : 0;
  const double touched = w.dram_read_bytes + w.dram_written_bytes;
  // What L2 holds of what the launch touches (half of it: the rest is the
  // other partition's copy, as the calibration's warm L2 measures).
  const double in_l2 = touched > 0 ? std::min(1.0, gpu.l2_bytes / 2 / touched) : 1.0;
  if (touched > gpu.l2_bytes / 2) {
    // A scattered load of a sector read before misses L2 as far as L2
    // cannot hold what the launch touches: DRAM moves its sector again.
    const double again = w.scattered_rereads * (1 - in_l2);
    const double sector_rate = gpu.figure("dram_scattered_sectors") * 1e9;
    level("DRAM bandwidth", touched,
          1e9 * (w.dram_read_bytes > 0 && w.dram_written_bytes > 0 ? gpu.figure("dram_copy")
                 : w.dram_read_bytes > 0                           ? gpu.figure("dram_read")
                                                                   : gpu.figure("dram_write")),
          sector_rate, scattered, 1.0, sector_rate > 0 ? again / sector_rate : 0,
          again >= 1 ? ", and " + si(again, "") + " scattered sectors read again (missing L2) at " +
                           si(sector_rate, "/s")
                     : "");
  }
  if (w.atomic_ops > 0) p.terms.push_back(atomics_term(w, gpu));
  // __constant__ reads: the constant cache serves a request's distinct
  // addresses one after another, at the calibration's rate.
  if (const double rate = gpu.figure("constant_addresses") * 1e6;
      w.constant_addresses > 0 && rate > 0)
    add("constant cache", w.constant_addresses / (rate * sms * spread),
        si(w.constant_requests, "") + " requests of __constant__ memory, " +
            si(w.constant_addresses, "") + " distinct addresses in them, at " +
            si(rate * sms, "/s"));
  const double sfu = gpu.figure("sfu_sin") * 1e12;
  add("special functions (sinf, expf, ...)", w.special_ops_issued / (sfu * spread * schedulers),
      si(w.special_ops, "") + " calls (" + si(w.special_ops_issued, "") +
          " lanes' worth issued) at " + si(sfu, "/s"));
  // Double-precision library functions: a call takes the mean of the
  // calibration's times a call of exp and of log, whichever function it is.
  if (w.double_calls_issued > 0 && gpu.figure("fp64_exp") > 0 && gpu.figure("fp64_log") > 0) {
    const double rate = 1e9 * 2 / (1 / gpu.figure("fp64_exp") + 1 / gpu.figure("fp64_log"));
    add("FP64 library functions (exp, log, ...)", w.double_calls_issued / (rate * spread),
        si(w.double_calls, "") + " calls (" + si(w.double_calls_issued, "") +
            " lanes' worth issued) at " + si(rate, "/s"));
  }
  // Shared-memory atomics: integers at the calibration's rate a lane;
  // floats, a loop of compare-and-swap on a GPU, a request at the rate of
  // threads each on its own counter and each further round (lanes of a
  // request on one address take turns) at the rate of a block's threads
  // all on one.
  double shared_atomics = 0;
  std::string shared_figures;
  if (w.shared_atomic_lanes > 0) {
    const double rate = 1e9 * gpu.figure("shared_atomic");
    shared_atomics += w.shared_atomic_lanes / (rate * spread);
    shared_figures = si(w.shared_atomic_lanes, "atomics") + " at " + si(rate, "/s");
  }
  if (w.shared_float_atomic_requests > 0 && gpu.figure("shared_float_atomic") > 0 &&
      gpu.figure("shared_float_atomic_one_address") > 0) {
    const double request = 32 / (1e9 * gpu.figure("shared_float_atomic")),
                 round = 1 / (1e9 * gpu.figure("shared_float_atomic_one_address"));
    shared_atomics +=
        (w.shared_float_atomic_requests * request + w.shared_float_atomic_rounds * round) / spread;
    shared_figures += (shared_figures.empty() ? "" : ", ") +
                      si(w.shared_float_atomic_requests, "") + " requests of floats at " +
                      time_text(request) + " and " + si(w.shared_float_atomic_rounds, "") +
                      " more rounds of their lanes on one address at " + time_text(round);
  }
  if (shared_atomics > 0) add("shared-memory atomics", shared_atomics, shared_figures);
  // Barriers: a round of a block's phases takes what the calibration's
  // barrier round takes, for the blocks a multiprocessor runs one after
  // another.
  if (w.phases_per_block > 1) {
    const double rounds = (w.phases_per_block - 1) * std::ceil(busiest / resident);
    add("barriers", rounds * barrier_of(gpu, double(warps)),
        std::to_string(int(w.phases_per_block - 1)) + " a block, " +
            time_text(barrier_of(gpu, double(warps))) + " a round");
  }
  // The busiest memory level's time, which large blocks' misses queue
  // behind, and the wavefronts' time, which comes on top of their waits.
  double memory_seconds = 0, wavefront_seconds = 0;
  for (const Term& t : p.terms) {
    if (t.name == "DRAM bandwidth" || t.name == "L2 bandwidth")
      memory_seconds = std::max(memory_seconds, t.seconds);
    if (t.name == "L1 and shared-memory wavefronts") wavefront_seconds = t.seconds;
  }
  p.terms.push_back(
      latency_term(w, gpu, busiest, resident, in_l2, per_sm, memory_seconds, wavefront_seconds));
  if (p.terms.empty()) add("nothing counted", 1e-9, "no memory access and no arithmetic");
  const auto top =
      std::max_element(p.terms.begin(), p.terms.end(),
                       [](const Term& a, const Term& b) { return a.seconds < b.seconds; });
  p.bound = top->name;
  p.kernel_seconds = top->seconds;
  // Events around the one launch: an empty launch timed so, with this
  // kernel's time in place of the empty one's.
  p.event_seconds =
      p.kernel_seconds +
      std::max(0.0, (gpu.figure("launch_alone") - gpu.figure("empty_kernel_duration")) * 1e-6);
  std::sort(p.terms.begin(), p.terms.end(),
            [](const Term& a, const Term& b) { return a.seconds > b.seconds; });
  return p;
}

std::string time_text(double seconds) {
  char b[32];
  if (seconds >= 1)
    std::snprintf(b, sizeof(b), "%.3g s", seconds);
  else if (seconds >= 1e-3)
    std::snprintf(b, sizeof(b), "%.3g ms", seconds * 1e3);
  else if (seconds >= 1e-6 || seconds == 0)
    std::snprintf(b, sizeof(b), "%.3g us", seconds * 1e6);
  else
    std::snprintf(b, sizeof(b), "%.3g ns", seconds * 1e9);
  return b;
}

}  // namespace cudalab::predict
