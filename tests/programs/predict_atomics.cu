// Every thread of 262,144 adds its value to one total: floats, then
// integers. On a GPU nvcc adds a warp's integers up first and sends one
// atomic, but each lane's float atomic goes on its own and waits its turn
// (predict/calibration/one_address_atomics.cu: 56 ns a warp's floats, under
// 1 ns its integers); and each block's floats into one total in shared
// memory. What `cudalab predict` makes of them.
#include <cstdio>

__global__ void float_total(const float* in, float* total) {
  atomicAdd(total, in[blockIdx.x * blockDim.x + threadIdx.x]);
}
__global__ void int_total(const int* in, int* total) {
  atomicAdd(total, in[blockIdx.x * blockDim.x + threadIdx.x]);
}
// A block's floats into one total in shared memory (a loop of
// compare-and-swap on a GPU, the warp's lanes in turn), then out.
__global__ void shared_float_total(const float* in, float* out) {
  __shared__ float total;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  atomicAdd(&total, in[blockIdx.x * blockDim.x + threadIdx.x]);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}

int main() {
  const int n = 1 << 18;
  float *f, *ftotal;
  int *i, *itotal;
  cudaMalloc(&f, n * sizeof(float));
  cudaMalloc(&i, n * sizeof(int));
  cudaMalloc(&ftotal, sizeof(float));
  cudaMalloc(&itotal, sizeof(int));
  cudaMemset(f, 0, n * sizeof(float));
  cudaMemset(i, 0, n * sizeof(int));
  float_total<<<n / 256, 256>>>(f, ftotal);
  int_total<<<n / 256, 256>>>(i, itotal);
  shared_float_total<<<n / 256, 256>>>(f, f);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("predict_atomics: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

// The test of this file (tests/lit/README.md): the floats take a turn a
// lane (8,192 warps of 32), bound by the atomics and over 20 times the
// integers' time; the integers one atomic a warp; in shared memory, each
// float request has 31 more rounds.
// BUILD: NO_GPU
// TEST: unit.predict_float_atomics_take_turns
// LABELS: unit
// RUN: %cudalab predict --gpu h200 --sample 16 -- %bin
// CHECK: float_total<<<1024, 256>>>
// CHECK: bound by global atomics
// CHECK: global atomics {{.*}} 262 Katomics on one address at {{.*}}, of them 262 K turns of float lanes on one address at 1.7{{[0-9]}} ns
// CHECK: int_total<<<1024, 256>>>
// CHECK-NOT: turns of float lanes
// CHECK: global atomics {{.*}} 8.19 Katomics on one address
// CHECK: shared_float_total<<<1024, 256>>>
// CHECK: shared-memory atomics {{.*}} 8.19 K requests of floats at {{.*}} and 254 K more rounds of their lanes on one address
// RUN: %cudalab predict --gpu h200 --sample 16 --json -- %bin | %python -c "import json,sys; t={x['kernel']: x['kernel_us'] for x in json.load(sys.stdin)['launches']}; print('floats over 20 times', t['float_total'] > 20 * t['int_total'])"
// CHECK: floats over 20 times True
