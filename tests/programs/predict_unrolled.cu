// Products of shared-memory tiles, as the tiled matmul makes them: a loop
// of a count known when compiled over a row of one tile and a column of the
// other. nvcc unrolls it, and its counter and the index arithmetic on it
// become the shared loads' constant offsets: a GPU issues two loads and a
// fused multiply-add each step. The host's instrumented build keeps the
// loop and recomputes each address every step (threadIdx is reloaded
// after each observed load); the predicted instructions leave those out.
#include <cstdio>

constexpr int kTile = 16;

__global__ void tile_products(const float* a, const float* b, float* c) {
  __shared__ float tile_a[kTile][kTile];
  __shared__ float tile_b[kTile][kTile];
  const int at = (blockIdx.x * kTile + threadIdx.y) * kTile + threadIdx.x;
  tile_a[threadIdx.y][threadIdx.x] = a[at];
  tile_b[threadIdx.y][threadIdx.x] = b[at];
  __syncthreads();
  float sum = 0.0f;
  for (int k = 0; k < kTile; ++k) sum += tile_a[threadIdx.y][k] * tile_b[k][threadIdx.x];
  c[at] = sum;
}

int main() {
  const int blocks = 1024, n = blocks * kTile * kTile;
  float* matrices;  // a, b and c, one after another
  cudaMalloc(&matrices, 3 * n * sizeof(float));
  cudaMemset(matrices, 0, 2 * n * sizeof(float));
  tile_products<<<blocks, dim3(kTile, kTile)>>>(matrices, matrices + n, matrices + 2 * n);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("predict_unrolled: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

// The test of this file (tests/lit/README.md): each of the 8,192 warps
// issues at least its 32 shared loads and 16 adds of the loop, and fewer
// than 130 instructions in all. Nsight Compute counts 66 a warp
// (smsp__inst_executed.sum 540,672 on an H200, this file built by nvcc -O3
// -arch=sm_90); the estimate is 106, and was 154 while the loop's index
// arithmetic counted. (What remains over: each block the instrumentation
// splits off at a threadIdx read counts as one instruction.)
// BUILD: NO_GPU
// TEST: unit.predict_unrolled_loop
// LABELS: unit
// RUN: %cudalab predict --gpu h200 --json -- %bin | %python -c "import json,sys; j=json.load(sys.stdin); w=j['launches'][0]['warp_instructions'] / 8192; print('per warp', 48 <= w < 130, w)"
// CHECK: predict_unrolled: no error
// CHECK: per warp True
