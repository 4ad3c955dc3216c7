// racecheck corpus: a loop loads a shared tile, waits, and reads it in an
// inner loop, with no barrier at the end of its body: a fast thread's next
// round overwrites the tile (line 16) while a slow one still reads it
// (line 19). Both orders of the race (the read before the overwrite, and
// after it) want the barrier at the end of the outer loop's body, after
// line 20, not one between the two lines (there is one, on line 17).
// expect: racecheck write-after-read race_tiles_next_round.cu:16
#include <cstdio>

__global__ void tiled_sums(const float* in, float* out, int rounds) {
  __shared__ float tile[64];
  const int t = threadIdx.x;
  float acc = 0;
  for (int r = 0; r < rounds; ++r) {
    // this round's tile, for every thread of the block
    tile[t] = in[r * 64 + t];
    __syncthreads();
    for (int k = 0; k < 4; ++k) {
      acc += tile[(t + k) % 64];
    }
  }
  out[t] = acc;
}

int main() {
  float *in, *out;
  cudaMalloc(&in, 4 * 64 * sizeof(float));
  cudaMalloc(&out, 64 * sizeof(float));
  cudaMemset(in, 0, 4 * 64 * sizeof(float));
  tiled_sums<<<1, 64>>>(in, out, 4);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(out);
  cudaFree(in);
  return 0;
}
