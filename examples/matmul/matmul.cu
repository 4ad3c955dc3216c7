// A matrix multiply, C = A B, the two ways the Numba and PyCUDA tutorials
// write it: one thread per element of C reading a row of A and a column of
// B from global memory, then the same with square tiles of A and B staged
// in shared memory, each loaded once per block and read TILE times (Numba's
// fast_matmul). The course's matmul lesson goes further.
//
// It prints the CPU's time for the same work (one core, a plain triple
// loop) and each kernel's: on the simulator, the time of the CPU's threads
// running it; built with nvcc, the GPU's.
//
// On the simulator:  cudalab-cc -O2 -I framework/include examples/matmul/matmul.cu -o matmul
// For a GPU:         nvcc -O3 -I framework/include examples/matmul/matmul.cu -o matmul
#include <cmath>
#include <cstdio>
#include <vector>

#include "cudalab/framework/buffers.h"
#include "cudalab/framework/timing.h"

constexpr int TILE = 16;

// C[row][col] = sum over k of A[row][k] * B[k][col], for n x n matrices.
__global__ void matmul_naive(const float* A, const float* B, float* C, int n) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float sum = 0.f;
  for (int k = 0; k < n; ++k) sum += A[row * n + k] * B[k * n + col];
  C[row * n + col] = sum;
}

// The same sum, a tile at a time: the block loads a TILE x TILE tile of A
// and one of B into shared memory (a barrier), adds up their products (a
// barrier before the next tiles overwrite them), and moves on along k.
__global__ void matmul_tiled(const float* A, const float* B, float* C, int n) {
  __shared__ float a[TILE][TILE], b[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float sum = 0.f;
  for (int k0 = 0; k0 < n; k0 += TILE) {
    a[ty][tx] = row < n && k0 + tx < n ? A[row * n + k0 + tx] : 0.f;
    b[ty][tx] = k0 + ty < n && col < n ? B[(k0 + ty) * n + col] : 0.f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) sum += a[ty][k] * b[k][tx];
    __syncthreads();
  }
  if (row < n && col < n) C[row * n + col] = sum;
}

int main() {
  const int n = 256;
  std::vector<float> A(n * n), B(n * n), want(n * n), naive(n * n), tiled(n * n);
  for (int i = 0; i < n * n; ++i) {
    A[i] = float(i % 13) / 13.f;
    B[i] = float(i % 7) / 7.f - 0.5f;
  }
  const dim3 threads(TILE, TILE), blocks((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
  matmul_naive<<<blocks, threads>>>(cudalab::In(A), cudalab::In(B), cudalab::Out(naive), n);
  cudalab::check(cudaGetLastError(), "matmul_naive");
  matmul_tiled<<<blocks, threads>>>(cudalab::In(A), cudalab::In(B), cudalab::Out(tiled), n);
  cudalab::check(cudaGetLastError(), "matmul_tiled");

  const double cpu_ms = cudalab::host_ms(
      [&] {
        for (int r = 0; r < n; ++r)
          for (int c = 0; c < n; ++c) {
            float sum = 0.f;
            for (int k = 0; k < n; ++k) sum += A[r * n + k] * B[k * n + c];
            want[r * n + c] = sum;
          }
      },
      1);
  // Sums of 256 products, added in the same order but perhaps fused into
  // multiply-adds on a GPU: equal to a few units in the last place.
  int wrong = 0;
  for (int i = 0; i < n * n; ++i) {
    const float allowed = 1e-4f * (1.f + std::fabs(want[i]));
    wrong += std::fabs(naive[i] - want[i]) > allowed || std::fabs(tiled[i] - want[i]) > allowed;
  }
  std::printf("C = A B for %d x %d matrices, blocks of %d x %d threads: C[1][2] = %.4f\n", n, n,
              TILE, TILE, tiled[1 * n + 2]);
  std::printf("%s\n",
              wrong ? "Some elements differ from the CPU's." : "Both kernels match the CPU's.");

  float naive_ms = 0, tiled_ms = 0;
  {
    const cudalab::In d_A(A), d_B(B);
    cudalab::Out d_C(naive);
    naive_ms = cudalab::average_ms([&] { matmul_naive<<<blocks, threads>>>(d_A, d_B, d_C, n); }, 3,
                                   "matmul_naive");
    tiled_ms = cudalab::average_ms([&] { matmul_tiled<<<blocks, threads>>>(d_A, d_B, d_C, n); }, 3,
                                   "matmul_tiled");
  }
  std::printf(
      "time: the CPU's loops %.3f ms; on %s the naive kernel %.3f ms, the tiled one %.3f ms\n",
      cpu_ms, cudalab::kernels_run_on(), double(naive_ms), double(tiled_ms));
  return wrong ? 1 : 0;
}

// How CTest runs this example (tests/lit/README.md): on the simulator and,
// where nvcc is found, on a GPU.
// BUILD: TARGET matmul_tutorial SIM_LIBS cudalab_framework GPU_LIBS cudalab_framework_gpu
// TEST: example.matmul
// LABELS: unit
// RUN: %bin
// CHECK: C = A B for 256 x 256 matrices, blocks of 16 x 16 threads: C[1][2] = {{-?[0-9.]+}}
// CHECK-NEXT: Both kernels match the CPU's.
// CHECK-NEXT: time: the CPU's loops {{[0-9.]+}} ms; on the cudalab simulator (CPU threads) the
// naive kernel {{[0-9.]+}} ms, the tiled one {{[0-9.]+}} ms
//
// TEST: gpu.example.matmul
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu
// CHECK: Both kernels match the CPU's.
// CHECK-NEXT: time: the CPU's loops {{[0-9.]+}} ms; on the GPU the naive kernel {{[0-9.]+}} ms, the
// tiled one {{[0-9.]+}} ms
