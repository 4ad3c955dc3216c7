// Two bugs for the viewer's tests: a vector add without its bounds check
// (100 elements, 2 blocks of 64: threads 100 to 127 write past the end of c),
// then a kernel that writes through a null pointer (a buffer never
// allocated), which faults.
#include <cstdio>

__global__ void add(const float* a, const float* b, float* c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  c[i] = a[i] + b[i];
}

__global__ void fill(float* out) { out[threadIdx.x] = 1.0f; }

int main() {
  const int n = 100;
  float *a, *b, *c;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&c, n * sizeof(float));
  cudaMemset(a, 0, n * sizeof(float));
  cudaMemset(b, 0, n * sizeof(float));
  add<<<2, 64>>>(a, b, c);
  std::printf("add: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  float* out = nullptr;  // cudaMalloc(&out, ...) forgotten
  fill<<<1, 32>>>(out);
  std::printf("fill: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
