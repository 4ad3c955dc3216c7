// Every thread of 262,144 adds its value to one total: floats, then
// integers. On a GPU nvcc adds a warp's integers up first and sends one
// atomic, but each lane's float atomic goes on its own and waits its turn
// (predict/calibration/one_address_atomics.cu: 56 ns a warp's floats, under
// 1 ns its integers). What `cudalab predict` makes of both.
#include <cstdio>

__global__ void float_total(const float* in, float* total) {
  atomicAdd(total, in[blockIdx.x * blockDim.x + threadIdx.x]);
}
__global__ void int_total(const int* in, int* total) {
  atomicAdd(total, in[blockIdx.x * blockDim.x + threadIdx.x]);
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
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("predict_atomics: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

// The test of this file (tests/lit/README.md): the floats take a turn a
// lane (8,192 warps of 32), bound by the atomics and over 20 times the
// integers' time; the integers one atomic a warp.
// BUILD: NO_GPU
// TEST: unit.predict_float_atomics_take_turns
// LABELS: unit
// RUN: %cudalab predict --gpu h200 --sample 16 -- %bin
// CHECK: float_total<<<1024, 256>>>
// CHECK: bound by global atomics
// CHECK: global atomics {{.*}} 262 Katomics on one address at {{.*}}, of them 262 K turns of float lanes on one address at 1.77 ns
// CHECK: int_total<<<1024, 256>>>
// CHECK-NOT: turns of float lanes
// CHECK: global atomics {{.*}} 8.19 Katomics on one address
// RUN: %cudalab predict --gpu h200 --sample 16 --json -- %bin | %python -c "import json,sys; t={x['kernel']: x['kernel_us'] for x in json.load(sys.stdin)['launches']}; print('floats over 20 times', t['float_total'] > 20 * t['int_total'])"
// CHECK: floats over 20 times True
