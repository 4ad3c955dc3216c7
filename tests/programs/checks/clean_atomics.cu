// checks corpus: a histogram counted with atomicAdd, in shared memory per
// block and then in global memory; no report.
#include <cstdio>

__global__ void histogram(const unsigned char* data, int n, unsigned* bins) {
  __shared__ unsigned local[16];
  if (threadIdx.x < 16) local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i] % 16], 1u);
  __syncthreads();
  if (threadIdx.x < 16) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

int main() {
  const int n = 10000;
  unsigned char* data;
  unsigned* bins;
  cudaMalloc(&data, n);
  cudaMalloc(&bins, 16 * sizeof(unsigned));
  cudaMemset(data, 3, n);
  cudaMemset(bins, 0, 16 * sizeof(unsigned));
  histogram<<<8, 128>>>(data, n, bins);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(data);
  cudaFree(bins);
  return 0;
}
