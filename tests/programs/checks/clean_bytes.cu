// checks corpus: threads write neighbouring bytes of one word (chars in
// global memory, per-thread byte counters in shared memory); no report.
#include <cstdio>

__global__ void flags(const int* x, char* positive, int n) {
  __shared__ unsigned char counts[128];
  counts[threadIdx.x] = 0;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    positive[i] = x[i] > 0;
    counts[threadIdx.x] += positive[i];
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    int total = 0;
    for (int t = 0; t < 128; ++t) total += counts[t];
    positive[n + blockIdx.x] = char(total);
  }
}

int main() {
  const int n = 1000, blocks = (n + 127) / 128;
  int* x;
  char* positive;
  cudaMalloc(&x, n * sizeof(int));
  cudaMalloc(&positive, n + blocks);
  cudaMemset(x, 0, n * sizeof(int));
  flags<<<blocks, 128>>>(x, positive, n);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(x);
  cudaFree(positive);
  return 0;
}
