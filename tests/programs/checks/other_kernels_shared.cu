// memcheck corpus: reading past a kernel's static __shared__ array into the
// shared array another kernel declares (which a GPU never gives this one).
// expect: memcheck read other_kernels_shared.cu:13
#include <cstdio>

__global__ void first(float* out) {
  __shared__ float mine[32];
  __shared__ float more[32];
  const unsigned t = threadIdx.x;
  mine[t] = float(t);
  more[t] = float(t);
  __syncthreads();
  out[t] = mine[t + 64];  // past both of this kernel's arrays
}

__global__ void second(float* out) {
  __shared__ float theirs[4096];
  theirs[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = theirs[threadIdx.x];
}

int main() {
  float* out;
  cudaMalloc(&out, 4096 * sizeof(float));
  first<<<1, 32>>>(out);
  std::printf("after first: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  second<<<1, 32>>>(out);
  std::printf("after second: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(out);
  return 0;
}
