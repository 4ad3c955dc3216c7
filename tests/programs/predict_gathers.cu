// Gathers from a table that stays in L1: each warp's load reads 32
// different 128-byte lines, either all at word 0 of their line (one bank of
// L1: a turn a line) or each at another word (33 words apart: other banks,
// where L1 takes four lines a turn), and a load of one line for scale. What
// `cudalab predict` counts as L1's wavefronts for each, as measured on an
// H200 (predict/calibration/gather_lines.cu: 32, 8 and 1 a request).
#include <cstdio>

__global__ void gather(const float* table, int spacing, float* out, int iters) {
  const int lane = threadIdx.x & 31;
  float s = 0;
  for (int k = 0; k < iters; ++k) s += table[(lane * spacing + k * 32 * spacing) & 1023];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

int main() {
  float *table, *out;
  cudaMalloc(&table, 1024 * sizeof(float));
  cudaMalloc(&out, 512 * 256 * sizeof(float));
  cudaMemset(table, 0, 1024 * sizeof(float));
  for (const int spacing : {32, 33, 1}) gather<<<512, 256>>>(table, spacing, out, 64);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("predict_gathers: %s\n", cudaGetErrorString(e));
  cudaFree(table);
  cudaFree(out);
  return e == cudaSuccess ? 0 : 1;
}

// The test of this file (tests/lit/README.md): the three launches are one
// call and one shape with other arguments, so each is traced anew (a
// sample of its blocks) and is a line of its own; their wavefronts,
// against the last one's (one line a load): 32, 8 and 1, rounded (each
// thread's store of its sum adds a little to each).
// BUILD: NO_GPU
// TEST: unit.predict_gathers
// LABELS: unit
// RUN: %cudalab predict --gpu h200 --sample 16 --json -- %bin | %python -c "import json,sys; j=json.load(sys.stdin)['launches']; w=[[t['us'] for t in x['terms'] if t['name'] == 'L1 and shared-memory wavefronts'][0] for x in j]; print(len(j), [round(v / w[-1]) for v in w])"
// CHECK: predict_gathers: no error
// CHECK: 3 [32, 8, 1]
