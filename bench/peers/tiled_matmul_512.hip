// bench/tiled_matmul_512.cu written for HIP-CPU (ROCm's header-only runtime
// that runs HIP kernels on the CPU with a fiber per thread), to time the
// same kernel side by side. Built by run.py as C++ (-x c++) with
// -I HIP_CPU/include -ltbb.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <vector>

#include "../bench_data.h"

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
  if (hipMalloc(&da, n * n * sizeof(float)) != hipSuccess ||
      hipMalloc(&db, n * n * sizeof(float)) != hipSuccess ||
      hipMalloc(&dc, n * n * sizeof(float)) != hipSuccess)
    return 1;
  hipMemcpy(da, a.data(), n * n * sizeof(float), hipMemcpyHostToDevice);
  hipMemcpy(db, b.data(), n * n * sizeof(float), hipMemcpyHostToDevice);
  hipLaunchKernelGGL(matmul_tiled, dim3(n / kTile, n / kTile), dim3(kTile, kTile), 0, 0, da, db, dc,
                     n);
  hipMemcpy(c.data(), dc, n * n * sizeof(float), hipMemcpyDeviceToHost);
  const int wrong = matmul_wrong(a, b, c, n);
  std::printf("tiled matmul %dx%d (HIP-CPU): %d wrong of the checked elements\n", n, n, wrong);
  return wrong != 0;
}
