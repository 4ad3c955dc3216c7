// Benchmark program: a small CUDA program for "cudalab-cc compiles and runs
// it" timing.
#include <cstdio>

__global__ void square(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * x[i];
}

int main() {
  int h[100];
  for (int i = 0; i < 100; ++i) h[i] = i;
  int* d;
  cudaMalloc(&d, sizeof(h));
  cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice);
  square<<<1, 128>>>(d, 100);
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  std::printf("99^2 = %d\n", h[99]);
  cudaFree(d);
  return 0;
}
