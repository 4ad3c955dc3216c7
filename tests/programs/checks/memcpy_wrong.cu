// memcheck corpus: a copy 4 bytes longer than its buffer, and a copy back
// to the host with the direction of a copy to the device (both fail with
// cudaErrorInvalidValue on an H100).
// expect: memcheck api memcpy_wrong.cu:13
// expect: memcheck api memcpy_wrong.cu:14
#include <cstdio>

int main() {
  const int n = 100;
  float host[n + 1] = {};
  float* d;
  cudaMalloc(&d, n * sizeof(float));
  cudaError_t e = cudaMemcpy(d, host, (n + 1) * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(host, d, n * sizeof(float), cudaMemcpyHostToDevice);
  std::printf("after: %s\n", cudaGetErrorName(e));
  cudaFree(d);
  return 0;
}
