// A kernel's time on a GPU, predicted from what one launch did on the
// simulator (its trace: requests, sectors, wavefronts, operations) and the
// GPU's limits measured by the calibration program (calibration/*.json).
// README.md says how, and what the model leaves out.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cudalab/trace/trace.h"

namespace cudalab::predict {

// One GPU's limits, as calibration/GPU.json holds them.
struct Gpu {
  std::string key;   // "h200", the file's name
  std::string name;  // "NVIDIA H200"
  int multiprocessors = 0;
  double clock_ghz = 0;
  double l2_bytes = 0;
  std::map<std::string, double> figures;  // "dram_copy" -> 3883.39 (in the file's unit)
  // Empty for a GPU the calibration measured; else how its figures were
  // made from another GPU's (calibration/derive.py), said beside every
  // prediction.
  std::string derived;
  double figure(const std::string& name) const;  // 0 when missing
};

// The GPU named `key` (h100, h200: calibration/KEY.json); nullopt, with
// why (which GPUs there are data for), when there is none or it is bad.
std::optional<Gpu> load_gpu(const std::string& key, std::string* why);
// The keys there are data for, sorted.
std::vector<std::string> known_gpus();
// The GPU predictions are for unless one is named: CUDALAB_DEVICE's, in any
// case (H100, h100), as the simulator reads it; else "h200".
std::string chosen_gpu();

// What the whole launch does, counted from its trace (scaled up from the
// blocks that ran when only a sample did; sampled_blocks 0: none ran).
struct Work {
  uint64_t blocks = 0, threads_per_block = 0, sampled_blocks = 0;
  uint64_t shared_bytes_per_block = 0;  // static (as far as the block used) and dynamic
  double load_requests = 0, load_sectors = 0, load_lines = 0;
  // A load's turns in L1's data stage: its lines that share a bank (the
  // most in any one bank) or a turn for each 4 of its lines, whichever is
  // more (measured: calibration/gather_lines.cu).
  double load_wavefronts = 0;
  double store_requests = 0, store_sectors = 0, store_lines = 0;
  double atomic_requests = 0, atomic_lanes = 0;
  uint64_t atomic_addresses = 0;  // distinct words the atomics went to (the sample's)
  double shared_wavefronts = 0, shared_atomic_lanes = 0;  // integer atomics' lanes
  // Float atomics on shared memory (a loop of compare-and-swap on a GPU):
  // their requests, and the rounds of the loop past the first (a lane on
  // an address another lane of its request also adds to waits its turn).
  double shared_float_atomic_requests = 0, shared_float_atomic_rounds = 0;
  double l1_missed_sectors = 0;  // load sectors not seen before by their block
  // Of all global sectors the requests moved, those alone in their 128-byte
  // line within their request (a gather, a strided read, a write down a
  // column): L2 and DRAM serve them at the scattered rate.
  double scattered_sectors = 0, all_sectors = 0;
  double scattered_store_sectors = 0;  // of those, the stores'
  // Scattered loads (missing L1) beyond the distinct sectors of their
  // buffer: reads again of a sector, from L2 or, when L2 cannot hold what
  // the launch touches, from DRAM again.
  double scattered_rereads = 0;
  double dram_read_bytes = 0, dram_written_bytes = 0;  // each byte the launch touched, once
  double flops_single = 0, flops_double = 0;
  double special_ops = 0;  // sinf, expf, ... of all lanes
  // The same as a GPU issues them: each warp's instruction for all 32
  // lanes, those idle in a branch or past a partial warp's end included.
  double flops_single_issued = 0, flops_double_issued = 0, special_ops_issued = 0;
  double double_calls = 0, double_calls_issued = 0;  // exp, log, sin, pow, ... in FP64
  // Warp instructions issued: each warp step of a basic block its own work
  // in instructions (at least one), and one a memory request.
  double instructions = 0;
  double shared_requests = 0;
  // Warps' reads of __constant__ variables (not among the loads above),
  // and the distinct addresses of each, added up.
  double constant_requests = 0, constant_addresses = 0;
  double atomic_ops = 0;  // atomic lanes, a warp's lanes on one address counting once
  // Of the requests whose lanes are not all on one address: the most lanes
  // on one address in each, added up (lanes on one address take their
  // turns at L2; on few addresses, that is what the atomics wait for).
  double atomic_turns = 0;
  double atomic_uniform_requests = 0;  // requests whose lanes are all on one address
  // Atomics on floating-point values (atomicAdd on a float or double): nvcc
  // adds no lanes together, so a request's lanes on one address each take
  // a turn, all of them where all are on one address. Their lanes, and
  // those turns (of the atomic_requests; not in atomic_turns).
  double float_atomic_lanes = 0, float_atomic_turns = 0;
  double warp_steps = 0;
  // The average warp's chains of dependent work, in a GPU's instructions
  // (each basic block's longest, for each time the warp ran it): single
  // precision and integer, double precision. A warp alone waits that long.
  double chain_single = 0, chain_double = 0;
  // Turns warps took at a switch's jump tables: a divergent step a turn
  // for each case its lanes went to, another step one; the launch's, and
  // the average warp's.
  double switch_turns = 0, switch_turns_per_warp = 0;
  double phases_per_block = 1;  // barrier phases of the busiest block (1: no barrier)
  // The slowest chain of loads a warp waits for one after another: a load
  // instruction's runs in a loop whose addresses are not equal steps (the
  // next may wait for this one's data, as following a pointer does; loads
  // of a loop's index, and of different instructions, overlap).
  // Its runs that its block had loaded before (L1 hits) and the others
  // (weighing a miss as ten hits to find the slowest).
  double path_hits = 0, path_misses = 0;
  // The slowest loop a warp waits in: a load instruction's runs whose
  // addresses go in equal steps, one an iteration. An iteration waits for
  // its load when the warp stored to global memory since the last (the
  // next load may not pass the store) or the step is the whole grid's
  // (a grid-stride loop, whose step the kernel reads when it runs: the
  // calibration measured it waiting too); otherwise the loop's loads
  // overlap (nvcc unrolls it).
  enum class LoopWait { kOverlapped, kGridStride, kStore };
  double loop_hits = 0, loop_misses = 0;
  LoopWait loop_wait = LoopWait::kOverlapped;
  bool flops_counted = false;
  uint32_t uses = 0;  // what the model leaves out (trace::kUses* bits)
};
Work work_of(const trace::Trace& t, const trace::Launch& l);

// One limit the launch runs against: the time the work alone would take at it.
struct Term {
  std::string name;  // "DRAM bandwidth"
  double seconds = 0;
  std::string figures;  // "805 MB at 3,883 GB/s"
};

struct Prediction {
  bool covered = true;
  std::string not_covered;    // why there is no figure, when !covered
  double kernel_seconds = 0;  // the kernel's own duration (Nsight Compute's gpu__time_duration)
  double event_seconds = 0;   // what CUDA events around the one launch measure
  std::string bound;          // the term that bounds it
  int blocks_per_multiprocessor = 0;
  double occupancy = 0;  // resident warps over the most a multiprocessor holds
  std::vector<Term> terms;
};
Prediction predict(const Work& w, const Gpu& gpu);
// Launch `index` of the trace, counted (into `work`) and predicted; not
// covered, with the reason, when the trace stopped recording accesses at
// its limit during that launch or before it (its work was not all counted).
Prediction predict_launch(const trace::Trace& t, size_t index, const Gpu& gpu, Work* work);
// A time as the predictions print it: "75 ns", "812 us", "19.5 ms", "1.2 s".
std::string time_text(double seconds);

// A lesson kernel's own duration measured on the GPU (its median over the
// launches of one shape in the lesson's --bench, as Nsight Compute measures
// it): calibration/KEY-lesson-kernels.txt, the figures the lessons' READMEs
// quote beside their predictions.
struct Measured {
  std::string kernel;
  uint64_t blocks = 0, threads_per_block = 0;  // of the whole grid and block
  double seconds = 0;
  // Launches of one kernel and shape on different data, told apart by
  // their times (lesson_times.sh): the `inputs`th of `input_sets`; 0 of 0:
  // all its launches.
  int inputs = 0, input_sets = 0;
  // How the file's times were taken (its `# how:` line), for the reader.
  std::string how = "each kernel's median duration in the lesson's --bench, from Nsight Compute";
};
// The lesson's kernels measured on the GPU `key`; empty when there are none
// (`file` is set to the file looked for).
std::vector<Measured> measured_lesson_kernels(const std::string& key, const std::string& lesson,
                                              std::string* file);

}  // namespace cudalab::predict
