// Reading a cudalab trace (docs/trace-format.md) into its launches,
// allocations, requests and findings. The viewer and the cudalab command
// know the simulator only through this file format, so a trace recorded on
// a grading machine opens anywhere.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cudalab/trace/format.h"

namespace cudalab::trace {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
};

struct Allocation {
  uint32_t id = 0;
  uint64_t base = 0;
  uint64_t size = 0;
  std::string site;  // where cudaMalloc was called, "file.cu:31"
  std::string name;  // the variable it filled ("d_a"), "" when not known
  bool freed = false;
};

// One warp-level memory instruction (a request, in Nsight Compute's words):
// the lanes of one warp that ran it together, between two barriers.
struct Request {
  uint32_t block = 0;  // linear block index in the grid
  uint32_t phase = 0;  // the block's barrier phase: 0 until its first __syncthreads()
  uint16_t warp = 0;   // in the block: threads warp*32 .. warp*32+31
  uint8_t size = 0;    // bytes each lane read or wrote
  uint8_t kind = 0;    // 0 read, 1 write, 2 atomic, 3 atomic add on floating-point values
  uint32_t mask = 0;   // active lanes
  uint64_t pc = 0;     // code address; Trace::sites maps it to a source line
  // The first active lane's allocation and offset; the others' are at
  // `lanes_at` in the launch's lane_data, in the encoding the format names.
  uint32_t allocation = 0;
  uint64_t offset = 0;
  size_t lanes_at = 0;
  bool write() const { return kind != 0; }  // a store, or an atomic
  bool atomic() const { return kind >= 2; }
  bool float_atomic() const { return kind == 3; }  // atomicAdd on a float or double
  // Shared memory: allocation kStaticShared or kDynamicShared, offset from a
  // 128-byte boundary at or before the block's shared variables (offset / 4
  // % 32 is the bank).
  bool shared() const { return allocation == kStaticShared || allocation == kDynamicShared; }
  static constexpr uint32_t kNoBuffer = kNoBufferId;
  int lanes() const { return __builtin_popcount(mask); }
  static constexpr uint32_t kStaticShared = kStaticSharedId, kDynamicShared = kDynamicSharedId;
};

// One lane's part of a request.
struct LaneAddress {
  uint32_t lane = 0;
  uint32_t allocation = 0;
  uint64_t offset = 0;
};

// One thread's access (a lane of a request), for views that follow threads.
struct Access {
  uint32_t block = 0;   // linear block index in the grid
  uint32_t thread = 0;  // linear thread index in the block
  uint32_t phase = 0;
  uint32_t allocation = 0;
  uint64_t offset = 0;  // bytes from the allocation's start
  uint64_t pc = 0;
  uint8_t size = 0;
  bool write = false;  // a store, or an atomic
  bool atomic = false;
  bool shared() const {
    return allocation == Request::kStaticShared || allocation == Request::kDynamicShared;
  }
};

// What a launch's warps did at one basic block of the kernel's code: how
// often a warp stepped through it, with how many active lanes in all, and
// how often its lanes left it for different places (a divergent branch).
struct WarpSteps {
  uint64_t pc = 0;
  uint64_t steps = 0, lanes = 0, divergent = 0;
  uint64_t targets = 0;  // over its divergent steps, the places its lanes went (0: not recorded)
};

// Floating-point operations one thread does in one basic block (an add or a
// multiply 1, a fused multiply-add 2).
struct FloatOps {
  uint32_t single_ops = 0, double_ops = 0;
  uint32_t special_ops = 0;   // sinf, expf, ... (a GPU's special function unit)
  uint32_t instructions = 0;  // its own work, estimated in a GPU's instructions (0: not counted)
  uint32_t double_calls = 0;  // calls of double-precision exp, log, sin, pow, ... (a GPU's library)
  // Its longest chain of dependent work, in a GPU's instructions (single
  // precision and integer; double precision), and whether it leaves
  // through a jump table (a switch).
  uint32_t chain_single = 0, chain_double = 0;
  bool indirect_jump = false;
};

// A check's finding (CUDALAB_CHECK), as the run reported it.
struct Finding {
  std::string tool, kind, where, message;
  std::string kernel;       // the kernel it was found in ("" when not said)
  uint64_t launch = 0;      // the id of the launch it was found in (0: not said)
  std::string space;        // an access's memory: "__global__" or "__shared__" ("" none)
  std::string where_other;  // a race's other access ("" when there is none)
  std::string advice;
  uint64_t count = 1;
  // The thread (linear in its block) and block (linear in the grid) it
  // names, and a race's other thread; -1 when it names none.
  int64_t thread = -1, block = -1, other_thread = -1, other_block = -1;
};

