// cudalab predict on reads of __constant__ memory: the constant cache
// serves a warp's request one distinct address after another. A filter
// read alike by all lanes (one address a request), a table read at each
// lane's own entry (32 addresses a request: bound by the constant cache),
// and a __device__ array read the same way (not constant memory).
#include <cstdio>

__constant__ float c_filter[32];
__constant__ const float c_scale = 2.0f;
__device__ float d_table[32];

__global__ void filter(const float* in, float* out, int n, int taps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0;
  for (int j = 0; j < taps; ++j) s += c_filter[j] * in[(i + j) % n];
  out[i] = s * c_scale;
}

__global__ void lanes_apart(float* out, int iters) {
  float s = 0;
  for (int k = 0; k < iters; ++k) s += c_filter[(k + threadIdx.x) & 31];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void device_array(float* out, int iters) {
  float s = 0;
  for (int k = 0; k < iters; ++k) s += d_table[(k + threadIdx.x) & 31];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

int main() {
  const int n = 1 << 16;
  float h[32];
  for (int k = 0; k < 32; ++k) h[k] = 1.0f / float(k + 1);
  cudaMemcpyToSymbol(c_filter, h, sizeof h);
  cudaMemcpyToSymbol(d_table, h, sizeof h);
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemset(in, 0, n * sizeof(float));
  filter<<<n / 256, 256>>>(in, out, n, 17);
  lanes_apart<<<n / 256, 256>>>(out, 256);
  device_array<<<n / 256, 256>>>(out, 256);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("predict_constant: %s\n", cudaGetErrorString(e));
  cudaFree(in);
  cudaFree(out);
  return e == cudaSuccess ? 0 : 1;
}

// The test of this file (tests/lit/README.md): each launch's bound and its
// constant cache's figures (about a request a tap a warp: 2,048 warps x 17, less the
// reads the host's code makes of one fixed element, its unrolled loop's last; 256
// requests a warp of 32 addresses each).
// BUILD: NO_GPU
// TEST: unit.predict_constant
// LABELS: unit
// RUN: %cudalab predict --gpu h200 --json -- %bin | %python -c "import json,sys; [print(x['kernel'], x['bound'], '|', *[t['figures'] for t in x['terms'] if t['name'] == 'constant cache'], sep=' ') for x in json.load(sys.stdin)['launches']]"
// CHECK: predict_constant: no error
// CHECK: filter {{.*}} | 3{{[34].*}} K requests of __constant__ memory, 3{{[34].*}} K distinct addresses in them
// CHECK: lanes_apart constant cache | 524 K requests of __constant__ memory, 16.8 M distinct addresses in them
// CHECK: device_array {{[a-zA-Z0-9 ]+}} |{{$}}
