// cudalab predict on a kernel's __device__ variables: a count that every
// thread adds to, kept in a __device__ variable or in a cudaMalloc'd
// buffer, takes the same turns at one address; a __device__ table's reads
// are global loads.
#include <cstdio>

__device__ unsigned d_count;
__device__ float d_table[256];

__global__ void count_global(const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] >= 0) atomicAdd(&d_count, 1u);
}

__global__ void count_buffer(const float* in, int n, unsigned* count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] >= 0) atomicAdd(count, 1u);
}

__global__ void look_up(const int* keys, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = d_table[keys[i] & 255];
}

int main() {
  const int n = 1 << 20;
  float *in, *out;
  unsigned* count;
  int* keys;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMalloc(&keys, n * sizeof(int));
  cudaMalloc(&count, sizeof(unsigned));
  cudaMemset(in, 0, n * sizeof(float));
  cudaMemset(keys, 0, n * sizeof(int));
  cudaMemset(count, 0, sizeof(unsigned));
  count_global<<<n / 256, 256>>>(in, n);
  count_buffer<<<n / 256, 256>>>(in, n, count);
  look_up<<<n / 256, 256>>>(keys, out, n);
  unsigned a = 0, b = 0;
  cudaMemcpyFromSymbol(&a, d_count, sizeof a);
  cudaMemcpy(&b, count, sizeof b, cudaMemcpyDeviceToHost);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("predict_device_globals: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

// The test of this file (tests/lit/README.md): both counts bound by their
// atomics on one address, with the same figures; the table's reads counted.
// BUILD: NO_GPU
// TEST: unit.predict_device_globals
// LABELS: unit
// RUN: %cudalab predict --gpu h200 --json -- %bin | %python -c "import json,sys; [print(x['kernel'], x['bound'], '|', *[t['figures'] for t in x['terms'] if t['name'] in ('global atomics', 'L1 and shared-memory wavefronts')], sep=' ') for x in json.load(sys.stdin)['launches']]"
// CHECK: predict_device_globals: no error
// CHECK: count_global global atomics | 32.8 Katomics on one address
// CHECK: count_buffer global atomics | 32.8 Katomics on one address
// CHECK: look_up {{.*}} | {{[0-9.]+}} Kwavefronts
