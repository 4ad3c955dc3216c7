// Benchmark program: the vector add of 16M floats (blocks of 256) on the
// simulator, whole process, as a student's program would do it: make the
// data, copy it, launch, copy back, check.
#include <cstdio>
#include <vector>

#include "bench_data.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 1 << 24;
  std::vector<float> a(n), b(n), c(n);
  fill_vector_add_inputs(a, b);
  float *da, *db, *dc;
  cudaMalloc(&da, n * sizeof(float));
  cudaMalloc(&db, n * sizeof(float));
  cudaMalloc(&dc, n * sizeof(float));
  cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  vector_add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
  cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += c[i] != a[i] + b[i];
  std::printf("vector add of %d floats: %d wrong\n", n, wrong);
  return wrong != 0;
}
