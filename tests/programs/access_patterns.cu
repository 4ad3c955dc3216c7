// The classic access patterns, one kernel each: global memory with one block
// of 8 warps, shared memory with a 32x32 tile. What `cudalab stats` must
// count as Nsight Compute does (the figures measured on an H200 are in
// docs/measurements.md).
#include <cstdio>

__global__ void coalesced(const float* a, float* out) { out[threadIdx.x] = a[threadIdx.x]; }
__global__ void offset_by_one(const float* a, float* out) {
  out[threadIdx.x] = a[threadIdx.x + 1];
}
__global__ void stride_two(const float* a, float* out) { out[threadIdx.x] = a[2 * threadIdx.x]; }
__global__ void stride_32(const float* a, float* out) { out[threadIdx.x] = a[32 * threadIdx.x]; }
__global__ void broadcast(const float* a, float* out) { out[threadIdx.x] = a[0]; }
__global__ void doubles(const double* d, float* out) { out[threadIdx.x] = float(d[threadIdx.x]); }

// Shared memory, one block of 32x32 threads: each warp (fixed threadIdx.y)
// reads a row, a column, a column of a padded tile, every other word, one word.
__global__ void shared_patterns(float* out) {
  __shared__ float tile[32][32];
  __shared__ float padded[32][33];
  __shared__ float flat[2048];
  const unsigned x = threadIdx.x, y = threadIdx.y;
  tile[y][x] = float(x);
  padded[y][x] = float(y);
  flat[y * 64 + x] = flat[y * 64 + x + 32] = 1.0f;
  __syncthreads();
  float v = tile[y][x];   // row: 1 wavefront
  v += tile[x][y];        // column: 32 wavefronts, 31 conflicts
  v += padded[x][y];      // padded column: 1, 0
  v += flat[2 * x];       // stride 2: 2, 1
  v += tile[0][0];        // broadcast: 1, 0
  out[y * 32 + x] = v;
}

// 8-byte shared accesses: a warp reads 32 consecutive doubles (two halves of
// the warp), then every other double.
__global__ void shared_doubles(double* out) {
  __shared__ double d[64];
  d[threadIdx.x] = d[threadIdx.x + 32] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = d[threadIdx.x] + d[2 * threadIdx.x];
}

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
  float* big;
  cudaMalloc(&big, 1024 * sizeof(float));
  shared_patterns<<<1, dim3(32, 32)>>>(big);
  shared_doubles<<<1, 32>>>(d);
  cudaFree(big);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(a);
  cudaFree(d);
  cudaFree(out);
  return 0;
}
