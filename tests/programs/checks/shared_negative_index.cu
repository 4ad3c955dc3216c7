// memcheck corpus: a histogram indexes its shared bins with a signed char,
// so a byte of 128 or more is a negative index and the atomicAdd lands
// before the bins (here in another kernel's shared variable, which a GPU
// does not give this one). The report says how far before the bins.
// expect: memcheck write shared_negative_index.cu:22
#include <cstdio>

__global__ void reverse(float* out) {
  __shared__ float local[64];
  local[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = local[63 - threadIdx.x];
}

__global__ void count(const char* in, unsigned* out) {
  __shared__ unsigned bins[256];
  bins[threadIdx.x] = 0;
  __syncthreads();
  const char byte = in[threadIdx.x];
  // (unsigned char) byte would be the bin's index; a char below 0 is not
  // a bin
  atomicAdd(&bins[byte], 1u);
  __syncthreads();
  out[threadIdx.x] = bins[threadIdx.x];
}

int main() {
  char* in;
  unsigned* out;
  float* reversed;
  cudaMalloc(&in, 256);
  cudaMemset(in, 0xF0, 256);  // -16 as a char
  cudaMalloc(&out, 256 * sizeof(unsigned));
  cudaMalloc(&reversed, 64 * sizeof(float));
  reverse<<<1, 64>>>(reversed);
  count<<<1, 256>>>(in, out);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(reversed);
  cudaFree(out);
  cudaFree(in);
  return 0;
}
