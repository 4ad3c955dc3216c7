// cudalab predict on work a warp waits for: a chain of dependent
// multiply-adds in one warp (each waits for the one before: the latency
// term counts them, and one scheduler of four has a warp to issue), the
// same chain in many warps (issue-bound), a switch whose lanes take
// different cases (a turn at the jump table for each case), and an
// if / else-if ladder on one value (a table in the host's code, branches in
// nvcc's: no turns).
#include <cstdio>

__global__ void chain(float* out, int steps) {
  float x = threadIdx.x * 0.001f;
  for (int s = 0; s < steps; ++s) x = x * 0.9999f + 0.0001f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

__global__ void cases(float* out, int steps) {
  float x = threadIdx.x;
  for (int k = 0; k < steps; ++k) {
    switch ((threadIdx.x + k) & 7) {
      case 0: x = x * 1.01f + 1; break;
      case 1: x = x * 0.99f + 2; break;
      case 2: x = x * 1.02f - 1; break;
      case 3: x = x * 0.98f + 3; break;
      case 4: x = x + 5; break;
      case 5: x = x * 1.5f; break;
      case 6: x = x - 7; break;
      default: x = x * 0.5f + 1; break;
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

__global__ void ladder(float* out, int steps) {
  float x = threadIdx.x;
  for (int k = 0; k < steps; ++k) {
    const int c = (threadIdx.x + k) & 7;
    if (c == 0) x = x * 1.01f + 1;
    else if (c == 1) x = x * 0.99f + 2;
    else if (c == 2) x = x * 1.02f - 1;
    else if (c == 3) x = x * 0.98f + 3;
    else if (c == 4) x = x + 5;
    else if (c == 5) x = x * 1.5f;
    else if (c == 6) x = x - 7;
    else x = x * 0.5f + 1;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

int main() {
  float* out;
  cudaMalloc(&out, 1056 * 256 * sizeof(float));
  chain<<<1, 32>>>(out, 4096);
  chain<<<1056, 256>>>(out, 256);
  cases<<<4, 256>>>(out, 64);
  ladder<<<4, 256>>>(out, 64);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("predict_chains: %s\n", cudaGetErrorString(e));
  cudaFree(out);
  return e == cudaSuccess ? 0 : 1;
}

// The test of this file (tests/lit/README.md): each launch's bound and
// the figures of its latency and instruction issue.
// BUILD: NO_GPU
// TEST: unit.predict_chains
// LABELS: unit
// RUN: %cudalab predict --gpu h200 --json -- %bin | %python -c "import json,sys; [print(x['kernel'], x['grid'][0], x['bound'], '|', *[t['figures'] for t in x['terms'] if t['name'] in ('latency', 'instruction issue')], sep=' ') for x in json.load(sys.stdin)['launches']]"
// CHECK: predict_chains: no error
// CHECK: chain 1 latency | {{.*}}4.1{{[0-9]}} K dependent instructions a warp{{.*}}(1 of 4 schedulers a multiprocessor with a warp)
// CHECK: chain 1056 instruction issue |
// CHECK-NOT: schedulers a multiprocessor
// CHECK: cases 4 {{.*}}turns at a switch whose lanes parted
// CHECK: ladder 4 {{.*}}|
// CHECK-NOT: turns at a switch
