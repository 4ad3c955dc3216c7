// What a launch's atomics say about a wrong result when no check finding
// does: the headline's words for two mistakes racecheck cannot see (it
// pairs plain accesses only, as compute-sanitizer's racecheck does).
// Pure: computed from the trace, for the unit tests.
#pragma once

#include <cstdint>
#include <string>

#include "cudalab/trace/trace.h"

namespace cudalab::viz {

// An atomic and a plain access of one shared-memory word by threads of one
// block in different warps, with no __syncthreads() between them (one
// phase): a count read before the block is done adding to it, or a bin
// zeroed after another thread has added to it. The first such pair of the
// launch, in words that name both lines and where the barrier goes; "" when
// there is none.
std::string shared_atomic_hazard(const trace::Trace& t, const trace::Launch& l);

// A few-element output that atomics of several threads of one warp in each
// block added to (all 32 lanes after a shuffle reduction, where only lane 0
// holds the warp's sum): in words, with the line; "" when each block's
// atomics on it come from one thread, from more than one warp, or the
// buffer `id` has more than `max_elements` elements.
std::string atomic_lanes(const trace::Trace& t, const trace::Launch& l, uint32_t id,
                         uint64_t max_elements = 64);

}  // namespace cudalab::viz
