// Softmax over the rows of a matrix, in four stages (README.md explains each).
// Your task: write the bodies of the kernels below, one stage at a time.
// Check your work with:     cudalab check softmax   (on a GPU: add --gpu)
// Run the program with it:  cudalab run softmax     (with nvcc: see driver.cu)
#include <cmath>

#include "lesson.h"

// Stage 1, a thread per row: thread `row` walks its row three times: for
// the largest value m, for the sum of exp(x - m), and to write
// exp(x - m) / sum. Simple, but a warp's 32 threads read 32 different rows.
__global__ void softmax_thread_per_row(const float* x, float* out, int rows, int cols) {
  // TODO step 1: row = this thread's global index; threads past the last
  //              row do nothing.
  // TODO step 2: m = the row's largest value. Start from -INFINITY, not 0:
  //              a row may be all negative.
  // TODO step 3: sum = the sum of expf(x - m) over the row.
  // TODO step 4: out = expf(x - m) / sum for every element of the row.
}

// Stage 2, a block per row: the kThreads threads of block `row` share its
// row. Thread t takes columns t, t + kThreads, t + 2 kThreads, ... (so a
// warp reads 32 neighbouring floats), keeps its own max, and the block
// combines the kThreads maxima in shared memory by halving: the first half
// of the threads takes the max of its value and the second half's, then the
// first quarter, ... with a barrier between the steps. The same again for
// the sum.
__global__ void softmax_block_per_row(const float* x, float* out, int rows, int cols) {
  __shared__ float partial[kThreads];
  // TODO step 1: this block's row; this thread's max over its columns
  //              (threadIdx.x, then every kThreads further, while < cols).
  // TODO step 2: the tree reduction of the maxima in partial[]: a barrier
  //              after storing them, then halving steps with a barrier after
  //              each, reached by every thread. partial[0] is the row's max:
  //              every thread reads it there.
  // TODO step 3: the same for the sum of expf(x - max). Before anyone
  //              overwrites partial[], everyone must have read the max.
  // TODO step 4: every thread writes expf(x - max) / sum for its columns.
}

// Stage 3's tools: the max and the sum of v over the 32 lanes of a warp,
// through registers (__shfl_xor_sync): no shared memory, no barrier. Every
// lane gets the result.
__device__ float warp_max(float v) {
  // TODO: five steps: take the max of v and the v of the lane 16 away
  //       (lane ^ 16), then 8, 4, 2, 1.
  return v;
}

__device__ float warp_sum(float v) {
  // TODO: as warp_max, with a sum.
  return v;
}

// Stage 3, warp shuffles: as stage 2, but each warp reduces its 32 values
// with warp_max / warp_sum, lane 0 of each warp puts the warp's result in
// shared memory (kWarps values), and after one barrier every warp reduces
// those kWarps values the same way: two barriers per row, where stage 2
// needs nineteen.
__global__ void softmax_warp_shuffle(const float* x, float* out, int rows, int cols) {
  __shared__ float max_of_warp[kWarps];
  __shared__ float sum_of_warp[kWarps];
  // TODO step 1: this thread's max over its columns, as in stage 2.
  // TODO step 2: the warp's max (warp_max); lane 0 (threadIdx.x % 32 == 0)
  //              stores it in max_of_warp[warp]; a barrier; then every warp
  //              takes warp_max of the kWarps values (lanes past kWarps
  //              bring -INFINITY): the row's max, in every thread.
  // TODO step 3: the same for the sum, in sum_of_warp.
  // TODO step 4: write expf(x - max) / sum for this thread's columns.
}

// Stage 4's tool: two partial softmax sums, each kept as (m, d): m the
// largest value seen, d the sum of exp(value - m) over the values seen.
// Merging (m2, d2) into (m, d): both sums are put on the larger max.
// (m = -INFINITY, d = 0 is "nothing seen yet"; two of those stay that.)
__device__ void merge(float& m, float& d, float m2, float d2) {
  // TODO: the new max is the larger of m and m2; each d is multiplied by
  //       expf(its old max - the new max). Two empty sums give an empty sum
  //       (-INFINITY - -INFINITY is NaN).
}

// Stage 4, the online softmax: one pass over the row finds the max and the
// sum together. Each thread keeps (m, d) for its columns: a value v not
// above m adds expf(v - m) to d; a value above m becomes the new max, and
// the d gathered so far, a sum on the old max, is rescaled by
// expf(m_old - v) before v's own exp(0) = 1 is added. The block then merges
// the threads' (m, d) pairs with shuffles (merge) and one barrier, and a
// second pass writes the row. Stages 1 to 3 read the row three times.
__global__ void softmax_online(const float* x, float* out, int rows, int cols) {
  __shared__ float max_of_warp[kWarps];
  __shared__ float sum_of_warp[kWarps];
  // TODO step 1: (m, d) = (-INFINITY, 0), then the online update for each
  //              of this thread's columns.
  // TODO step 2: merge the 32 lanes' pairs: five steps of merge with the
  //              pair of lane ^ 16, 8, 4, 2, 1 (__shfl_xor_sync of m and d).
  // TODO step 3: lane 0 stores its warp's pair in shared memory; a barrier;
  //              every warp merges the kWarps pairs the same way.
  // TODO step 4: the second pass: expf(x - m) / d for this thread's columns.
}

// The launches. Stage 1: a thread per row, blocks of kThreads. Stages 2 to
// 4: a block of kThreads threads per row.
void launch_softmax_thread_per_row(const float* x, float* out, int rows, int cols) {
  softmax_thread_per_row<<<(rows + kThreads - 1) / kThreads, kThreads>>>(x, out, rows, cols);
}

void launch_softmax_block_per_row(const float* x, float* out, int rows, int cols) {
  softmax_block_per_row<<<rows, kThreads>>>(x, out, rows, cols);
}

void launch_softmax_warp_shuffle(const float* x, float* out, int rows, int cols) {
  softmax_warp_shuffle<<<rows, kThreads>>>(x, out, rows, cols);
}

void launch_softmax_online(const float* x, float* out, int rows, int cols) {
  softmax_online<<<rows, kThreads>>>(x, out, rows, cols);
}
