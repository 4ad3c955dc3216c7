// checks corpus: a sum with warp shuffles, one atomicAdd per warp; no report.
#include <cstdio>

__global__ void sum(const float* x, int n, float* total) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(total, v);
}

int main() {
  const int n = 5000;
  float *x, *total;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&total, sizeof(float));
  cudaMemset(x, 0, n * sizeof(float));
  cudaMemset(total, 0, sizeof(float));
  sum<<<(n + 255) / 256, 256>>>(x, n, total);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(x);
  cudaFree(total);
  return 0;
}
