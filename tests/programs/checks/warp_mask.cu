// synccheck corpus: a shuffle whose full mask names lanes that returned, in
// a warp of which only the first 20 lanes stay (n = 20).
// expect: synccheck warp-mask warp_mask.cu:9
#include <cstdio>

__global__ void sum20(const float* x, float* out, int n) {
  if (threadIdx.x >= n) return;
  float v = x[threadIdx.x];
  v += __shfl_down_sync(0xffffffffu, v, 1);  // the mask names lanes 20..31
  if (threadIdx.x == 0) *out = v;
}

int main() {
  float *x, *out;
  cudaMalloc(&x, 32 * sizeof(float));
  cudaMalloc(&out, sizeof(float));
  cudaMemset(x, 0, 32 * sizeof(float));
  sum20<<<1, 32>>>(x, out, 20);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(x);
  cudaFree(out);
  return 0;
}
