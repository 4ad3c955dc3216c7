// The trace writer: CUDALAB_TRACE=FILE records every launch, allocation and
// memory access of the run in the format docs/trace-format.md describes.
//
// Accesses are grouped as a GPU's warp issues them: the n-th time a lane
// runs a memory instruction between two barriers pairs with the n-th time
// the other lanes of its warp run it, and together they are one request (one
// record, with each active lane's address, most often as a pattern of a few
// bytes). A block keeps its threads' accesses until its barrier releases or
// it ends, then writes that phase's requests. The basic blocks each thread
// runs are grouped the same way, which gives the active lanes of every step
// a warp takes and the branches where its lanes went different ways.
//
// Records reach the file as blocks finish their phases, so a run that dies
// leaves what it had done, and a trace without its END record tells the
// reader it was cut short.
#include "traces/trace.h"

#include <cxxabi.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "checks/checks.h"
#include "cudalab/trace/encode.h"
#include "grid/grid.h"
#include "runtime/allocations.h"
#include "traces/symbols.h"

namespace cudalab::rt {
namespace {

namespace tr = cudalab::trace;
using tr::LaneAccess;
using tr::Payload;
using tr::Record;

// What a warp did at one basic block (over a launch): how often it got
// there, with how many lanes, how often its lanes left it for different
// places (a divergent branch) and, over those times, how many places in all.
struct StepCounts {
  uint64_t steps = 0, lanes = 0, divergent = 0, targets = 0;
};

// A block's reads of __constant__ variables: warp requests, and the
// distinct addresses of each added up.
struct ConstantReads {
  uint64_t requests = 0, addresses = 0;
};

// The program's global variables, as the instrumented build's constructors
// name them (__cudalab_device_global). Written under the mutex, read
// without it (by a kernel's every access outside device buffers while a
// trace records): an entry is whole before the count that shows it grows,
// and the span of them all turns most such accesses (a thread's locals)
// away at once.
constexpr size_t kMaxDeviceGlobals = 4096;
struct DeviceGlobals {
  std::mutex mutex;
  DeviceGlobal entries[kMaxDeviceGlobals];
  std::atomic<bool> used[kMaxDeviceGlobals];  // a kernel of a traced run accessed it
  std::atomic<size_t> count{0};
  std::atomic<uint64_t> low{~0ull}, high{0};
};
DeviceGlobals& device_globals() {
  static auto* g = new DeviceGlobals;
  return *g;
}

}  // namespace

// One block's recording, owned by the BlockRun that runs it (and reused for
// the next block that worker runs).
struct BlockTrace {
  std::vector<std::vector<LaneAccess>> accesses;  // per thread, this phase
  std::vector<std::vector<uint32_t>> steps;       // per thread: basic blocks run, this phase
  uint64_t buffered_steps = 0;
  bool steps_overflow = false;  // this phase ran too long between barriers to keep its steps
  bool steps_dropped = false;   // some phase of this launch did
  uint32_t phase = 0;
  bool recording = false;  // this block is among CUDALAB_TRACE_BLOCKS
  uint64_t allowance = 0;  // accesses it may record before asking the writer for more
  std::unordered_map<uint32_t, StepCounts> step_counts;  // per basic block, this launch
  std::unordered_set<uint64_t> pcs_seen;
  std::vector<uint64_t> pcs_new;  // not yet handed to the writer
  std::vector<char> out;          // whole records, written to the file in batches
  uint32_t launch_id = 0;
  Launch* launch = nullptr;
  std::vector<uint32_t> loaded;  // allocations this block loaded from (Launch::loaded)
  // Per thread, this phase: its reads of __constant__ variables (code
  // address, address read); per block of this launch, their counts.
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> constant_reads;
  std::unordered_map<uint32_t, ConstantReads> constant_counts;
  // Per code address of such a read, this block: the one address its last
  // request read (~0: several).
  std::unordered_map<uint64_t, uint64_t> constant_last;
};

namespace {

class TraceWriter {
 public:
  TraceWriter() {
    // The settings are read first: a wrong one leaves no half-made file.
    const TraceSettings& settings = trace_settings();
    if (settings.path.empty()) return;
    path_ = settings.path;
    cap_ = settings.max_accesses;
    blocks_ = settings.blocks;
    file_ = std::fopen(path_.c_str(), "wb");
    if (!file_) {
      std::fprintf(stderr, "cudalab: cannot write the trace file %s: %s\n", path_.c_str(),
                   std::strerror(errno));
      std::exit(1);
    }
    if (!instrumented_build()) {
      std::fprintf(stderr,
                   "cudalab: this build records no memory accesses; the trace will "
                   "hold launches and allocations only\n");
    }
    const auto header = tr::file_header();
    std::fwrite(header.data(), 1, header.size(), file_);
    std::string program = main_program_file();
    if (program.size() > 13 && program.substr(program.size() - 13) == ".instrumented")
      program.resize(program.size() - 13);
    write(Record::kProgram, Payload().str(program));
    if (!blocks_.empty())
      write(Record::kNote, Payload().str("only the accesses of blocks " + settings.blocks_text +
                                         " (linear numbers) are recorded (CUDALAB_TRACE_BLOCKS)"));
    std::atexit([] { writer().finish(); });
  }

