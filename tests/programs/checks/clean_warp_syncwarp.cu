// checks corpus: the last warp of a reduction through shared memory, each
// step's read and write ordered by __syncwarp(); no report.
#include <cstdio>

__global__ void block_sum(const int* in, int* out) {
  __shared__ int s[256];
  const unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned k = 128; k >= 32; k /= 2) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t < 32) {
    int v = s[t];
    for (int k = 16; k > 0; k /= 2) {
      v += s[t + k];
      __syncwarp();
      s[t] = v;
      __syncwarp();
    }
    if (t == 0) out[blockIdx.x] = v;
  }
}

int main() {
  int *in, *out;
  cudaMalloc(&in, 4 * 256 * sizeof(int));
  cudaMalloc(&out, 4 * sizeof(int));
  cudaMemset(in, 0, 4 * 256 * sizeof(int));
  block_sum<<<4, 256>>>(in, out);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(in);
  cudaFree(out);
  return 0;
}
