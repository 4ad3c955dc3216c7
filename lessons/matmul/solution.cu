// BEGIN SOLUTION
// Matrix multiply, the reference solution: C = A x B, four kernels, each
// faster than the one before for one reason.
// EXERCISE: // Matrix multiply: C = A x B, in four stages (README.md explains each).
// EXERCISE: // Your task: write the bodies of the kernels below, one stage at a time.
// EXERCISE: // Check your work with:     cudalab check matmul   (on a GPU: add --gpu)
// EXERCISE: // Run the program with it:  cudalab run matmul     (with nvcc: see driver.cu)
// END SOLUTION
#include "lesson.h"

// Stage 1, naive: one thread per element of C. Threads are numbered in 2D:
// threadIdx.x and blockIdx.x give the ROW, threadIdx.y and blockIdx.y the
// COLUMN. The thread for (row, col) computes the dot product of row `row`
// of A with column `col` of B.
__global__ void matmul_naive(const float* a, const float* b, float* c, int n) {
  // TODO step 1: row = blockIdx.x * blockDim.x + threadIdx.x; col from the y's.
  // TODO step 2: threads past the edge of C (row or col >= n) do nothing.
  // TODO step 3: sum a[row * n + k] * b[k * n + col] over k, store it in c.
  // BEGIN SOLUTION
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n) return;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];
  c[row * n + col] = sum;
  // END SOLUTION
}

// Stage 2, coalesced: the same work, but the 32 threads of a warp (threads
// with consecutive threadIdx.x) must read neighbouring addresses. Which of
// row and col should threadIdx.x give? (`cudalab stats` on a trace tells:
// sectors per request.)
__global__ void matmul_coalesced(const float* a, const float* b, float* c, int n) {
  // TODO: as stage 1, with the mapping that makes a warp's loads of B and
  //       stores to C fall on consecutive floats.
  // BEGIN SOLUTION
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n) return;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];
  c[row * n + col] = sum;
  // END SOLUTION
}

// Stage 3, shared-memory tiling: a block of kTile x kTile threads computes a
// kTile x kTile tile of C. It walks along k one tile at a time: the block
// copies a tile of A and a tile of B into shared memory (each thread one
// element of each), waits, and multiplies the tiles from there. Every
// element loaded from global memory is then used kTile times.
__global__ void matmul_tiled(const float* a, const float* b, float* c, int n) {
  __shared__ float tile_a[kTile][kTile];
  __shared__ float tile_b[kTile][kTile];
  // TODO step 1: this thread's row and col in C, mapped as in stage 2.
  // TODO step 2: for each tile t along k, each thread loads one element of
  //              A's tile and one of B's (0 where the tile sticks out of the
  //              matrices); the block waits until the tiles are whole; each
  //              thread adds the kTile products of its row of tile_a and its
  //              column of tile_b; and the block waits again before the next
  //              tile overwrites them.
  // TODO step 3: store the sum if (row, col) is inside C.
  // BEGIN SOLUTION
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  float sum = 0.0f;
  for (int t = 0; t < (n + kTile - 1) / kTile; ++t) {
    const int ka = t * kTile + threadIdx.x, kb = t * kTile + threadIdx.y;
    tile_a[threadIdx.y][threadIdx.x] = row < n && ka < n ? a[row * n + ka] : 0.0f;
    tile_b[threadIdx.y][threadIdx.x] = kb < n && col < n ? b[kb * n + col] : 0.0f;
    __syncthreads();  // the tiles are whole
    for (int k = 0; k < kTile; ++k) sum += tile_a[threadIdx.y][k] * tile_b[k][threadIdx.x];
    __syncthreads();  // everyone is done with them
  }
  if (row < n && col < n) c[row * n + col] = sum;
  // END SOLUTION
}

// Stage 4 (advanced, optional), register tiling: a block of 16 x 16 threads
// computes a kBlockTile x kBlockTile tile of C, each thread kThreadTile x
// kThreadTile elements of it, kept in registers. Per step of kStepK along k
// the block stages a kBlockTile x kStepK slice of A and a kStepK x
// kBlockTile slice of B in shared memory; each thread then reads kThreadTile
// values of each per k and does kThreadTile^2 multiply-adds with them.
// Thread (tx, ty) owns rows ty + 16 i and columns tx + 16 j of the tile, so
// that a warp's shared reads hit different banks and its stores to C are
// coalesced.
__global__ void matmul_register_tiled(const float* a, const float* b, float* c, int n) {
  // A's slice is stored k-major, so that a thread's rows are side by side;
  // 4 floats of padding per row put the 8 values of k a warp stores at once
  // in different banks.
  __shared__ float slice_a[kStepK][kBlockTile + 4];
  __shared__ float slice_b[kStepK][kBlockTile];
  // TODO (advanced): see README.md, stage 4.
  // BEGIN SOLUTION
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
  // END SOLUTION
}

// The launches: 16 x 16 threads per block, enough blocks to cover C.
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
