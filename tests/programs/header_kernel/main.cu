// A kernel, its launch and dynamic shared memory in a local header (a .cuh,
// as many courses and libraries keep them): cudalab-cc and a CMake build
// must both rewrite the header.
#include <cstdio>

#include "reverse.cuh"

int main() {
  const int n = 256;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  int* d;
  cudaMalloc(&d, sizeof(h));
  cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice);
  reverse_on_gpu(d, n);
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  cudaFree(d);
  std::printf("header kernel: h[0]=%d h[255]=%d\n", h[0], h[n - 1]);
  return h[0] == n - 1 && h[n - 1] == 0 ? 0 : 1;
}
