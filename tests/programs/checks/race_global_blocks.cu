// racecheck corpus (beyond compute-sanitizer): an in-place smoothing step
// reads the neighbour that another thread, maybe of another block,
// overwrites in the same launch. Use two buffers (double buffering).
// expect: racecheck write-after-read race_global_blocks.cu:10
#include <cstdio>

__global__ void smooth_in_place(float* u, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) {
    u[i] = 0.5f * u[i] + 0.25f * (u[i - 1] + u[i + 1]);
  }
}

int main() {
  const int n = 1024;
  float* u;
  cudaMalloc(&u, n * sizeof(float));
  cudaMemset(u, 0, n * sizeof(float));
  smooth_in_place<<<n / 256, 256>>>(u, n);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(u);
  return 0;
}
