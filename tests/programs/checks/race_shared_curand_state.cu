// racecheck corpus (beyond compute-sanitizer): the block keeps one cuRAND
// state in shared memory, so its threads initialize and draw from one
// generator at once, each reading and writing back the state. The fix is a
// state per thread, not a barrier.
// expect: racecheck write-after-read race_shared_curand_state.cu:14
#include <cstdio>
#include <curand_kernel.h>

__global__ void draw(float* out, int n) {
  __shared__ curandState state;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  // one generator for the whole block
  curand_init(1234, 0, 0, &state);
  out[i] = curand_uniform(&state);
}

int main() {
  const int n = 64;
  float* out;
  cudaMalloc(&out, n * sizeof(float));
  draw<<<1, n>>>(out, n);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(out);
  return 0;
}
