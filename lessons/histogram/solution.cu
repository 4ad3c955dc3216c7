// BEGIN SOLUTION
// Histogram, the reference solution: 256 bins over n bytes, three ways.
// Stage 1 adds every byte to its bin in global memory with an atomic; stage 2
// lets each block count into bins of its own in shared memory first and add
// them to the global ones once; stage 3 reads 16 bytes per load.
// EXERCISE: // Histogram: bins[v] = how many of the n bytes equal v, in three stages.
// EXERCISE: // Your task: write the bodies of the three kernels below. Read README.md first.
// EXERCISE: // Check your work with:     cudalab check histogram   (on a GPU: add --gpu)
// EXERCISE: // Run the program with it:  cudalab run histogram     (with nvcc: see driver.cu)
// END SOLUTION
#include "lesson.h"

// Stage 1, global atomics: each thread takes bytes in a grid-stride loop and
// adds 1 to each one's bin in global memory. Many threads add to the same
// bin at once, so the addition must be an atomicAdd: a plain ++ reads the
// count, adds and writes it back, and two threads that read the same count
// write back the same sum, one of their bytes lost.
__global__ void histogram_global(const unsigned char* data, int n, unsigned int* bins) {
  // TODO step 1: a grid-stride loop: start at the thread's global index and
  //              step by the number of threads in the whole grid while i < n.
  // TODO step 2: add 1 to the bin of byte data[i] with atomicAdd.
  // BEGIN SOLUTION
  const int stride = gridDim.x * blockDim.x;  // threads in the whole grid
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&bins[data[i]], 1u);
  // END SOLUTION
}

// Stage 2, privatized: each block counts its bytes into 256 bins of its own
// in shared memory, where an atomic is fast and only the block's threads
// compete, then adds each of its bins to the global one: one atomicAdd per
// bin per block instead of one per byte.
__global__ void histogram_shared(const unsigned char* data, int n, unsigned int* bins) {
  __shared__ unsigned int local[kBins];  // this block's bins
  // TODO step 1: zero local[]. A block may have fewer threads than there are
  //              bins (or more): thread t zeroes bin t, t + blockDim.x, ...
  //              Then a barrier: no thread may count before every bin is 0.
  // TODO step 2: the loop of stage 1, counting into local[] with atomicAdd
  //              (the block's threads share these bins).
  // TODO step 3: a barrier (every thread of the block has counted), then add
  //              each bin of local[] to the same bin of bins[] with atomicAdd,
  //              the bins shared among the threads as in step 1.
  // BEGIN SOLUTION
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();  // every bin is 0 before anyone counts
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();  // every thread's bytes are counted
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    if (local[b] != 0) atomicAdd(&bins[b], local[b]);  // an empty bin adds nothing
  // END SOLUTION
}

// Stage 3, wide loads: stage 2 with 16 bytes per load. The bytes are read as
// uint4s (four 32-bit words), in a grid-stride loop over the n / 16 whole
// uint4s; each word's 4 bytes are (word >> 0, 8, 16, 24) & 0xff. The last
// n % 16 bytes do not fill a uint4: the grid counts them one by one, as in
// stage 2.
__global__ void histogram_wide(const unsigned char* data, int n, unsigned int* bins) {
  __shared__ unsigned int local[kBins];
  // TODO step 1: zero local[] and wait, as in stage 2.
  // TODO step 2: a grid-stride loop over the n / 16 uint4s of data (a uint4
  //              pointer to the same bytes); count the 16 bytes of each.
  // TODO step 3: the last n % 16 bytes, from index (n / 16) * 16 on: a
  //              grid-stride loop over them, one byte per thread.
  // TODO step 4: wait, then add the block's bins to bins[], as in stage 2.
  // BEGIN SOLUTION
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const int stride = gridDim.x * blockDim.x;
  const int first = blockIdx.x * blockDim.x + threadIdx.x;
  const uint4* chunks = reinterpret_cast<const uint4*>(data);
  const int whole = n / 16;  // uint4s with all 16 bytes inside the data
  for (int c = first; c < whole; c += stride) {
    const uint4 v = chunks[c];  // one 16-byte load
    const unsigned int words[4] = {v.x, v.y, v.z, v.w};
    for (int w = 0; w < 4; ++w)
      for (int shift = 0; shift < 32; shift += 8) atomicAdd(&local[(words[w] >> shift) & 0xff], 1u);
  }
  for (int i = whole * 16 + first; i < n; i += stride) atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    if (local[b] != 0) atomicAdd(&bins[b], local[b]);
  // END SOLUTION
}

void launch_histogram_global(const unsigned char* data, int n, unsigned int* bins, int blocks,
                             int threads) {
  histogram_global<<<blocks, threads>>>(data, n, bins);
}

void launch_histogram_shared(const unsigned char* data, int n, unsigned int* bins, int blocks,
                             int threads) {
  histogram_shared<<<blocks, threads>>>(data, n, bins);
}

void launch_histogram_wide(const unsigned char* data, int n, unsigned int* bins, int blocks,
                           int threads) {
  histogram_wide<<<blocks, threads>>>(data, n, bins);
}
