// Clean: Philox states in global memory set up by curand_init (which writes
// every field, several of them zeros) and then drawn from. initcheck must
// see those writes and say nothing.
#include <cstdio>
#include <curand_kernel.h>

__global__ void draw(curandStatePhilox4_32_10_t* states, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curand_init(1234, i, 0, &states[i]);
  out[i] = curand_uniform(&states[i]);
}

int main() {
  const int n = 64;
  curandStatePhilox4_32_10_t* states;
  float* out;
  cudaMalloc(&states, n * sizeof(*states));
  cudaMalloc(&out, n * sizeof(float));
  draw<<<1, n>>>(states, out, n);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
