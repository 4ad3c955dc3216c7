// memcheck corpus: a read one element before the start (i - 1 at i = 0).
#include <cstdio>

__global__ void diff(const int* x, int* d, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = x[i] - x[i - 1];  // line 6
}

int main() {
  const int n = 64;
  int *x, *d;
  cudaMalloc(&x, n * sizeof(int));
  cudaMalloc(&d, n * sizeof(int));
  cudaMemset(x, 0, n * sizeof(int));
  diff<<<1, 64>>>(x, d, n);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
// expect: memcheck read oob_read_before.cu:6
