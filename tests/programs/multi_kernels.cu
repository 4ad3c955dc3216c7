#include "multi.h"

__global__ void fill(int* d, int n, int v) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    d[i] = v + i % 3;
}

void launch_fill(int* d, int n, int v) { fill<<<4, 64>>>(d, n, v); }
