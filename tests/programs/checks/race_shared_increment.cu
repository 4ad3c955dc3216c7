// racecheck corpus (beyond compute-sanitizer): a histogram counted into
// shared bins with a plain ++ ("shared memory is the block's own"): the
// block's threads share the bins, and two that read one bin at once write
// back the same count. The fix is an atomic, not a barrier.
// expect: racecheck write-after-write race_shared_increment.cu:13
#include <cstdio>

__global__ void count_bytes(const unsigned char* in, unsigned* out, int n) {
  __shared__ unsigned bins[16];
  if (threadIdx.x < 16) bins[threadIdx.x] = 0;
  __syncthreads();
  for (int i = int(threadIdx.x); i < n; i += int(blockDim.x)) {
    bins[in[i] % 16]++;
  }
  __syncthreads();
  if (threadIdx.x < 16) out[threadIdx.x] = bins[threadIdx.x];
}

int main() {
  const int n = 4096;
  unsigned char* in;
  unsigned* out;
  cudaMalloc(&in, n);
  cudaMalloc(&out, 16 * sizeof(unsigned));
  cudaMemset(in, 3, n);
  count_bytes<<<1, 256>>>(in, out, n);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(out);
  cudaFree(in);
  return 0;
}
