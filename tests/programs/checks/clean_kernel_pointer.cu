// checks corpus: kernels launched through a function pointer held in a
// variable (chosen at run time, and from a table); no report. The threads
// must read the launch's copy of the pointer, not the host's variable.
#include <cstdio>

__global__ void fill_ones(int* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 1;
}
__global__ void fill_twos(int* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 2;
}

int main(int argc, char**) {
  const int n = 1000;
  int* p;
  cudaMalloc(&p, n * sizeof(int));
  auto kernel = argc > 5 ? fill_ones : fill_twos;
  kernel<<<(n + 127) / 128, 128>>>(p, n);
  void (*table[2])(int*, int) = {fill_ones, fill_twos};
  table[argc % 2]<<<(n + 127) / 128, 128>>>(p, n);
  int h[n];
  cudaMemcpy(h, p, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("after: %s, first %d\n", cudaGetErrorName(cudaDeviceSynchronize()), h[0]);
  cudaFree(p);
  return 0;
}
