// The limit for bench/tiled_matmul_512.cu: the same 16x16 tiling written as a
// plain C++ loop nest (one host thread, clang -O2). Each block's threads
// become the two innermost loops; each __syncthreads ends a loop over them.
#include <cmath>
#include <cstdio>
#include <vector>

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
  for (int i = 0; i < n * n; ++i) a[i] = float(i % 7) * 0.5f, b[i] = float(i % 5) - 2.0f;
  matmul_tiled(a.data(), b.data(), c.data(), n);
  int wrong = 0;
  for (int i = 0; i < n; i += 37)
    for (int j = 0; j < n; j += 41) {
      float want = 0;
      for (int k = 0; k < n; ++k) want += a[i * n + k] * b[k * n + j];
      wrong += std::abs(want - c[i * n + j]) > 1e-3f * std::abs(want) + 1e-3f;
    }
  std::printf("tiled matmul %dx%d (plain loop nest): %d wrong of the checked elements\n", n, n,
              wrong);
  return wrong != 0;
}
