// Reduction: the four stages of the lesson, in order, for the lesson's
// program (driver.cu) and its graded tests (grade.cu). Each row is
//
//   STAGE(number, what the program calls it, the kernel, its launcher)
//
// and each file makes its own table from the rows, with its own STAGE.
#pragma once

#include "lesson.h"

#define REDUCTION_STAGES(STAGE)                                                        \
  STAGE(1, "interleaved", reduce_interleaved, launch_reduce_interleaved)               \
  STAGE(2, "sequential", reduce_sequential, launch_reduce_sequential)                  \
  STAGE(3, "first add during the load", reduce_grid_stride, launch_reduce_grid_stride) \
  STAGE(4, "warp shuffles + atomicAdd", reduce_shuffle, launch_reduce_shuffle)

// The levels of a block's tree: log2(kThreads).
constexpr int kTreeLevels = [] {
  int levels = 0;
  for (int t = kThreads; t > 1; t /= 2) ++levels;
  return levels;
}();

// The most additions an element goes through on its way to the total in
// `stage` (for sum_tolerance in reference.h), when n floats are added by
// `blocks` blocks (stages 3 and 4).
inline int longest_chain(int stage, int n, int blocks) {
  if (stage <= 2) {  // a tree per pass
    int passes = 0;
    do {
      n = (n + kThreads - 1) / kThreads;
      ++passes;
    } while (n > 1);
    return kTreeLevels * passes;
  }
  // A thread's loop: one addition per float4 it loads, 2 inside a float4,
  // one for a last float; then the block's tree.
  const auto loop = [](int count, int threads) { return (count / 4 + threads - 1) / threads + 3; };
  const int first_pass = loop(n, blocks * kThreads) + kTreeLevels;
  if (stage == 3) return first_pass + loop(blocks, kThreads) + kTreeLevels;
  return first_pass + blocks;  // stage 4: the blocks' atomicAdds, one after another
}
