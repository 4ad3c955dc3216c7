// memcheck corpus: a static __shared__ array of 100 floats read at 100..127.
// expect: memcheck read static_shared_oob.cu:10
#include <cstdio>

__global__ void tail(float* out) {
  __shared__ float s[100];
  const unsigned t = threadIdx.x;
  if (t < 100) s[t] = float(t);
  __syncthreads();
  out[t] = s[t];  // threads 100..127 read past the end of s
}

int main() {
  float* out;
  cudaMalloc(&out, 128 * sizeof(float));
  tail<<<1, 128>>>(out);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(out);
  return 0;
}
