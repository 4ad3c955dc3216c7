// initcheck corpus: the input buffer is allocated but never copied to.
// expect: initcheck uninitialized uninit_global.cu:7
#include <cstdio>

__global__ void scale(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}

int main() {
  const int n = 1000;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  // The cudaMemcpy of the input is missing here.
  scale<<<(n + 255) / 256, 256>>>(in, out, n);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(in);
  cudaFree(out);
  return 0;
}
