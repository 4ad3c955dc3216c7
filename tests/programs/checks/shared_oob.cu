// memcheck corpus: dynamic shared memory sized for 64 floats, 128 threads.
#include <cstdio>

__global__ void stage(float* out) {
  extern __shared__ float buffer[];
  buffer[threadIdx.x] = 1.0f;  // line 6: threads 64..127 write past the end
  __syncthreads();
  out[threadIdx.x] = buffer[threadIdx.x % 64];
}

int main() {
  float* out;
  cudaMalloc(&out, 128 * sizeof(float));
  stage<<<1, 128, 64 * sizeof(float)>>>(out);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(out);
  return 0;
}
// expect: memcheck write shared_oob.cu:6
