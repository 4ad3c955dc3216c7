// memcheck corpus: a float4 copied whole, one element past the end (the
// host compiler makes the copy one memcpy, not a load and a store).
// expect: memcheck read oob_float4_copy.cu:9
// expect: memcheck write oob_float4_copy.cu:9
#include <cstdio>

__global__ void copy(const float4* in, float4* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = in[i];  // <= lets thread n past the end
}

int main() {
  const int n = 256;
  float4 *in, *out;
  cudaMalloc(&in, n * sizeof(float4));
  cudaMalloc(&out, n * sizeof(float4));
  cudaMemset(in, 0, n * sizeof(float4));
  copy<<<2, 256>>>(in, out, n);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
