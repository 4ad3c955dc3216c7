// Kernels for the trace tests of warp-level grouping: requests, barrier
// phases, the lane encodings of the trace, warp steps and divergence.
#include <cstdio>

// Every lane takes one path; 48 threads: warp 1 has 16 lanes.
__global__ void uniform(float* out) {
  const int i = threadIdx.x;
  out[i] = 2.0f * float(i);
}

// Lane t runs the loop t % 4 times: lanes leave it at different steps.
__global__ void diverging(const float* in, float* out) {
  const int i = threadIdx.x;
  float sum = 0;
  for (int k = 0; k < i % 4; ++k) sum += in[k * 32 + i];
  out[i] = sum;
}

// Two barriers: three phases.
__global__ void phases(float* out) {
  __shared__ float tile[64];
  tile[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  const float left = tile[(threadIdx.x + 63) % 64];
  __syncthreads();
  tile[threadIdx.x] = left;
  out[threadIdx.x] = left;
}

// A gather through a permutation (offsets with no pattern), and lanes that
// read from two buffers (odd lanes from the second).
__global__ void gather(const float* in, const int* perm, const float* other, float* out) {
  const int i = threadIdx.x;
  out[i] = in[perm[i]];
  const float* from = (i % 2) ? other : in;
  out[i] += from[i];
  out[i] += in[(i * 7) % 32];  // scattered within 128 bytes
}

int main() {
  float *in, *out, *other;
  int* perm;
  cudaMalloc(&in, 4096 * sizeof(float));
  cudaMalloc(&out, 64 * sizeof(float));
  cudaMalloc(&other, 64 * sizeof(float));
  cudaMalloc(&perm, 64 * sizeof(int));
  cudaMemset(in, 0, 4096 * sizeof(float));
  cudaMemset(other, 0, 64 * sizeof(float));
  int host_perm[64];
  for (int k = 0; k < 64; ++k) host_perm[k] = (k * 1237 + 11) % 4096;  // scattered
  cudaMemcpy(perm, host_perm, sizeof(host_perm), cudaMemcpyHostToDevice);
  uniform<<<1, 48>>>(out);
  diverging<<<1, 32>>>(in, out);
  phases<<<1, 64>>>(out);
  gather<<<1, 64>>>(in, perm, other, out);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("warp_steps: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