// The thread that stopped a faulted launch (a GPU would have faulted there).
struct Fault {
  bool known = false;   // false: a version 4 trace, or no fault
  uint32_t block = 0;   // linear, in the grid
  uint32_t thread = 0;  // linear, in the block
  std::string where;    // "file.cu:9", the student's line
  std::string what;     // "invalid write to address 0x0: a null pointer (...)"
  // The launch never ended: the watchdog stopped it, and `thread` of
  // `block` was at `where` then (not a fault of the thread's own).
  bool never_ended = false;
};

struct Launch {
  uint32_t id = 0;
  std::string kernel, file;
  uint32_t line = 0;
  Dim3 grid, block;
  uint64_t shared_bytes = 0;
  // The code of the launch's threads: launches from one call (a template's
  // or a macro's) of different kernels differ here; 0 in older traces.
  uint64_t code = 0;
  std::vector<Request> requests;
  std::vector<char> lane_data;  // the requests' other lanes, encoded
  std::vector<WarpSteps> steps;
  // Per block (linear) that read __constant__ variables: its warps'
  // requests and their distinct addresses (the constant reads record).
  struct ConstantReads {
    uint32_t block = 0;
    uint64_t requests = 0, addresses = 0;
  };
  std::vector<ConstantReads> constant_reads;
  uint64_t accesses = 0;  // lanes over all requests
  bool ended = false;
  bool faulted = false;
  Fault fault;  // when faulted
  uint64_t idle_threads = 0;
  std::vector<Finding> findings;
  // Whether only a sample of the blocks ran (CUDALAB_TRACE_SAMPLE), and
  // which (sample.h weighs them; none: a launch like one traced before).
  bool sampled = false;
  uint32_t uses = 0;  // kUses* bits (format.h): what a prediction leaves out
  std::vector<uint32_t> sample;

  // Each active lane of `r`, in lane order; returns how many.
  int lanes_of(const Request& r, LaneAddress out[32]) const;
  // Every lane of every request, in the order of the requests.
  template <class F>
  void for_each_access(F f) const {
    LaneAddress lanes[32];
    for (const Request& r : requests) {
      const int n = lanes_of(r, lanes);
      for (int i = 0; i < n; ++i)
        f(Access{r.block, r.warp * 32u + lanes[i].lane, r.phase, lanes[i].allocation,
                 lanes[i].offset, r.pc, r.size, r.write(), r.atomic()});
    }
  }
  std::vector<Access> all_accesses() const;
};

struct Site {
  std::string file;
  uint32_t line = 0;
};

struct Trace {
  uint32_t version = 0;
  std::string program;
  std::vector<Allocation> allocations;
  std::vector<Launch> launches;
  std::map<uint64_t, Site> sites;
  std::vector<std::string> notes;
  uint64_t accesses_total = 0;

  const Allocation* allocation(uint32_t id) const;
  // Whether a global access missed its buffer: past its end, before its
  // start, or no buffer at all (a null or wild pointer).
  bool missed(const Access& x) const;
  // "vector_add.cu:12" for an access's code address, "?" when unknown.
  std::string where(uint64_t pc) const;

  std::unordered_map<uint32_t, size_t> allocation_index;  // id -> allocations[i]
  // Per basic block (the pc of warp steps); counted is false when the run
  // could not count them.
  std::unordered_map<uint64_t, FloatOps> float_ops;
  // Code spans [first, last] of the loops whose count is known when the
  // program is compiled (a compare with a constant ends them): nvcc unrolls
  // them, so their iterations' loads do not wait for each other.
  std::vector<std::pair<uint64_t, uint64_t>> unrolled_loops;
  bool in_unrolled_loop(uint64_t pc) const;
  bool float_ops_counted = false;
};

class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws TraceError with a message that names the problem and the way out.
Trace read_trace(const std::string& path);
// The same for a trace's bytes; `path` names it in the errors.
Trace parse_trace(const std::vector<char>& data, const std::string& path);

// A check finding's JSON object (a CUDALAB_CHECK_JSON report's, a trace's
// finding record's) as a finding of launch `l`; false when it is not one.
bool finding_from_json(const std::string& text, const Launch& l, Finding* f);

// Block and thread coordinates from linear indices.
Dim3 unflatten(uint32_t linear, const Dim3& dims);

}  // namespace cudalab::trace
