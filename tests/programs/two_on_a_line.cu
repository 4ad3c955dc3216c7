// Two buffers allocated on one line, and a kernel that reads one float past
// the end of the second: memcheck must name `b`, not `a`.
#include <cstdio>

__global__ void read_past(const float* b, float* out, int n) { out[0] = b[n + 70]; }

int main() {
  float *a = nullptr, *b = nullptr, *out = nullptr;
  // clang-format off
  if (cudaMalloc(&a, 1000 * sizeof(float)) != cudaSuccess || cudaMalloc(&b, 1000 * sizeof(float)) != cudaSuccess) return 1;
  // clang-format on
  cudaMalloc(&out, sizeof(float));
  read_past<<<1, 1>>>(b, out, 1000);
  cudaDeviceSynchronize();
  std::printf("done\n");
  return 0;
}
