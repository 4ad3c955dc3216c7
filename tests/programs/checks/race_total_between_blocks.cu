// racecheck corpus: thread 0 of each block adds its block's sum to a
// one-word total with a plain +=, so two blocks can read the same old total
// and one block's sum is lost. Use atomicAdd(total, partial[0]).
// The input is allocated before the total: a picture of the trace must
// still lead with the total, the buffer the race is on.
// expect: racecheck write-after-read race_total_between_blocks.cu:20
#include <cstdio>

__global__ void block_sums(const float* in, float* total, int n) {
  __shared__ float partial[256];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const float sum = partial[0];
    *total += sum;
  }
}

int main() {
  const int n = 1 << 16;
  float *in, *total;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&total, sizeof(float));
  cudaMemset(in, 0, n * sizeof(float));
  cudaMemset(total, 0, sizeof(float));
  block_sums<<<n / 256, 256>>>(in, total, n);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(total);
  cudaFree(in);
  return 0;
}
