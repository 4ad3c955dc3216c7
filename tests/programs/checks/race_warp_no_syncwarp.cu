// racecheck corpus: the last warp of a reduction sums through shared memory
// without __syncwarp(): lanes of a warp are not in lock-step since Volta.
// expect: racecheck write-after-read race_warp_no_syncwarp.cu:14
#include <cstdio>

__global__ void warp_sum(const int* in, int* out) {
  __shared__ int s[64];
  const unsigned t = threadIdx.x;
  s[t] = in[t] + in[t + 32];
  __syncwarp();
  for (int k = 16; k > 0; k /= 2) {
    // volatile is not enough: the read of s[t + k] and another lane's
    // write of it are unordered.
    if (t < k) s[t] += s[t + k];
  }
  if (t == 0) *out = s[0];
}

int main() {
  int *in, *out;
  cudaMalloc(&in, 64 * sizeof(int));
  cudaMalloc(&out, sizeof(int));
  cudaMemset(in, 0, 64 * sizeof(int));
  warp_sum<<<1, 32>>>(in, out);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(in);
  cudaFree(out);
  return 0;
}
