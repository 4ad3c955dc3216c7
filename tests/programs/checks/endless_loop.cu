// CUDALAB_TIMEOUT corpus: a loop whose index never advances.
#include <cstdio>
__global__ void spin(int* x, int n) {
  for (int i = threadIdx.x; i < n;) x[i] = i;  // i never advances
}
int main() {
  int* x;
  cudaMalloc(&x, 1024 * sizeof(int));
  spin<<<4, 64>>>(x, 1024);
  fprintf(stderr, "after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
