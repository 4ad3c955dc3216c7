// The limit for bench/tiled_matmul_512.cu: the same 16x16 tiling written as a
// plain C++ loop nest (one host thread, clang -O2). Each block's threads
// become the two innermost loops; each __syncthreads ends a loop over them.
#include <cstdio>
#include <vector>

#include "../bench_data.h"

constexpr int kTile = 16;

void matmul_tiled(const float* a, const float* b, float* c, int n) {
  float ta[kTile][kTile], tb[kTile][kTile], sum[kTile][kTile];
  for (int by = 0; by < n / kTile; ++by)
    for (int bx = 0; bx < n / kTile; ++bx) {
      for (int ty = 0; ty < kTile; ++ty)
        for (int tx = 0; tx < kTile; ++tx) sum[ty][tx] = 0;
      for (int t = 0; t < n / kTile; ++t) {
        for (int ty = 0; ty < kTile; ++ty)
          for (int tx = 0; tx < kTile; ++tx) {
            const int row = by * kTile + ty, col = bx * kTile + tx;
            ta[ty][tx] = a[row * n + t * kTile + tx];
            tb[ty][tx] = b[(t * kTile + ty) * n + col];
          }
        for (int ty = 0; ty < kTile; ++ty)
          for (int tx = 0; tx < kTile; ++tx)
            for (int k = 0; k < kTile; ++k) sum[ty][tx] += ta[ty][k] * tb[k][tx];
      }
      for (int ty = 0; ty < kTile; ++ty)
        for (int tx = 0; tx < kTile; ++tx) c[(by * kTile + ty) * n + bx * kTile + tx] = sum[ty][tx];
    }
}

int main() {
  const int n = 512;
  std::vector<float> a(n * n), b(n * n), c(n * n);
  fill_matmul_inputs(a, b, n);
  matmul_tiled(a.data(), b.data(), c.data(), n);
  const int wrong = matmul_wrong(a, b, c, n);
  std::printf("tiled matmul %dx%d (plain loop nest): %d wrong of the checked elements\n", n, n,
              wrong);
  return wrong != 0;
}
