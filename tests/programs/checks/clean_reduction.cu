// checks corpus: a shared-memory reduction with its barriers; no report.
#include <cstdio>

__global__ void block_sum(const int* in, int* out) {
  __shared__ int s[128];
  const unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k /= 2) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

int main() {
  int *in, *out;
  cudaMalloc(&in, 4 * 128 * sizeof(int));
  cudaMalloc(&out, 4 * sizeof(int));
  cudaMemset(in, 0, 4 * 128 * sizeof(int));
  block_sum<<<4, 128>>>(in, out);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(in);
  cudaFree(out);
  return 0;
}
