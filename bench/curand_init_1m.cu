// Benchmark program: one cuRAND XORWOW state per thread for 1M threads,
// curand_init(seed, thread id, 0), as the Monte Carlo lesson does.
#include <curand_kernel.h>

#include <cstdio>

__global__ void init(curandState* states, int n) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id < n) curand_init(1234, id, 0, &states[id]);
}

int main() {
  const int n = 1 << 20;
  curandState* states;
  cudaMalloc(&states, n * sizeof(curandState));
  init<<<n / 256, 256>>>(states, n);
  curandState last;
  cudaMemcpy(&last, states + n - 1, sizeof(last), cudaMemcpyDeviceToHost);
  std::printf("1M curand_init: last state d=%u\n", last.d);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