  bool on() const { return file_ != nullptr; }

  // An allocation record for each of the program's __device__ variables
  // that a kernel accessed and that has none yet: a trace's buffer named as
  // the variable (the program's other globals, which no kernel reaches,
  // get none).
  void write_device_globals() {
    const DeviceGlobals& g = device_globals();
    const size_t n = g.count.load(std::memory_order_acquire);
    globals_written_.resize(n, false);
    for (size_t i = 0; i < n; ++i) {
      if (globals_written_[i] || !g.used[i].load(std::memory_order_relaxed)) continue;
      globals_written_[i] = true;
      const DeviceGlobal& d = g.entries[i];
      int status = 0;
      char* demangled = abi::__cxa_demangle(d.name, nullptr, nullptr, &status);
      const std::string name = status == 0 && demangled ? demangled : d.name;
      std::free(demangled);
      write(Record::kAllocation, Payload().u32(d.id).u64(d.base).u64(d.size).str("").str(name));
    }
  }

  void write(Record type, const Payload& p) {
    std::vector<char> record;
    tr::append_record(record, type, p);
    std::lock_guard lock(mutex_);
    if (!file_) return;
    std::fwrite(record.data(), 1, record.size(), file_);
  }

  // Whole records a block has gathered, and the code addresses they name.
  void write_batch(BlockTrace& b) {
    std::lock_guard lock(mutex_);
    pcs_.insert(b.pcs_new.begin(), b.pcs_new.end());
    b.pcs_new.clear();
    if (file_ && !b.out.empty()) std::fwrite(b.out.data(), 1, b.out.size(), file_);
    b.out.clear();
  }

  // CUDALAB_TRACE_BLOCKS: whether this block's accesses are recorded.
  bool records_block(uint32_t linear) const {
    if (blocks_.empty()) return true;
    for (const auto& [first, last] : blocks_)
      if (linear >= first && linear <= last) return true;
    return false;
  }

  // Up to `wanted` more accesses under the cap (0 once it is reached).
  uint64_t reserve(uint64_t wanted) {
    uint64_t used = recorded_.load(std::memory_order_relaxed);
    while (used < cap_) {
      const uint64_t granted = std::min(wanted, cap_ - used);
      if (recorded_.compare_exchange_weak(used, used + granted, std::memory_order_relaxed))
        return granted;
    }
    if (!capped_.exchange(true)) {
      std::fprintf(stderr,
                   "cudalab: the trace reached %llu accesses; recording of accesses "
                   "stops here (CUDALAB_TRACE_MAX_ACCESSES sets the limit)\n",
                   (unsigned long long)cap_);
      cap_note_pending_ = true;
    }
    return 0;
  }
  uint64_t recorded() const { return recorded_.load(std::memory_order_relaxed); }
  bool capped() const { return capped_.load(std::memory_order_relaxed); }
  // Accesses granted to a block that it did not use.
  void give_back(uint64_t unused) { recorded_.fetch_sub(unused, std::memory_order_relaxed); }

  // A block's basic-block counts, added to its launch's.
  void add_steps(BlockTrace& b) {
    std::lock_guard lock(mutex_);
    for (const auto& [guard, c] : b.step_counts) {
      StepCounts& mine = steps_[guard];
      mine.steps += c.steps;
      mine.lanes += c.lanes;
      mine.divergent += c.divergent;
      mine.targets += c.targets;
    }
    for (const auto& [block, c] : b.constant_counts) {
      ConstantReads& mine = constant_reads_[block];
      mine.requests += c.requests;
      mine.addresses += c.addresses;
    }
    b.constant_counts.clear();
    if (b.steps_dropped) steps_dropped_ = true;
    b.step_counts.clear();
    b.steps_dropped = false;
  }

