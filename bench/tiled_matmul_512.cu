// Benchmark program: shared-memory tiled matmul, 512x512 floats, 16x16
// tiles, two __syncthreads per tile, whole process (issue 3's bar: 0.4 s).
#include <cstdio>
#include <vector>

#include "bench_data.h"

constexpr int kTile = 16;

__global__ void matmul_tiled(const float* a, const float* b, float* c, int n) {
  __shared__ float ta[kTile][kTile];
  __shared__ float tb[kTile][kTile];
  const int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
  float sum = 0;
  for (int t = 0; t < n / kTile; ++t) {
    ta[threadIdx.y][threadIdx.x] = a[row * n + t * kTile + threadIdx.x];
    tb[threadIdx.y][threadIdx.x] = b[(t * kTile + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < kTile; ++k) sum += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = sum;
}

int main() {
  const int n = 512;
  std::vector<float> a(n * n), b(n * n), c(n * n);
  fill_matmul_inputs(a, b, n);
  float *da, *db, *dc;
  cudaMalloc(&da, n * n * sizeof(float));
  cudaMalloc(&db, n * n * sizeof(float));
  cudaMalloc(&dc, n * n * sizeof(float));
  cudaMemcpy(da, a.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  matmul_tiled<<<dim3(n / kTile, n / kTile), dim3(kTile, kTile)>>>(da, db, dc, n);
  cudaMemcpy(c.data(), dc, n * n * sizeof(float), cudaMemcpyDeviceToHost);
  // Check a few elements against the CPU.
  const int wrong = matmul_wrong(a, b, c, n);
  std::printf("tiled matmul %dx%d: %d wrong of the checked elements\n", n, n, wrong);
  return wrong != 0;
}
