// synccheck corpus: threads past n return before the block's barrier.
#include <cstdio>

__global__ void shift(const float* in, float* out, int n) {
  __shared__ float tile[64];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;  // the last block's extra threads leave...
  tile[threadIdx.x] = in[i];
  __syncthreads();  // line 9: ...so this barrier is reached by part of the block
  out[i] = tile[(threadIdx.x + 1) % blockDim.x];
}

int main() {
  const int n = 100;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemset(in, 0, n * sizeof(float));
  shift<<<2, 64>>>(in, out, n);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
// expect: synccheck partial partial_barrier.cu:9
