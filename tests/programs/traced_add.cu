// A small vector add for the trace tests: 100 elements, 2 blocks of 64.
#include <cstdio>

__global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 100;
  float *a, *b, *c;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&c, n * sizeof(float));
  cudaMemset(a, 0, n * sizeof(float));
  cudaMemset(b, 0, n * sizeof(float));
  add<<<2, 64>>>(a, b, c, n);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("traced_add: %s\n", cudaGetErrorString(e));
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return e == cudaSuccess ? 0 : 1;
}
