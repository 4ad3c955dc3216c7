// A sample of a launch's blocks (CUDALAB_TRACE_SAMPLE): which blocks run,
// chosen across the grid so that every kind of block is in it, and how
// many blocks of the whole grid each sampled block stands for. The
// simulator runs the sample; a prediction scales what it counted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cudalab::trace {

// The grid's blocks fall into classes by position: in each dimension the
// first index, the last, and those between (edge blocks often do other
// work: a partial tile, a bounds check, a halo at the border). Each class
// gets a share of `wanted` as large as its share of the grid, at least one
// block, spread evenly through it. Linear block numbers in the order to run
// them: one of each class first (a run cut short still has every kind),
// then the others by number; every block, in order, when `wanted` is 0 or
// at least the grid's size.
std::vector<uint32_t> sample_blocks(uint32_t gx, uint32_t gy, uint32_t gz, uint64_t wanted);
// How many classes the grid's blocks fall into (the first blocks of a
// sample, one of each).
size_t sample_kinds(uint32_t gx, uint32_t gy, uint32_t gz);

// For each block of `sample` (as sample_blocks gave it, or any part of
// that, or any list of distinct blocks), the number of the grid's blocks it stands for: its class's
// size over the class's blocks in the sample. A class with no block in the
// sample is left out (its weight goes nowhere).
std::vector<double> sample_weights(uint32_t gx, uint32_t gy, uint32_t gz,
                                   const std::vector<uint32_t>& sample);

}  // namespace cudalab::trace
