// racecheck corpus (beyond compute-sanitizer): a smoothing step written
// with an input and an output, called with one buffer for both: a thread
// reads a neighbour that another has already overwritten. The fix is two
// buffers (double buffering), not a barrier.
// expect: racecheck write-after-read race_in_place_two_names.cu:11
#include <cstdio>

__global__ void smooth(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) {
    out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
  }
}

int main() {
  const int n = 256;
  float* u;
  cudaMalloc(&u, n * sizeof(float));
  cudaMemset(u, 0, n * sizeof(float));
  smooth<<<2, 128>>>(u, u, n);  // the same buffer as input and output
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(u);
  return 0;
}
