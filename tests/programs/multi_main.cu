// Multi-file program: main here, the kernel in multi_kernels.cu, a host
// helper in multi_host.cpp.
#include <cstdio>

#include "multi.h"

int main() {
  const int n = 1000;
  int* d;
  cudaMalloc(&d, n * sizeof(int));
  launch_fill(d, n, 7);
  int h[1000];
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  std::printf("multi: sum=%ld\n", host_sum(h, n));
  cudaFree(d);
  return 0;
}
