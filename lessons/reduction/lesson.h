// Reduction: what the student's file (exercise.cu or solution.cu) provides.
// Each stage adds up the n floats of `in` (a device pointer, n >= 1) into
// *total, a single float in device memory. Blocks have kThreads threads.
//
// Every launcher takes the same arguments, so that the tests and the
// lesson's program can call them alike:
//   in       the n floats to add (cudaMalloc'd: aligned to 256 bytes)
//   scratch  room for the per-block partial sums, scratch_floats(n, blocks)
//            floats (stage 4 needs none)
//   total    where the sum goes
//   blocks   the grid of stages 3 and 4, which may be much smaller than n;
//            stages 1 and 2 launch one thread per element and ignore it
#pragma once

// The threads of a block: a power of two, so that a block's tree of sums
// halves evenly down to one value (8 levels for 256).
constexpr int kThreads = 256;

// Stage 1, interleaved addressing: each block adds its kThreads elements in
// shared memory (pairs 1 apart, then 2 apart, 4 apart, ...) and writes its
// sum to scratch; the launcher runs passes over the partial sums until one
// value is left, which goes to *total.
void launch_reduce_interleaved(const float* in, float* scratch, float* total, int n, int blocks);
// Stage 2, sequential addressing: the same passes; the first half of the
// block adds the second half's values, then the first quarter, ...
void launch_reduce_sequential(const float* in, float* scratch, float* total, int n, int blocks);
// Stage 3, the first add during the load: `blocks` blocks; each thread adds
// many elements (4 at a time, a grid apart) before the block's tree; one
// more block adds the `blocks` partial sums into *total.
void launch_reduce_grid_stride(const float* in, float* scratch, float* total, int n, int blocks);
// Stage 4, warp shuffles and one atomicAdd per block: as stage 3, but the
// last 32 values of each block are added with __shfl_down_sync and each
// block adds its sum to *total (zeroed by the launcher) with atomicAdd: one
// launch, no second pass.
void launch_reduce_shuffle(const float* in, float* scratch, float* total, int n, int blocks);

// The partial sums of stages 1 and 2: one per block per pass, until a pass
// has a single block.
inline int partial_sums_of_passes(int n) {
  int count = 0;
  do {
    n = (n + kThreads - 1) / kThreads;
    count += n;
  } while (n > 1);
  return count;
}

// The floats `scratch` must hold for any stage: the passes' partial sums, or
// one per block for stage 3.
inline int scratch_floats(int n, int blocks) {
  const int passes = partial_sums_of_passes(n);
  return passes > blocks ? passes : blocks;
}
