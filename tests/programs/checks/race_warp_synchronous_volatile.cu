// racecheck corpus: the unrolled last warp of a reduction through
// `volatile` shared memory, without __syncwarp(), as courses taught it
// before Volta. It gives the right sum (the simulator runs such code with
// its warps in lock-step, as a GPU does), and it is still a race under
// CUDA's memory model: each line reads what another lane wrote on the line
// before, with nothing ordering the two.
// expect: racecheck read-after-write race_warp_synchronous_volatile.cu:20
#include <cstdio>

__global__ void block_sum(const int* in, int* out) {
  __shared__ int s[64];
  const unsigned t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  if (t < 32) {
    volatile int* v = s;
    v[t] += v[t + 32];
    v[t] += v[t + 16];
    v[t] += v[t + 8];
    v[t] += v[t + 4];
    v[t] += v[t + 2];
    v[t] += v[t + 1];
  }
  if (t == 0) *out = s[0];
}

int main() {
  int h[64], sum = 0, *in, *out;
  for (int i = 0; i < 64; ++i) h[i] = i;
  cudaMalloc(&in, sizeof(h));
  cudaMalloc(&out, sizeof(int));
  cudaMemcpy(in, h, sizeof(h), cudaMemcpyHostToDevice);
  block_sum<<<1, 64>>>(in, out);
  cudaMemcpy(&sum, out, sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("sum %d (2016 on a GPU): %s\n", sum, cudaGetErrorName(cudaGetLastError()));
  cudaFree(in);
  cudaFree(out);
  return 0;
}
