// Reduction: the sum of n floats, in four stages (README.md explains each).
// Your task: write the bodies of the kernels below, one stage at a time.
// Check your work with:     cudalab check reduction   (on a GPU: add --gpu)
// Run the program with it:  cudalab run reduction     (with nvcc: see driver.cu)
#include "lesson.h"

// Stage 1, interleaved addressing: a tree of sums in shared memory, where in
// round s (1, 2, 4, ...) every thread whose index is a multiple of 2 s adds
// the value s places further on to its own. Right, but in each round fewer
// lanes of every warp work: the others idle (divergent warps).
__global__ void reduce_interleaved(const float* in, float* out, int n) {
  __shared__ float partial[kThreads];
  // TODO step 1: this thread's element goes to partial[threadIdx.x]; a thread
  //              past the end of the array (the last block) puts 0 there.
  // TODO step 2: wait until the whole block has stored (__syncthreads), then
  //              the rounds s = 1, 2, 4, ... while s < blockDim.x: the threads
  //              whose threadIdx.x is a multiple of 2 * s add the value s
  //              places further on to theirs. Every thread waits at a barrier
  //              after every round, also those that added nothing.
  // TODO step 3: partial[0] is now the block's sum: thread 0 writes it to
  //              out[blockIdx.x].
}

// Stage 2, sequential addressing: the same tree, with the work packed into
// the first threads. The first half of the block adds the second half's
// values to theirs, then the first quarter adds the second quarter's, ...
// Whole warps work or whole warps rest until fewer than 32 threads are left,
// and neighbouring lanes read neighbouring words (no bank conflicts).
__global__ void reduce_sequential(const float* in, float* out, int n) {
  __shared__ float partial[kThreads];
  // TODO step 1: as in stage 1, the element (or 0) into partial[threadIdx.x].
  // TODO step 2: the rounds s = blockDim.x / 2, then s / 2, ... down to 1:
  //              threads below s add the value s places further on to theirs.
  //              A barrier after every round, reached by every thread.
  // TODO step 3: thread 0 writes the block's sum to out[blockIdx.x].
}

// Stage 3, the first add during the load: a grid much smaller than the array
// (a few blocks per multiprocessor). Each thread first walks through the
// array a whole grid at a time, loading 4 neighbouring floats with one
// 16-byte load (a float4) and adding them to its own running sum in a
// register; only then does the block add its threads' sums as in stage 2.
// Most additions happen in registers, and each load brings 16 bytes: more
// bytes on their way from memory at any time.
__global__ void reduce_grid_stride(const float* in, float* out, int n) {
  // TODO step 1: a __shared__ array of one float per thread of the block.
  // TODO step 2: see in as n / 4 float4s (reinterpret_cast: cudaMalloc'd
  //              memory is aligned to 16 bytes). Start at the thread's global
  //              index, add the 4 floats of each float4 to a running sum, and
  //              move on by the number of threads in the grid until past n / 4.
  // TODO step 3: the last n % 4 floats do not fill a float4: add them one
  //              by one, each by one thread, with the same kind of loop.
  // TODO step 4: the running sum goes to shared memory; then stage 2's tree
  //              and thread 0 writes out[blockIdx.x].
}

// Stage 4, warp shuffles and atomics: stage 3's loads, and the tree in
// shared memory only down to 64 values. The first warp adds those in pairs
// and finishes in registers: __shfl_down_sync hands each lane the value of
// the lane `offset` further on, with no shared memory and no barrier (the 32
// lanes of a warp step together). Lane 0 then adds the block's sum to *total
// with one atomicAdd, so no second pass is needed.
__global__ void reduce_shuffle(const float* in, float* total, int n) {
  // TODO step 1: stage 3's steps 1 to 3: the block's threads' running sums.
  // TODO step 2: stage 2's tree while s > 32, so that 64 values are left.
  // TODO step 3: the first warp (threadIdx.x < 32): each lane adds its two
  //              values of the 64, then the lanes add their values with
  //              __shfl_down_sync(0xffffffff, ...), offsets 16, 8, 4, 2, 1.
  //              Lane 0 ends with the block's sum.
  // TODO step 4: thread 0 adds it to *total: every block adds to the same
  //              float at the same time, so only atomicAdd may do it.
}

// Stages 1 and 2: one thread per element, so each pass leaves one partial
// sum per block; the next pass adds those, until a pass has one block, whose
// sum goes to *total (3 passes for 16M floats: 65,536 sums, then 256, then 1).
static void run_passes(int stage, const float* in, float* scratch, float* total, int n) {
  do {
    const int blocks = (n + kThreads - 1) / kThreads;
    float* out = blocks == 1 ? total : scratch;
    if (stage == 1)
      reduce_interleaved<<<blocks, kThreads>>>(in, out, n);
    else
      reduce_sequential<<<blocks, kThreads>>>(in, out, n);
    in = out;
    scratch += blocks;
    n = blocks;
  } while (n > 1);
}

void launch_reduce_interleaved(const float* in, float* scratch, float* total, int n, int) {
  run_passes(1, in, scratch, total, n);
}

void launch_reduce_sequential(const float* in, float* scratch, float* total, int n, int) {
  run_passes(2, in, scratch, total, n);
}

// Stage 3: `blocks` partial sums, then one block adds them.
void launch_reduce_grid_stride(const float* in, float* scratch, float* total, int n, int blocks) {
  reduce_grid_stride<<<blocks, kThreads>>>(in, scratch, n);
  reduce_grid_stride<<<1, kThreads>>>(scratch, total, blocks);
}

// Stage 4: the blocks add to *total, so it must start at 0: that is the
// host's job, before the launch (a kernel cannot know it runs first).
void launch_reduce_shuffle(const float* in, float*, float* total, int n, int blocks) {
  cudaMemsetAsync(total, 0, sizeof(float));
  reduce_shuffle<<<blocks, kThreads>>>(in, total, n);
}