  // Called on the host thread after a launch, when no worker records.
  void end_launch(const Launch& l) {
    write_device_globals();
    if (cap_note_pending_) {
      cap_note_pending_ = false;
      write(Record::kNote, Payload().str("access recording stopped at the limit of " +
                                         std::to_string(cap_) + " accesses"));
    }
    if (steps_dropped_)
      write(Record::kNote,
            Payload().str("launch " + std::to_string(l.id) + ": a block ran more than " +
                          std::to_string(kMaxBufferedSteps) +
                          " basic blocks between two barriers; its warp steps were "
                          "not counted"));
    steps_dropped_ = false;
    if (!steps_.empty()) {
      Payload p;
      p.u32(l.id).u32(uint32_t(steps_.size()));
      for (const auto& [guard, c] : steps_) {
        const uint64_t pc = guard_pc(guard);
        pcs_.insert(pc);
        step_pcs_.insert(pc);
        p.u64(pc).u64(c.steps).u64(c.lanes).u64(c.divergent);
      }
      write(Record::kWarpSteps, p);
      // The places the lanes of divergent steps went, where any did part.
      Payload parted;
      uint32_t count = 0;
      for (const auto& [guard, c] : steps_)
        if (c.targets) {
          parted.u64(guard_pc(guard)).u64(c.targets);
          ++count;
        }
      if (count) {
        Payload record;
        record.u32(l.id).u32(count).raw(parted.bytes.data(), parted.bytes.size());
        write(Record::kBranchTargets, record);
      }
      steps_.clear();
    }
    if (!constant_reads_.empty()) {
      // Each block's reads of __constant__ variables.
      Payload record;
      record.u32(l.id).u32(uint32_t(constant_reads_.size()));
      for (const auto& [block, c] : constant_reads_)
        record.u32(block).u64(c.requests).u64(c.addresses);
      write(Record::kConstantReads, record);
      constant_reads_.clear();
    }
    ++launches_;
    Payload end;
    // A launch the watchdog stopped (it never finished) is written as a
    // faulted one, 2 instead of 1, with the thread it found and where: for
    // a reader, the kernel stopped there.
    const bool stopped = !l.faulted.load() && l.timed_out.load() && l.timeout_located.load();
    end.u32(l.id).u8(l.faulted.load() ? 1 : stopped ? 2 : 0).u64(l.idle_threads.load());
    if (l.faulted.load() || stopped) {
      // Which thread stopped the launch, at which line of the student's.
      const FaultInfo& f = l.faulted.load() ? l.fault : l.timeout_at;
      end.u32(f.block.x + f.block.y * l.grid.x + f.block.z * l.grid.x * l.grid.y)
          .u32(f.thread.x + f.thread.y * l.block.x + f.thread.z * l.block.x * l.block.y)
          .str(student_line(f))
          .str(l.faulted.load() ? fault_words(f)
                                : "it never finished: it was still running when its time was "
                                  "nearly out and was stopped with this thread here (a loop "
                                  "whose index never reaches its end, or far more work than "
                                  "the test needs?)");
    }
    write(Record::kLaunchEnd, end);
  }

