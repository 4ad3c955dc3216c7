// initcheck corpus: shared bins zeroed (line 11) and counted into with
// atomics (line 13) with no __syncthreads() between: thread 0 adds to a bin
// that thread 63 has not zeroed yet. The finding says the barrier is
// missing after line 11. (racecheck, like compute-sanitizer's, does not
// pair the atomic with the plain store.)
// expect: initcheck uninitialized uninit_shared_no_barrier.cu:13
#include <cstdio>

__global__ void histogram(const unsigned char* data, int n, unsigned* bins) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

int main() {
  const int n = 1024;
  unsigned char host[n];
  for (int i = 0; i < n; ++i) host[i] = static_cast<unsigned char>(255 - i % 256);
  unsigned char* data;
  unsigned* bins;
  cudaMalloc(&data, n);
  cudaMalloc(&bins, 256 * sizeof(unsigned));
  cudaMemcpy(data, host, n, cudaMemcpyHostToDevice);
  cudaMemset(bins, 0, 256 * sizeof(unsigned));
  histogram<<<1, 64>>>(data, n, bins);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(bins);
  cudaFree(data);
  return 0;
}
