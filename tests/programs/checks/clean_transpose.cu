// checks corpus: a matrix transpose through a padded 32x33 shared tile, on
// a size that is not a multiple of the tile; no report.
#include <cstdio>

constexpr int kTile = 32;

__global__ void transpose(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  if (x < rows && y < cols) out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}

int main() {
  const int rows = 70, cols = 45;
  float *in, *out;
  cudaMalloc(&in, rows * cols * sizeof(float));
  cudaMalloc(&out, rows * cols * sizeof(float));
  cudaMemset(in, 0, rows * cols * sizeof(float));
  transpose<<<dim3((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile), dim3(kTile, kTile)>>>(
      in, out, rows, cols);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(in);
  cudaFree(out);
  return 0;
}
