// memcheck corpus: one element past the end (no bounds check).
#include <cstdio>

__global__ void fill(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  x[i] = 1.0f;  // line 6: threads past n write past the end
}

int main() {
  const int n = 1000;
  float* x;
  cudaMalloc(&x, n * sizeof(float));
  fill<<<4, 256>>>(x, n);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("after: %s\n", cudaGetErrorName(e));
  return 0;
}
// expect: memcheck write oob_write.cu:6
