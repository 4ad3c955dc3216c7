// racecheck corpus: a block shifts structures through shared memory, each
// copied whole, without a __syncthreads() between the writes and the reads.
// expect: racecheck read-after-write race_struct_copy.cu:16
#include <cstdio>

struct Pair {
  float value;
  int key;
};

__global__ void shift(const Pair* in, Pair* out) {
  __shared__ Pair s[64];
  const unsigned t = threadIdx.x;
  s[t] = in[t];
  // needs __syncthreads() here
  out[t] = s[63 - t];
}

int main() {
  Pair *in, *out;
  cudaMalloc(&in, 64 * sizeof(Pair));
  cudaMalloc(&out, 64 * sizeof(Pair));
  cudaMemset(in, 0, 64 * sizeof(Pair));
  shift<<<1, 64>>>(in, out);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(in);
  cudaFree(out);
  return 0;
}
