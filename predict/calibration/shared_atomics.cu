// Atomics in shared memory on a GPU (and on 16 global bins), by the type
// of their values and how lanes meet: an integer counter of a block, a
// float total of a block (back to back: the block's warps wait for each
// other), integers that meet by their data, each thread's own integer and
// float counter, 256 bins of random keys; 16M keys into 16 global bins of
// floats and of integers. 1056 blocks of 256, each thread 256 atomics;
// CUDA events, the best of 5. Integers in shared memory are one atomic
// instruction (ATOMS.POPC.INC for an increment), floats a loop of
// compare-and-swap (ATOMS.CAST.SPIN: cuobjdump -sass shows it). What the
// model's shared-memory atomics (predict/README.md) are checked against:
//   nvcc -O3 -arch=sm_90 shared_atomics.cu -o shared_atomics && ./shared_atomics
#include <cstdio>
#include <vector>

#include "probe_timing.h"
// Each block: 256 threads, loops `times` times doing a shared atomic, then one global write.
__global__ void s_int_counter(int times, unsigned* out) {
  __shared__ unsigned c;
  if (threadIdx.x == 0) c = 0;
  __syncthreads();
  for (int k = 0; k < times; ++k) atomicAdd(&c, 1u);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = c;
}
__global__ void s_float_total(int times, float* out) {
  __shared__ float c;
  if (threadIdx.x == 0) c = 0;
  __syncthreads();
  for (int k = 0; k < times; ++k) atomicAdd(&c, 1.0f);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = c;
}
__global__ void s_int_by_data(const int* keys, int times, unsigned* out) {
  __shared__ unsigned c[32];
  if (threadIdx.x < 32) c[threadIdx.x] = 0;
  __syncthreads();
  const int key = keys[threadIdx.x];
  for (int k = 0; k < times; ++k) atomicAdd(&c[key], 1u);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = c[0];
}
__global__ void s_int_own(int times, unsigned* out) {
  __shared__ unsigned c[256];
  c[threadIdx.x] = 0;
  __syncthreads();
  for (int k = 0; k < times; ++k) atomicAdd(&c[threadIdx.x], 1u);
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = c[threadIdx.x];
}
__global__ void s_float_own(int times, float* out) {
  __shared__ float c[256];
  c[threadIdx.x] = 0;
  __syncthreads();
  for (int k = 0; k < times; ++k) atomicAdd(&c[threadIdx.x], 1.0f);
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = c[threadIdx.x];
}
__global__ void s_bins_random(const int* keys, int times, unsigned* out) {
  __shared__ unsigned c[256];
  c[threadIdx.x] = 0;
  __syncthreads();
  for (int k = 0; k < times; ++k) atomicAdd(&c[keys[(threadIdx.x + k * 256) & 65535]], 1u);
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = c[threadIdx.x];
}
__global__ void g_float_16bins(const int* keys, int n, float* bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[keys[i] & 15], 1.0f);
}
__global__ void g_int_16bins(const int* keys, int n, unsigned* bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[keys[i] & 15], 1u);
}
int main() {
  const int blocks = 132 * 8, times = 256, n = 1 << 24;
  unsigned* out;
  int *zeros, *keys;
  cudaMalloc(&out, size_t(blocks) * 256 * 4);
  cudaMalloc(&zeros, 65536 * 4);
  cudaMalloc(&keys, n * 4);
  cudaMemset(zeros, 0, 65536 * 4);
  std::vector<int> h(n);
  unsigned x = 7;
  for (int i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    h[i] = (x >> 8) & 255;
  }
  cudaMemcpy(keys, h.data(), n * 4, cudaMemcpyHostToDevice);
  auto time = [&](const char* name, auto f) {
    const float best = best_ms(
        5, [] {}, f);
    std::printf("%-14s %9.3f us\n", name, best * 1e3);
  };
  time("s_int_counter", [&] { s_int_counter<<<blocks, 256>>>(times, out); });
  time("s_float_total", [&] { s_float_total<<<blocks, 256>>>(times, (float*)out); });
  time("s_int_by_data", [&] { s_int_by_data<<<blocks, 256>>>(zeros, times, out); });
  time("s_int_own", [&] { s_int_own<<<blocks, 256>>>(times, out); });
  time("s_float_own", [&] { s_float_own<<<blocks, 256>>>(times, (float*)out); });
  time("s_bins_random", [&] { s_bins_random<<<blocks, 256>>>(keys, times, out); });
  time("g_float_16bins", [&] { g_float_16bins<<<blocks, 256>>>(keys, n, (float*)out); });
  time("g_int_16bins", [&] { g_int_16bins<<<blocks, 256>>>(keys, n, out); });
  std::printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
