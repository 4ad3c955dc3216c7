// Reverses an array of one block in dynamic shared memory.
#pragma once

__global__ void reverse(int* a, int n) {
  extern __shared__ int tile[];
  const int i = threadIdx.x;
  if (i < n) tile[i] = a[i];
  __syncthreads();
  if (i < n) a[i] = tile[n - 1 - i];
}

inline void reverse_on_gpu(int* a, int n) { reverse<<<1, n, n * sizeof(int)>>>(a, n); }