  void finish() {
    if (!file_) return;
    if (!step_pcs_.empty()) {
      // FLOPs: each basic block's floating-point operations, from the code.
      std::unordered_map<uintptr_t, FloatOps> ops;
      std::vector<std::pair<uintptr_t, uintptr_t>> unrolled;
      if (count_float_ops(ops, *step_pcs_.rbegin(), &unrolled)) {
        // One record of entries for the basic blocks `has` picks, each
        // its code address and what `put` writes (written when empty only
        // if `always`).
        auto per_block = [&](Record type, bool always, auto has, auto put) {
          Payload entries;
          uint32_t count = 0;
          for (uint64_t pc : step_pcs_)
            if (auto it = ops.find(pc); it != ops.end() && has(it->second)) {
              put(entries.u64(pc), it->second);
              ++count;
            }
          if (!count && !always) return;
          Payload record;
          record.u32(count).raw(entries.bytes.data(), entries.bytes.size());
          write(type, record);
        };
        per_block(
            Record::kFloatOps, true, [](const FloatOps&) { return true; },
            [](Payload& p, const FloatOps& o) { p.u32(o.single_ops).u32(o.double_ops); });
        // Special-function calls, where a basic block makes any.
        per_block(
            Record::kSpecialOps, false, [](const FloatOps& o) { return o.special_ops != 0; },
            [](Payload& p, const FloatOps& o) { p.u32(o.special_ops); });
        // Each basic block's own work in instructions (its estimate).
        per_block(
            Record::kInstructions, false,
            [](const FloatOps& o) { return o.instructions || o.double_calls; },
            [](Payload& p, const FloatOps& o) { p.u32(o.instructions).u32(o.double_calls); });
        // Each basic block's longest chain of dependent work, and whether
        // it leaves through a jump table.
        per_block(
            Record::kChains, false,
            [](const FloatOps& o) { return o.chain_single || o.chain_double || o.indirect_jump; },
            [](Payload& p, const FloatOps& o) {
              p.u32(o.chain_single).u32(o.chain_double).u32(o.indirect_jump ? 1 : 0);
            });
        // The code spans of loops whose count is known when compiled: a
        // GPU's code has them unrolled, their loads issued together.
        if (!unrolled.empty()) {
          Payload record;
          record.u32(uint32_t(unrolled.size()));
          for (const auto& [first, last] : unrolled) record.u64(first).u64(last);
          write(Record::kUnrolledLoops, record);
        }
      } else {
        write(Record::kNote, Payload().str("FLOPs were not counted: that needs objdump (Debian's "
                                           "binutils) when the trace is recorded"));
      }
    }
    std::vector<uintptr_t> pcs(pcs_.begin(), pcs_.end()), before(pcs.size());
    // Each pc is a return address: the access is in the instruction before.
    for (size_t i = 0; i < pcs.size(); ++i) before[i] = pcs[i] ? pcs[i] - 1 : 0;
    auto lines = symbolize(before);
    for (size_t i = 0; i < pcs.size(); ++i) {
      std::string file;
      uint32_t line = 0;
      if (auto colon = lines[i].rfind(':'); colon != std::string::npos) {
        file = lines[i].substr(0, colon);
        line = static_cast<uint32_t>(std::strtoul(lines[i].c_str() + colon + 1, nullptr, 10));
      }
      write(Record::kSite, Payload().u64(pcs[i]).str(file).u32(line));
    }
    write(Record::kEnd, Payload().u64(recorded_.load()).u32(launches_));
    std::lock_guard lock(mutex_);
    std::fclose(file_);
    file_ = nullptr;
  }

  // Basic blocks: their guard numbers (given at start-up) and code addresses.
  static constexpr uint64_t kMaxBufferedSteps = 64ull << 20;  // 256 MB per block
  std::vector<std::atomic<uint64_t>> guard_pcs_;
  uint64_t guard_pc(uint32_t guard) const {
    return guard < guard_pcs_.size() ? guard_pcs_[guard].load(std::memory_order_relaxed) : 0;
  }

 private:
  friend TraceWriter& writer();
  std::string path_;
  FILE* file_ = nullptr;
  std::mutex mutex_;
  std::set<uint64_t> pcs_;
  std::set<uint64_t> step_pcs_;                       // basic blocks some warp stepped through
  std::map<uint32_t, StepCounts> steps_;              // per basic block, the launch running now
  std::vector<bool> globals_written_;                 // device globals given an allocation record
  std::map<uint32_t, ConstantReads> constant_reads_;  // per block, the launch running now
  bool steps_dropped_ = false;
  uint64_t cap_ = kDefaultTraceMaxAccesses;  // CUDALAB_TRACE_MAX_ACCESSES
  uint32_t launches_ = 0;
  std::atomic<uint64_t> recorded_{0};
  std::atomic<bool> capped_{false};
  std::atomic<bool> cap_note_pending_{false};
  std::vector<std::pair<uint32_t, uint32_t>> blocks_;  // inclusive ranges; empty: all

