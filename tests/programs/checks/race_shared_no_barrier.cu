// racecheck corpus: a block reverses an array through shared memory but
// reads its neighbour's slot without a __syncthreads() after the writes.
// expect: racecheck read-after-write race_shared_no_barrier.cu:10
#include <cstdio>

__global__ void reverse(const int* in, int* out) {
  __shared__ int s[64];
  const unsigned t = threadIdx.x;
  s[t] = in[t];
  out[t] = s[63 - t];  // needs __syncthreads() before this line
}

int main() {
  int *in, *out;
  cudaMalloc(&in, 64 * sizeof(int));
  cudaMalloc(&out, 64 * sizeof(int));
  cudaMemset(in, 0, 64 * sizeof(int));
  reverse<<<1, 64>>>(in, out);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(in);
  cudaFree(out);
  return 0;
}
