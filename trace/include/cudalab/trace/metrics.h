// Memory metrics of a trace, with Nsight Compute's definitions: a request is
// one warp-level memory instruction (the lanes of a warp that executed it
// together), a sector is an aligned 32 bytes. Counted per kernel (all its
// launches) and per source line, so a student can check each figure with
// `ncu` on a GPU.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cudalab/trace/trace.h"

namespace cudalab::trace {

struct GlobalCounts {
  uint64_t requests = 0;  // warp-level instructions
  uint64_t sectors = 0;   // distinct 32-byte sectors each touched
  uint64_t bytes = 0;     // distinct bytes the active lanes asked for
  uint64_t lanes = 0;     // active lanes over all requests
  // Active lanes per memory instruction (of 32): how full the warps were.
  double lanes_per_request() const { return requests ? double(lanes) / double(requests) : 0; }
  double sectors_per_request() const { return requests ? double(sectors) / double(requests) : 0; }
  // Bytes asked for over bytes moved (sectors x 32), as a percentage
  // (Nsight Compute's smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct).
  double efficiency() const {
    return sectors ? 100.0 * double(bytes) / (32.0 * double(sectors)) : 0;
  }
  void add(const GlobalCounts& o);
};

// Shared memory: 32 banks of 4 bytes. A request's lanes are served in
// wavefronts: as many as the most distinct 4-byte words any one bank holds
// (lanes reading one word share it); 8- and 16-byte accesses go by halves
// and quarters of the warp. Conflicts are the wavefronts beyond the least
// the request could take.
struct SharedCounts {
  uint64_t requests = 0;
  uint64_t wavefronts = 0;
  uint64_t conflicts = 0;
  double wavefronts_per_request() const {
    return requests ? double(wavefronts) / double(requests) : 0;
  }
  void add(const SharedCounts& o);
};

// Warp steps: each time a warp runs a basic block of the kernel, with the
// lanes active then. Nsight Compute counts per GPU instruction; the
// simulator per basic block of the compiled kernel, so the two agree where
// the branches' parts are of like length.
struct StepCounts {
  uint64_t steps = 0;      // warp-level executions of basic blocks
  uint64_t lanes = 0;      // active lanes over all of them
  uint64_t divergent = 0;  // steps whose lanes left for different places
  // Floating-point operations of all lanes (an add or a multiply 1, a fused
  // multiply-add 2), single and double precision.
  uint64_t flops_single = 0, flops_double = 0;
  uint64_t flops() const { return flops_single + flops_double; }
  // Active lanes per step, of 32
  // (smsp__thread_inst_executed_per_inst_executed.ratio).
  double lanes_per_step() const { return steps ? double(lanes) / double(steps) : 0; }
  double efficiency() const { return 100.0 * lanes_per_step() / 32.0; }
  void add(const StepCounts& o);
};

// The figures of one request, as the per-line figures count it.
GlobalCounts request_global_counts(const Trace& t, const Launch& l, const Request& r);
SharedCounts request_shared_counts(const Launch& l, const Request& r);

struct LineMetrics {
  std::string where;              // "file.cu:12"
  bool simulator_header = false;  // a line of cudalab's own headers, not the program's
  GlobalCounts loads, stores, atomics;
  SharedCounts shared_loads, shared_stores;
  StepCounts steps;
};

// The most accesses any one thread made (a thread doing far more than the
// others is a load imbalance).
struct PerThreadMost {
  uint64_t global_reads = 0, global_writes = 0, shared_reads = 0, shared_writes = 0;
};

struct KernelMetrics {
  std::string kernel;
  uint64_t launches = 0;
  bool flops_counted = false;  // the trace has the kernel's floating-point operations
  PerThreadMost most;
  GlobalCounts loads, stores;
  GlobalCounts atomics;  // atomicAdd and friends on global memory (not in stores)
  SharedCounts shared_loads, shared_stores;
  StepCounts steps;
  std::vector<LineMetrics> lines;  // in source order
  // FLOPs per byte moved between L1 and L2 (global sectors x 32).
  double arithmetic_intensity() const {
    const uint64_t bytes = 32 * (loads.sectors + stores.sectors);
    return bytes ? double(steps.flops()) / double(bytes) : 0;
  }
};

// The metrics of every kernel of the trace, in the order of first launch.
std::vector<KernelMetrics> memory_metrics(const Trace& t);
// The same for one launch.
KernelMetrics launch_metrics(const Trace& t, const Launch& l);

}  // namespace cudalab::trace