 public:
  // Never destroyed: finish() runs from atexit, after static destructors
  // registered later would have run.
  static TraceWriter& writer() {
    static TraceWriter* w = new TraceWriter;
    return *w;
  }
};

TraceWriter& writer() { return TraceWriter::writer(); }

// ---- grouping lanes into warp steps ------------------------------------------------------

// The lanes of a warp that ran the n-th occurrence of one instruction
// together, and where each lane's occurrence is in its own sequence.
struct WarpStep {
  uint32_t mask = 0;
  std::array<uint32_t, 32> index{};
};

// Pairs the n-th time each lane of a warp ran an instruction (its key) with
// the n-th time the others did, calling emit(step) once per step, in the
// order the steps were first reached. Lanes that skip an occurrence (a
// branch, a shorter loop) leave it with fewer lanes.
template <class T, class KeyOf, class Emit>
void for_each_warp_step(const std::vector<T>* const* lanes, KeyOf key_of, Emit emit) {
  const std::vector<T>* first = nullptr;
  uint32_t mask = 0;
  bool same = true;
  for (uint32_t lane = 0; lane < 32; ++lane) {
    const std::vector<T>* s = lanes[lane];
    if (!s || s->empty()) continue;
    mask |= 1u << lane;
    if (!first) {
      first = s;
      continue;
    }
    if (!same) continue;
    if (s->size() != first->size()) {
      same = false;
      continue;
    }
    for (size_t i = 0; i < s->size(); ++i)
      if (key_of((*s)[i]) != key_of((*first)[i])) {
        same = false;
        break;
      }
  }
  if (!first) return;
  WarpStep step;
  step.mask = mask;
  if (same) {  // the lanes ran one sequence: the common case
    for (uint32_t i = 0; i < first->size(); ++i) {
      step.index.fill(i);
      emit(step);
    }
    return;
  }
  thread_local std::unordered_map<uint64_t, std::vector<uint32_t>> steps_of_key;
  thread_local std::unordered_map<uint64_t, uint32_t> seen;
  thread_local std::vector<WarpStep> steps;
  steps_of_key.clear();
  steps.clear();
  for (uint32_t lane = 0; lane < 32; ++lane) {
    const std::vector<T>* s = lanes[lane];
    if (!s) continue;
    seen.clear();
    for (uint32_t i = 0; i < s->size(); ++i) {
      const uint64_t key = key_of((*s)[i]);
      const uint32_t n = seen[key]++;
      std::vector<uint32_t>& of_key = steps_of_key[key];
      if (n == of_key.size()) {
        of_key.push_back(uint32_t(steps.size()));
        steps.emplace_back();
      }
      WarpStep& w = steps[of_key[n]];
      w.mask |= 1u << lane;
      w.index[lane] = i;
    }
  }
  for (const WarpStep& w : steps) emit(w);
}

// The warp steps of a warp's basic blocks (each lane's sequence of them),
// as a GPU's warp runs them when its lanes part: of the blocks its lanes
// stand at next, it runs the first in the code (the lowest number: blocks
// are numbered in the order of the code, where the place a branch's paths
// meet again comes after both, and a loop's end after its body) with the
// lanes that stand there, and so on. Lanes that take other cases of a
// switch at every iteration of a loop thus run them one after another at
// each iteration, not once for all iterations, as pairing occurrences
// would. calls emit(step) once per step, in the order the warp runs them.
template <class Emit>
void for_each_warp_step_in_code_order(const std::vector<uint32_t>* const* lanes, Emit emit) {
  // When every lane ran the same blocks, pairing occurrences is the same.
  bool same = true;
  const std::vector<uint32_t>* first = nullptr;
  for (uint32_t lane = 0; lane < 32 && same; ++lane) {
    const std::vector<uint32_t>* s = lanes[lane];
    if (!s || s->empty()) continue;
    if (!first)
      first = s;
    else
      same = *s == *first;
  }
  if (!first) return;
  if (same) {
    for_each_warp_step(
        lanes, [](uint32_t guard) { return uint64_t(guard); }, emit);
    return;
  }
  std::array<uint32_t, 32> at{};
  WarpStep step;
  for (;;) {
    uint32_t lowest = ~0u;
    for (uint32_t lane = 0; lane < 32; ++lane)
      if (lanes[lane] && at[lane] < lanes[lane]->size())
        lowest = std::min(lowest, (*lanes[lane])[at[lane]]);
    if (lowest == ~0u) return;
    step.mask = 0;
    for (uint32_t lane = 0; lane < 32; ++lane)
      if (lanes[lane] && at[lane] < lanes[lane]->size() && (*lanes[lane])[at[lane]] == lowest) {
        step.mask |= 1u << lane;
        step.index[lane] = at[lane]++;
      }
    emit(step);
  }
}

}  // namespace

bool tracing() { return writer().on(); }

BlockTrace* new_block_trace(uint32_t threads) {
  if (!tracing()) return nullptr;
  auto* b = new BlockTrace;
  b->accesses.resize(threads);
  b->steps.resize(threads);
  b->constant_reads.resize(threads);
  return b;
}

void BlockTraceDeleter::operator()(BlockTrace* b) const {
  TraceWriter& w = writer();
  w.write_batch(*b);
  w.add_steps(*b);
  w.give_back(b->allowance);
  delete b;
}

void trace_block_start(BlockContext& block) {
  BlockTrace& b = *block.trace;
  b.phase = 0;
  b.recording = !block.launch->sample_repeat && writer().records_block(block.linear);
  b.launch_id = block.launch->id;
  b.launch = block.launch;
  b.loaded.clear();
  b.constant_last.clear();
}

void trace_phase_end(BlockContext& block, uintptr_t barrier_pc) {
  BlockTrace& b = *block.trace;
  if (!b.recording) return;
  TraceWriter& w = writer();
  const uint32_t threads = uint32_t(b.accesses.size());
  // Requests, one record per (block, phase): u32 launch, u32 block, u32
  // phase, u64 the barrier that ended it (0: the block's end), u32 count.
  if (barrier_pc && b.pcs_seen.insert(barrier_pc).second) b.pcs_new.push_back(barrier_pc);
  const size_t record_at = tr::begin_record(b.out, Record::kRequests);
  {
    Payload head;
    head.u32(b.launch_id).u32(block.linear).u32(b.phase).u64(barrier_pc).u32(0);  // the count
    b.out.insert(b.out.end(), head.bytes.begin(), head.bytes.end());
  }
  uint32_t count = 0;
  const std::vector<LaneAccess>* lanes[32];
  const std::vector<uint32_t>* steps[32];
  for (uint32_t warp = 0; warp * 32 < threads; ++warp) {
    bool any_access = false, any_step = false;
    for (uint32_t l = 0; l < 32; ++l) {
      const uint32_t t = warp * 32 + l;
      lanes[l] = t < threads ? &b.accesses[t] : nullptr;
      steps[l] = t < threads ? &b.steps[t] : nullptr;
      any_access |= lanes[l] && !lanes[l]->empty();
      any_step |= steps[l] && !steps[l]->empty();
    }
    if (any_access)
      for_each_warp_step(
          lanes, [](const LaneAccess& a) { return a.pc << 2 | a.kind; },
          [&](const WarpStep& s) {
            const LaneAccess* at[32];
            for (uint32_t l = 0; l < 32; ++l)
              at[l] = s.mask >> l & 1 ? &(*lanes[l])[s.index[l]] : nullptr;
            const uint64_t pc = at[__builtin_ctz(s.mask)]->pc;
            if (b.pcs_seen.insert(pc).second) b.pcs_new.push_back(pc);
            tr::encode_request(b.out, uint16_t(warp), at, s.mask);
            ++count;
          });
    // Reads of __constant__ variables: a request each time the warp's
    // lanes ran one, with its distinct addresses.
    const std::vector<std::pair<uint64_t, uint64_t>>* reads[32];
    bool any_read = false;
    for (uint32_t l = 0; l < 32; ++l) {
      const uint32_t t = warp * 32 + l;
      reads[l] = t < threads ? &b.constant_reads[t] : nullptr;
      any_read |= reads[l] && !reads[l]->empty();
    }
    if (any_read) {
      ConstantReads& c = b.constant_counts[block.linear];
      for_each_warp_step(
          reads, [](const std::pair<uint64_t, uint64_t>& r) { return r.first; },
          [&](const WarpStep& s) {
            uint64_t distinct[32];
            uint32_t n = 0;
            for (uint32_t m = s.mask; m; m &= m - 1) {
              const uint32_t l = uint32_t(__builtin_ctz(m));
              const uint64_t address = (*reads[l])[s.index[l]].second;
              if (std::find(distinct, distinct + n, address) == distinct + n)
                distinct[n++] = address;
            }
            // A read of one address that its instruction read before too
            // (a fixed element: `c[3]`, a loop nvcc unrolls): an operand
            // of nvcc's instructions, not a request of the constant cache.
            const uint64_t pc =
                (*reads[uint32_t(__builtin_ctz(s.mask))])[s.index[__builtin_ctz(s.mask)]].first;
            auto [last, fresh] = b.constant_last.try_emplace(pc, ~0ull);
            const bool fixed = !fresh && n == 1 && last->second == distinct[0];
            last->second = n == 1 ? distinct[0] : ~0ull;
            if (fixed) return;
            ++c.requests;
            c.addresses += n;
          });
    }
    if (any_step && !b.steps_overflow)
      for_each_warp_step_in_code_order(steps, [&](const WarpStep& s) {
        const uint32_t f = uint32_t(__builtin_ctz(s.mask));
        const uint32_t guard = (*steps[f])[s.index[f]];
        StepCounts& c = b.step_counts[guard];
        ++c.steps;
        c.lanes += uint64_t(__builtin_popcount(s.mask));
        // Where each lane went next (~0: to the barrier or its end).
        auto next = [&](uint32_t l) {
          const auto& seq = *steps[l];
          return s.index[l] + 1 < seq.size() ? seq[s.index[l] + 1] : ~0u;
        };
        const uint32_t first_next = next(f);
        for (uint32_t m = s.mask & (s.mask - 1); m; m &= m - 1)
          if (next(uint32_t(__builtin_ctz(m))) != first_next) {
            ++c.divergent;
            // The distinct places its lanes went.
            uint32_t places[32], count = 0;
            for (uint32_t all = s.mask; all; all &= all - 1) {
              const uint32_t to = next(uint32_t(__builtin_ctz(all)));
              if (std::find(places, places + count, to) == places + count) places[count++] = to;
            }
            c.targets += count;
            break;
          }
      });
  }
  for (auto& v : b.accesses) v.clear();
  for (auto& v : b.steps) v.clear();
  for (auto& v : b.constant_reads) v.clear();
  b.buffered_steps = 0;
  b.steps_overflow = false;
  if (count == 0) {
    b.out.resize(record_at);
  } else {
    std::memcpy(b.out.data() + record_at + tr::kRecordHeaderBytes + tr::kRequestsCountAt, &count,
                4);
    tr::finish_record(b.out, record_at);
  }
  ++b.phase;
  constexpr size_t kBatch = 1 << 20;
  if (b.out.size() >= kBatch || !b.pcs_new.empty()) w.write_batch(b);
}

namespace {
void record(uint32_t allocation, uint64_t offset, unsigned size, bool write, bool atomic,
            bool float_add, uintptr_t pc) {
  BlockTrace* b = tl_block->trace;
  if (!b || !b->recording) return;
  if (b->allowance == 0) {
    b->allowance = writer().reserve(1 << 14);
    if (b->allowance == 0) return;
  }
  --b->allowance;
  b->accesses[tl_thread->linear].push_back(LaneAccess{pc, offset, allocation, uint8_t(size),
                                                      uint8_t(atomic  ? (float_add ? 3 : 2)
                                                              : write ? 1
                                                                      : 0)});
}
}  // namespace

void record_access_for_trace(const Allocation& a, uintptr_t address, unsigned size, bool write,
                             bool atomic, bool float_add, uintptr_t pc) {
  if (!write && !atomic) {
    // A buffer the launch loads from, noted once a block (and a launch).
    BlockTrace* b = tl_block->trace;
    if (b && b->recording && b->launch && b->launch->track_loads &&
        std::find(b->loaded.begin(), b->loaded.end(), a.id) == b->loaded.end()) {
      b->loaded.push_back(a.id);
      std::lock_guard lock(b->launch->loaded_mutex);
      std::vector<uint32_t>& all = b->launch->loaded;
      if (std::find(all.begin(), all.end(), a.id) == all.end()) all.push_back(a.id);
    }
  }
  record(a.id, address - a.base, size, write, atomic, float_add, pc);
}

}  // namespace cudalab::rt

