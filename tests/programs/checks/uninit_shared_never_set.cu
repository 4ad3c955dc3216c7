// initcheck corpus: each thread adds into counts[threadIdx.x] (line 10),
// which no line sets first: shared memory starts with whatever was there,
// not 0. The finding says nothing gives the array its values.
// expect: initcheck uninitialized uninit_shared_never_set.cu:10
#include <cstdio>

__global__ void count_positive(const float* x, int n, unsigned* total) {
  __shared__ unsigned counts[128];
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    counts[threadIdx.x] += x[i] > 0.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned sum = 0;
    for (int t = 0; t < blockDim.x; ++t) sum += counts[t];
    *total = sum;
  }
}

int main() {
  const int n = 1000;
  float* x;
  unsigned* total;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&total, sizeof(unsigned));
  cudaMemset(x, 0, n * sizeof(float));
  count_positive<<<1, 128>>>(x, n, total);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(total);
  cudaFree(x);
  return 0;
}
