// memcheck corpus: a kernel reads a buffer the host has already freed.
#include <cstdio>

__global__ void sum(const float* x, float* out) { atomicAdd(out, x[threadIdx.x]); }  // line 4

int main() {
  float *x, *out;
  cudaMalloc(&x, 32 * sizeof(float));
  cudaMalloc(&out, sizeof(float));
  cudaFree(x);
  sum<<<1, 32>>>(x, out);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(out);
  return 0;
}
// expect: memcheck use-after-free use_after_free.cu:4
