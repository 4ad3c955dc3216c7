// What the memory views show of one launch, computed once per launch (and
// row width) rather than per frame or per click: traces hold millions of
// accesses. No drawing here, so the unit tests reach it.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "cudalab/trace/test_results.h"
#include "cudalab/trace/trace.h"

namespace cudalab::viz {

// One buffer's heatmap: `cells` cells of `per_cell` 4-byte elements, the
// last possibly partial. For each cell, the block and the thread that last
// touched it (-1: untouched) and every access to it, in the launch's order.
struct BufferMap {
  const trace::Allocation* allocation = nullptr;
  uint64_t per_cell = 1;
  size_t cells = 0;
  std::vector<int64_t> last_block, last_thread;
  // The block and thread that last wrote each cell (-1: no thread wrote
  // it): what a wrong value is coloured by, since a neighbour's read of it
  // (a halo) would otherwise give it the reader's colour.
  std::vector<int64_t> last_writer_block, last_writer_thread;
  std::vector<uint32_t> first;    // cells + 1 entries: the cell's accesses in `touches`
  std::vector<uint64_t> touches;  // by cell, each cell's in order (see access_of)
  // Accesses that missed it (past its end, or before its start).
  std::vector<trace::Access> missed;
  uint64_t missed_count = 0;
};

struct LaunchMemory {
  std::vector<BufferMap> buffers;        // in the trace's allocation order
  std::vector<trace::Access> no_buffer;  // null and wild pointers, host memory (the first 256)
  uint64_t no_buffer_count = 0;
  // Each block's requests (indices into the launch's), so that selecting a
  // thread reads its block's alone.
  std::vector<uint32_t> block_first;  // grid blocks + 1 entries
  std::vector<uint32_t> block_requests;
};

// At most `max_cells` cells a buffer (each cell one element when it has no
// more elements than that); `max_touches`: accesses kept for the hover
// lists in all (beyond it, cells list none and say so).
LaunchMemory launch_memory(const trace::Trace& t, const trace::Launch& l, uint64_t max_cells,
                           size_t max_touches = size_t(1) << 24);

// The access a `touches` entry stands for.
trace::Access access_of(const trace::Launch& l, uint64_t touch);

// The selected thread's accesses, in its order.
// `requests` (when given) gets the request (warp instruction) of each.
std::vector<trace::Access> thread_accesses(const trace::Launch& l, const LaunchMemory& m,
                                           uint32_t block, uint32_t thread,
                                           std::vector<uint32_t>* requests = nullptr);

// The thread a launch that never ended is shown by (block, thread, both
// linear): the one the watchdog found, when the trace holds enough of its
// accesses to show what it went round (16), else the busiest thread of
// the first block recorded (recording stops at its limit, often before the
// found thread's turn).
std::pair<uint32_t, uint32_t> stopped_thread(const trace::Launch& l);

// Where a graded test's wrong elements fall in a launch's heatmaps: per
// buffer of `m`, per cell, the comparison (index into `compared`) and its
// first listed wrong element in the cell (-1: its values are not listed);
// comparison -1: none. An array compared
// more than once counts as its last comparison says (its final values).
struct WrongCell {
  int32_t comparison = -1;
  int32_t element = -1;  // index into the comparison's elements, -1: none listed
};
std::vector<std::vector<WrongCell>> wrong_cells(const LaunchMemory& m,
                                                const std::vector<trace::Comparison>& compared);

// The last launch whose requests touched allocation `id`; -1 when none did.
int last_launch_touching(const trace::Trace& t, uint32_t id);

// One block's accesses phase by phase (a phase runs from one
// __syncthreads() to the next), for stepping through what it did: global
// buffers and its shared memory.
struct BlockSteps {
  uint32_t phases = 0;
  // Per phase, the block's accesses in the order its warps made them.
  std::vector<std::vector<trace::Access>> by_phase;
  // Per phase, its warp instructions (requests) in that order: where each
  // one's accesses start in by_phase (the next one's start ends it).
  std::vector<std::vector<uint32_t>> instruction_first;
  // The bytes of static and dynamic shared memory it touched (from the
  // 128-byte boundary the trace counts from).
  uint64_t static_shared_bytes = 0, dynamic_shared_bytes = 0;
};

BlockSteps block_steps(const trace::Launch& l, const LaunchMemory& m, uint32_t block);

}  // namespace cudalab::viz
