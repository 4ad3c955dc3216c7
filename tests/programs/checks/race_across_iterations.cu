// racecheck corpus: a loop that fills a shared tile, waits, and reads it,
// with no barrier at the end of the loop body: a fast thread's next
// iteration overwrites the tile (line 14) while a slow one still reads it
// (line 17). A barrier between the two lines in the code (there is one, on
// line 15) does not order them across iterations.
// expect: racecheck write-after-read race_across_iterations.cu:14
#include <cstdio>

__global__ void sums(const float* in, float* out, int rounds) {
  __shared__ float tile[64];
  const int t = threadIdx.x;
  float acc = 0;
  for (int r = 0; r < rounds; ++r) {
    tile[t] = in[r * 64 + t];
    __syncthreads();
    // (the missing __syncthreads() belongs at the end of this body)
    acc += tile[(t + 1) % 64];
  }
  out[t] = acc;
}

int main() {
  float *in, *out;
  cudaMalloc(&in, 4 * 64 * sizeof(float));
  cudaMalloc(&out, 64 * sizeof(float));
  cudaMemset(in, 0, 4 * 64 * sizeof(float));
  sums<<<1, 64>>>(in, out, 4);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
