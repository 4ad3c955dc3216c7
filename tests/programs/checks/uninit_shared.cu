// initcheck corpus: a tile of 34 values (the block's 32 and a halo of one
// on each side) whose halo is never loaded.
// expect: initcheck uninitialized uninit_shared.cu:12
#include <cstdio>

__global__ void blur(const float* in, float* out, int n) {
  __shared__ float tile[34];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x + 1] = in[i];
  // Missing: threads 0 and 31 also load tile[0] and tile[33].
  __syncthreads();
  out[i] = (tile[threadIdx.x] + tile[threadIdx.x + 1] + tile[threadIdx.x + 2]) / 3;
}

int main() {
  const int n = 256;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemset(in, 0, n * sizeof(float));
  blur<<<n / 32, 32>>>(in, out, n);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(in);
  cudaFree(out);
  return 0;
}
