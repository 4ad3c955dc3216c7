// A tiled matrix product for the viewer's stepping test: 32x32 matrices in
// 16x16 tiles, so each block loads a tile of a and of b into shared memory
// (phase 0), waits, multiplies them (phase 1), waits, and the same for the
// second tile (phases 2 and 3) before it writes its part of c (phase 4).
#include <cstdio>

constexpr int kN = 32, kTile = 16;

__global__ void tiled(const float* a, const float* b, float* c) {
  __shared__ float ta[kTile][kTile], tb[kTile][kTile];
  const int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
  float sum = 0;
  for (int t = 0; t < kN / kTile; ++t) {
    ta[threadIdx.y][threadIdx.x] = a[row * kN + t * kTile + threadIdx.x];
    tb[threadIdx.y][threadIdx.x] = b[(t * kTile + threadIdx.y) * kN + col];
    __syncthreads();
    for (int k = 0; k < kTile; ++k) sum += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  c[row * kN + col] = sum;
}

int main() {
  float *a, *b, *c;
  cudaMalloc(&a, kN * kN * sizeof(float));
  cudaMalloc(&b, kN * kN * sizeof(float));
  cudaMalloc(&c, kN * kN * sizeof(float));
  cudaMemset(a, 0, kN * kN * sizeof(float));
  cudaMemset(b, 0, kN * kN * sizeof(float));
  tiled<<<dim3(2, 2), dim3(kTile, kTile)>>>(a, b, c);
  std::printf("tiled: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
