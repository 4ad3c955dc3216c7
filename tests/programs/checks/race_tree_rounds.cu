// racecheck corpus (beyond compute-sanitizer): a tree reduction in shared
// memory that waits once after the loads but not between its rounds, so
// a thread adds partial[tid + s] before the thread that owns it has
// finished the round before. The fix is a __syncthreads() at the end of the
// loop body (not a read into a variable: the line reads another thread's
// element, not its own).
// expect: racecheck write-after-read race_tree_rounds.cu:16
#include <cstdio>

__global__ void tree_sum(float* data) {
  __shared__ float partial[256];
  const unsigned tid = threadIdx.x;
  partial[tid] = data[tid];
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) partial[tid] += partial[tid + s];
  }
  if (tid == 0) data[0] = partial[0];
}

int main() {
  float* data;
  cudaMalloc(&data, 256 * sizeof(float));
  cudaMemset(data, 0, 256 * sizeof(float));
  tree_sum<<<1, 256>>>(data);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(data);
  return 0;
}
