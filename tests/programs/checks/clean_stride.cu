// memcheck corpus: a correct grid-stride loop; no report may appear.
#include <cstdio>

__global__ void scale(float* x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] *= 2.0f;
}

int main() {
  const int n = 100003;
  float* x;
  cudaMalloc(&x, n * sizeof(float));
  cudaMemset(x, 0, n * sizeof(float));
  scale<<<16, 128>>>(x, n);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
