// racecheck corpus: a tile filled (line 12) and read transposed (line 13)
// with no barrier between, and no loop around them: a thread reads
// elements other threads have not written yet, and another thread's write
// comes after this one's read. Both races want a __syncthreads() between the
// two lines; neither is a race across iterations of a loop.
// expect: racecheck read-after-write race_tile_no_barrier.cu:13
#include <cstdio>

__global__ void transpose_tile(const float* in, float* out) {
  __shared__ float tile[32][32];
  const int x = threadIdx.x, y = threadIdx.y;
  tile[y][x] = in[y * 32 + x];
  out[y * 32 + x] = tile[x][y];
}

int main() {
  float *in, *out;
  cudaMalloc(&in, 32 * 32 * sizeof(float));
  cudaMalloc(&out, 32 * 32 * sizeof(float));
  cudaMemset(in, 0, 32 * 32 * sizeof(float));
  transpose_tile<<<1, dim3(32, 32)>>>(in, out);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
