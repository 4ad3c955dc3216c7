// Benchmark program: a sum of 16M floats as course code writes it: a thread
// an element, five shuffles sum a warp, one partial a warp through shared
// memory, the first warp's five shuffles sum those, and one atomicAdd a
// block. 256 threads a block, 65,536 blocks: 16M threads, each with 5 or 10
// warp operations and a barrier (block loops the runtime schedules, or a
// fiber per thread).
#include <cstdio>
#include <vector>

#include "bench_data.h"

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void block_sum(const float* in, float* total, int n) {
  __shared__ float partial[32];
  float v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    v += in[i];
  v = warp_sum(v);
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = warp_sum(lane < (blockDim.x + 31) / 32 ? partial[lane] : 0.0f);
    if (lane == 0) atomicAdd(total, v);
  }
}

int main() {
  const int n = 1 << 24, threads = 256, blocks = n / threads;
  std::vector<float> in(n);
  fill_block_sum_input(in);
  float *d_in, *d_total;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_total, sizeof(float));
  cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_total, 0, sizeof(float));
  block_sum<<<blocks, threads>>>(d_in, d_total, n);
  float total = 0;
  cudaMemcpy(&total, d_total, sizeof(float), cudaMemcpyDeviceToHost);
  double want = 0;
  for (float v : in) want += v;
  std::printf("block sum of %d floats: %.0f (CPU: %.0f)\n", n, double(total), want);
  return double(total) != want;
}
