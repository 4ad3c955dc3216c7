// Known-wrong matmul: stage 3 stores the tile of B transposed and reads
// tile_b[threadIdx.x][k]: right results, but the 16 threads of a half-warp
// read one column of the tile, words 16 apart, 8 of them in one bank.
// expect-failed: TiledNoBankConflicts
#include "lesson.h"

__global__ void matmul_naive(const float* a, const float* b, float* c, int n) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n) return;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];
  c[row * n + col] = sum;
}

__global__ void matmul_coalesced(const float* a, const float* b, float* c, int n) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n) return;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];
  c[row * n + col] = sum;
}

__global__ void matmul_tiled(const float* a, const float* b, float* c, int n) {
  __shared__ float tile_a[kTile][kTile];
  __shared__ float tile_b[kTile][kTile];
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  float sum = 0.0f;
  for (int t = 0; t < (n + kTile - 1) / kTile; ++t) {
    const int ka = t * kTile + threadIdx.x, kb = t * kTile + threadIdx.y;
    tile_a[threadIdx.y][threadIdx.x] = row < n && ka < n ? a[row * n + ka] : 0.0f;
    tile_b[threadIdx.x][threadIdx.y] = kb < n && col < n ? b[kb * n + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < kTile; ++k) sum += tile_a[threadIdx.y][k] * tile_b[threadIdx.x][k];
    __syncthreads();
  }
  if (row < n && col < n) c[row * n + col] = sum;
}

__global__ void matmul_register_tiled(const float* a, const float* b, float* c, int n) {
  __shared__ float slice_a[kStepK][kBlockTile + 4];
  __shared__ float slice_b[kStepK][kBlockTile];
  const int tx = threadIdx.x, ty = threadIdx.y, id = ty * 16 + tx;
  const int row0 = blockIdx.y * kBlockTile, col0 = blockIdx.x * kBlockTile;
  float acc[kThreadTile][kThreadTile] = {};
  for (int k0 = 0; k0 < n; k0 += kStepK) {
    // 2048 elements of each slice, 8 per thread; neighbouring threads load
    // neighbouring addresses of A's rows and B's rows.
    for (int e = id; e < kBlockTile * kStepK; e += 256) {
      const int r = e / kStepK, k = e % kStepK;
      slice_a[k][r] = row0 + r < n && k0 + k < n ? a[(row0 + r) * n + k0 + k] : 0.0f;
      const int kb = e / kBlockTile, cb = e % kBlockTile;
      slice_b[kb][cb] = k0 + kb < n && col0 + cb < n ? b[(k0 + kb) * n + col0 + cb] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < kStepK; ++k) {
      float from_a[kThreadTile], from_b[kThreadTile];
      for (int i = 0; i < kThreadTile; ++i) from_a[i] = slice_a[k][ty + 16 * i];
      for (int j = 0; j < kThreadTile; ++j) from_b[j] = slice_b[k][tx + 16 * j];
      for (int i = 0; i < kThreadTile; ++i)
        for (int j = 0; j < kThreadTile; ++j) acc[i][j] += from_a[i] * from_b[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < kThreadTile; ++i)
    for (int j = 0; j < kThreadTile; ++j) {
      const int r = row0 + ty + 16 * i, col = col0 + tx + 16 * j;
      if (r < n && col < n) c[r * n + col] = acc[i][j];
    }
}

void launch_matmul_naive(const float* a, const float* b, float* c, int n) {
  const dim3 threads(16, 16), blocks((n + 15) / 16, (n + 15) / 16);
  matmul_naive<<<blocks, threads>>>(a, b, c, n);
}

void launch_matmul_coalesced(const float* a, const float* b, float* c, int n) {
  const dim3 threads(16, 16), blocks((n + 15) / 16, (n + 15) / 16);
  matmul_coalesced<<<blocks, threads>>>(a, b, c, n);
}

void launch_matmul_tiled(const float* a, const float* b, float* c, int n) {
  const dim3 threads(kTile, kTile), blocks((n + kTile - 1) / kTile, (n + kTile - 1) / kTile);
  matmul_tiled<<<blocks, threads>>>(a, b, c, n);
}

void launch_matmul_register_tiled(const float* a, const float* b, float* c, int n) {
  const dim3 threads(16, 16);
  const dim3 blocks((n + kBlockTile - 1) / kBlockTile, (n + kBlockTile - 1) / kBlockTile);
  matmul_register_tiled<<<blocks, threads>>>(a, b, c, n);
}
