// The classic global-memory access patterns, one kernel each, one block of
// 8 warps: what `cudalab stats` must count as Nsight Compute does (sectors
// per request measured on an H200 are in DESIGN.md).
#include <cstdio>

__global__ void coalesced(const float* a, float* out) { out[threadIdx.x] = a[threadIdx.x]; }
__global__ void offset_by_one(const float* a, float* out) {
  out[threadIdx.x] = a[threadIdx.x + 1];
}
__global__ void stride_two(const float* a, float* out) { out[threadIdx.x] = a[2 * threadIdx.x]; }
__global__ void stride_32(const float* a, float* out) { out[threadIdx.x] = a[32 * threadIdx.x]; }
__global__ void broadcast(const float* a, float* out) { out[threadIdx.x] = a[0]; }
__global__ void doubles(const double* d, float* out) { out[threadIdx.x] = float(d[threadIdx.x]); }

int main() {
  const int n = 256 * 32 + 1;
  float *a, *out;
  double* d;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&d, 256 * sizeof(double));
  cudaMalloc(&out, 256 * sizeof(float));
  cudaMemset(a, 0, n * sizeof(float));
  cudaMemset(d, 0, 256 * sizeof(double));
  coalesced<<<1, 256>>>(a, out);
  offset_by_one<<<1, 256>>>(a, out);
  stride_two<<<1, 256>>>(a, out);
  stride_32<<<1, 256>>>(a, out);
  broadcast<<<1, 256>>>(a, out);
  doubles<<<1, 256>>>(d, out);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(a);
  cudaFree(d);
  cudaFree(out);
  return 0;
}