// Called by the instrumented build's constructors, one call a global
// variable of the program's (simulator/passes/source_accesses.cpp);
// `constant`: a __constant__ one.
extern "C" void __cudalab_device_global(const void* address, uint64_t size, const char* name,
                                        int constant) {
  cudalab::rt::DeviceGlobals& g = cudalab::rt::device_globals();
  std::lock_guard lock(g.mutex);
  const size_t n = g.count.load(std::memory_order_relaxed);
  if (n == cudalab::rt::kMaxDeviceGlobals || !size) return;
  const auto base = reinterpret_cast<uint64_t>(address);
  g.entries[n] = {base, size, name ? name : "", constant != 0,
                  cudalab::rt::kDeviceGlobalIds + uint32_t(n)};
  g.low.store(std::min(g.low.load(), base));
  g.high.store(std::max(g.high.load(), base + size));
  g.count.store(n + 1, std::memory_order_release);
}

namespace cudalab::rt {

const DeviceGlobal* device_global_at(uintptr_t address) {
  const DeviceGlobals& g = device_globals();
  if (address < g.low.load(std::memory_order_relaxed) ||
      address >= g.high.load(std::memory_order_relaxed))
    return nullptr;
  const size_t n = g.count.load(std::memory_order_acquire);
  for (size_t i = 0; i < n; ++i)
    if (address - g.entries[i].base < g.entries[i].size) return &g.entries[i];
  return nullptr;
}

void record_device_global_for_trace(const DeviceGlobal& g, uintptr_t address, unsigned size,
                                    bool write, bool atomic, bool float_add, uintptr_t pc) {
  std::atomic<bool>& used = device_globals().used[g.id - kDeviceGlobalIds];
  if (!used.load(std::memory_order_relaxed)) used.store(true, std::memory_order_relaxed);
  record(g.id, address - g.base, size, write, atomic, float_add, pc);
}

void record_constant_read_for_trace(uintptr_t address, uintptr_t pc) {
  BlockTrace* b = tl_block->trace;
  if (!b || !b->recording) return;
  b->constant_reads[tl_thread->linear].emplace_back(pc, address);
}

void record_shared_access_for_trace(bool dynamic, uint64_t offset, unsigned size, bool write,
                                    bool atomic, bool float_add, uintptr_t pc) {
  record(dynamic ? kDynamicSharedId : kStaticSharedId, offset, size, write, atomic, float_add, pc);
}

void record_stray_access_for_trace(const StrayAccess& s, uintptr_t address, unsigned size,
                                   bool write, bool atomic, uintptr_t pc) {
  if (s.buffer)
    record(s.buffer->id, address - s.buffer->base, size, write, atomic, false, pc);
  else
    record(kNoBufferId, address, size, write, atomic, false, pc);
}

void number_basic_blocks(uint32_t* first, uint32_t* last) {
  static uint32_t numbered = 0;
  if (first == last || *first) return;  // no blocks, or numbered already
  for (uint32_t* g = first; g < last; ++g) *g = ++numbered;
  if (!tracing()) return;
  TraceWriter& w = writer();
  std::vector<std::atomic<uint64_t>> bigger(numbered + 1);
  for (size_t i = 0; i < w.guard_pcs_.size(); ++i) bigger[i].store(w.guard_pcs_[i].load());
  w.guard_pcs_.swap(bigger);
}

void record_basic_block(uint32_t guard, uintptr_t pc) {
  BlockTrace* b = tl_block->trace;
  if (!b->recording) return;
  TraceWriter& w = writer();
  if (guard < w.guard_pcs_.size() && !w.guard_pcs_[guard].load(std::memory_order_relaxed))
    w.guard_pcs_[guard].store(pc, std::memory_order_relaxed);
  // Past the trace's limit of accesses, no more steps either: what the
  // threads did from there is not in the trace (and a kernel that never ends
  // would otherwise gather them until it is stopped).
  if (b->steps_overflow || w.capped()) return;
  if (++b->buffered_steps > TraceWriter::kMaxBufferedSteps) {
    // Counting them would need more memory than a trace should take.
    b->steps_overflow = b->steps_dropped = true;
    for (auto& v : b->steps) std::vector<uint32_t>().swap(v);
    return;
  }
  b->steps[tl_thread->linear].push_back(guard);
}

void trace_allocation(const Allocation& a) {
  if (!tracing()) return;
  writer().write(Record::kAllocation,
                 Payload().u32(a.id).u64(a.base).u64(a.size).str(a.site).str(a.name));
}

void trace_free(const Allocation& a) {
  if (!tracing()) return;
  writer().write(Record::kFree, Payload().u32(a.id));
}

void trace_finding(const Launch& l, const std::string& json) {
  if (!tracing()) return;
  writer().write(Record::kFinding, Payload().u32(l.id).str(json));
}

void trace_launch_begin(const Launch& l) {
  if (!tracing()) return;
  Payload p;
  p.u32(l.id).str(l.site.kernel).str(l.site.file).u32(uint32_t(l.site.line));
  p.u32(l.grid.x).u32(l.grid.y).u32(l.grid.z).u32(l.block.x).u32(l.block.y).u32(l.block.z);
  p.u64(l.shmem);
  // The code that runs a thread of it: launches from one call (a template's
  // or a macro's) of other kernels have other code.
  p.u64(reinterpret_cast<uint64_t>(l.body));
  writer().write(Record::kLaunch, p);
}

void trace_launch_end(const Launch& l) {
  if (!tracing()) return;
  if (const uint32_t uses = l.uses.load())
    writer().write(Record::kUses, Payload().u32(l.id).u32(uses));
  if (!l.sample.empty() || l.sample_repeat) {
    // The blocks that ran (CUDALAB_TRACE_SAMPLE): the others did nothing
    // (a repeat of a launch traced already: none ran).
    Payload s;
    const uint32_t ran = l.sample_repeat ? 0 : uint32_t(l.sample.size());
    s.u32(l.id).u32(ran);
    for (uint32_t i = 0; i < ran; ++i) s.u32(l.sample[i]);
    writer().write(Record::kSample, s);
  }
  writer().end_launch(l);
}

uint64_t trace_accesses_recorded() { return tracing() ? writer().recorded() : 0; }

}  // namespace cudalab::rt
