// checks corpus: each block writes its partial sum, then __threadfence()
// and an atomic counter let the last block to finish add them all up
// (the pattern of NVIDIA's threadFenceReduction sample); no report.
#include <cstdio>

__device__ unsigned done_blocks = 0;

__global__ void sum(const float* x, float* partial, float* total) {
  __shared__ float s[64];
  __shared__ bool last;
  const unsigned t = threadIdx.x;
  s[t] = x[blockIdx.x * 64 + t];
  __syncthreads();
  for (unsigned k = 32; k > 0; k /= 2) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();  // the partial sum is visible before the count goes up
    last = atomicInc(&done_blocks, gridDim.x) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && t == 0) {
    float all = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) all += partial[b];
    *total = all;
  }
}

int main() {
  const int blocks = 16;
  float *x, *partial, *total;
  cudaMalloc(&x, blocks * 64 * sizeof(float));
  cudaMalloc(&partial, blocks * sizeof(float));
  cudaMalloc(&total, sizeof(float));
  cudaMemset(x, 0, blocks * 64 * sizeof(float));
  sum<<<blocks, 64>>>(x, partial, total);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(x);
  cudaFree(partial);
  cudaFree(total);
  return 0;
}
