// Global atomics of a 256-bin histogram of 64M bytes on a GPU, by data:
// uniform bytes, skewed bytes (nine in ten are 0) and bytes that are all 0,
// each with a grid-stride kernel (1056 blocks) and with one byte a thread;
// CUDA events around each launch, the best of 5. What the model's atomics
// (predict/README.md) are checked against, beside the lessons' and the
// corpus's kernels:
//   nvcc -O3 -arch=sm_90 histogram_atomics.cu -o histogram_atomics && ./histogram_atomics
#include <cstdio>
#include <vector>

#include "probe_timing.h"

__global__ void histogram(const unsigned char* data, int n, unsigned* bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[data[i]], 1u);
}
__global__ void hist1(const unsigned char* data, int n, unsigned* bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i]], 1u);
}
int main() {
  const int n = 1 << 26;
  unsigned char* data;
  unsigned* bins;
  cudaMalloc(&data, n);
  cudaMalloc(&bins, 1024);
  std::vector<unsigned char> u(n), s(n), z(n, 0);
  unsigned x = 12345;
  for (int i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    u[i] = x >> 24;
    s[i] = (x >> 8) % 10 ? 0 : u[i];
  }
  const char* names[3] = {"uniform", "skewed", "zeros"};
  std::vector<unsigned char>* sets[3] = {&u, &s, &z};
  for (int k = 0; k < 3; ++k) {
    cudaMemcpy(data, sets[k]->data(), n, cudaMemcpyHostToDevice);
    for (int which = 0; which < 2; ++which) {
      const float best = best_ms(
          5, [&] { cudaMemset(bins, 0, 1024); },
          [&] {
            if (which == 0)
              histogram<<<1056, 256>>>(data, n, bins);
            else
              hist1<<<n / 256, 256>>>(data, n, bins);
          });
      std::printf("%s %s %.3f ms\n", which ? "one-per-thread" : "grid-stride", names[k], best);
    }
  }
}
