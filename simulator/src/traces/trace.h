// The trace writer (CUDALAB_TRACE): launches, allocations and accesses as
// threads make them, grouped per block into warp requests and steps
// (trace.cpp), and the floating-point operations of each basic block
// (float_ops.cpp). Not a public header.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cudalab/trace/format.h"

namespace cudalab::rt {

struct Allocation;
struct Launch;
struct BlockContext;
struct BlockTrace;
struct StrayAccess;

void trace_launch_begin(const Launch& launch);
void trace_launch_end(const Launch& launch);
void trace_allocation(const Allocation& a);
void trace_free(const Allocation& a);
void trace_finding(const Launch& l, const std::string& json);
bool tracing();
// Accesses the trace has recorded (or set aside for blocks running) so far.
uint64_t trace_accesses_recorded();
// A block's shared memory as the trace names it (allocation ids).
using cudalab::trace::kDynamicSharedId;
using cudalab::trace::kNoBufferId;
using cudalab::trace::kStaticSharedId;
// Accesses of the thread running now. Shared memory is recorded under two
// allocation ids of its own, at its offset in the block's static variables
// or its dynamic shared memory.
// `float_add`: an atomic add on floating-point values, which a GPU's lanes
// make one by one (traced as kind 3).
void record_access_for_trace(const Allocation& a, uintptr_t address, unsigned size, bool write,
                             bool atomic, bool float_add, uintptr_t pc);
void record_shared_access_for_trace(bool dynamic, uint64_t offset, unsigned size, bool write,
                                    bool atomic, bool float_add, uintptr_t pc);
// An access that was a mistake (outside_device_memory's StrayAccess): at
// its offset from the buffer it missed (past its end, or before its start
// as a negative number), or under kNoBufferId at its address.
// A global variable of the program's (the instrumented build names them):
// a kernel reaches the __device__, __constant__ and __managed__ ones. A
// trace takes it for a buffer of its own (id kDeviceGlobalIds + its
// number, written at the end of the first launch that accessed it), but for the
// __constant__ ones, whose reads it counts for the constant cache.
constexpr uint32_t kDeviceGlobalIds = 0xf0000000u;
struct DeviceGlobal {
  uint64_t base = 0, size = 0;
  const char* name = "";
  bool constant = false;
  uint32_t id = 0;
};
const DeviceGlobal* device_global_at(uintptr_t address);
void record_device_global_for_trace(const DeviceGlobal& g, uintptr_t address, unsigned size,
                                    bool write, bool atomic, bool float_add, uintptr_t pc);
void record_constant_read_for_trace(uintptr_t address, uintptr_t pc);
void record_stray_access_for_trace(const StrayAccess& s, uintptr_t address, unsigned size,
                                   bool write, bool atomic, uintptr_t pc);
// A block's recording (null when there is no trace): its threads' accesses
// and basic blocks wait there until a barrier releases the block or it ends,
// when they are grouped into warp-level requests and steps.
struct BlockTraceDeleter {
  void operator()(BlockTrace* b) const;
};
BlockTrace* new_block_trace(uint32_t threads);
void trace_block_start(BlockContext& block);
// `barrier_pc`: the __syncthreads() that ended the phase (0: the block's end).
void trace_phase_end(BlockContext& block, uintptr_t barrier_pc);
// Basic blocks of instrumented code: numbered at start-up, then recorded as
// each thread runs them.
void number_basic_blocks(uint32_t* first, uint32_t* last);
void record_basic_block(uint32_t guard, uintptr_t pc);
// Floating-point operations one thread does in each basic block of the
// program, keyed by the code address its block callback returns to (what
// record_basic_block gets), for the blocks up to `last_block` (the highest
// such address wanted: the code past it is not read). False when they could
// not be counted (no objdump).
struct FloatOps {
  uint32_t single_ops = 0, double_ops = 0;
  uint32_t special_ops =
      0;  // calls of single-precision sinf, expf, ... (a GPU's special functions)
  // The block's own work in instructions (float_ops.cpp says which count):
  // an estimate of what a GPU issues for it, memory accesses apart.
  uint32_t instructions = 0;
  uint32_t double_calls = 0;  // calls of double-precision exp, log, sin, pow, ...
  // Its longest chain of dependent work, in a GPU's instructions: single
  // precision and integer, double precision (float_ops.cpp's DependentChain).
  uint32_t chain_single = 0, chain_double = 0;
  bool indirect_jump = false;  // it leaves by a jump through a table (a switch)
};
// Also, where `unrolled_loops` is given, the code spans [first, last] of
// the loops whose count is known when compiled (nvcc unrolls them).
bool count_float_ops(std::unordered_map<uintptr_t, FloatOps>& per_block, uintptr_t last_block,
                     std::vector<std::pair<uintptr_t, uintptr_t>>* unrolled_loops = nullptr);

}  // namespace cudalab::rt
