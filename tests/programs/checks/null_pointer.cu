// memcheck corpus: the output buffer was never allocated, so the kernel
// writes through a null pointer. A GPU faults (cudaErrorIllegalAddress);
// so does the simulator, before the write, at the kernel's line.
// expect: memcheck write null_pointer.cu:9
#include <cstdio>

__global__ void fill(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f;
}

int main() {
  float* out = nullptr;  // cudaMalloc(&out, ...) forgotten
  fill<<<1, 32>>>(out, 32);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
