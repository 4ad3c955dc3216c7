// One call, two kernels: a kernel template whose work grows with its
// template argument (a chain of `Steps` multiply-adds a thread), launched
// for 4 and then for 64 steps from one line of a launcher template, and
// from one line of a macro; each launched twice. The call is the same, and
// so is its name as written (`chain<Steps>`), but the kernels are not:
// `cudalab predict` traces and predicts each on its own, and tells them
// apart by their order, where it once took the second for a repeat of the
// first and gave it the first one's figure.
#include <cstdio>

template <int Steps>
__global__ void chain(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = out[i];
#pragma unroll 1
  for (int s = 0; s < Steps; ++s) x = x * 0.999f + 0.5f;
  out[i] = x;
}

template <int Steps>
void launch_chain(float* out, int n) {
  chain<Steps><<<(n + 255) / 256, 256>>>(out, n);
}

#define LAUNCH(steps) chain<steps><<<(n + 255) / 256, 256>>>(out, n)

int main() {
  const int n = 1 << 20;
  float* out;
  cudaMalloc(&out, n * sizeof(float));
  cudaMemset(out, 0, n * sizeof(float));
  for (int r = 0; r < 2; ++r) launch_chain<4>(out, n);
  for (int r = 0; r < 2; ++r) launch_chain<64>(out, n);
  // clang-format off
  for (int r = 0; r < 2; ++r) { LAUNCH(4); LAUNCH(64); }
  // clang-format on
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("predict_instantiations: %s\n", cudaGetErrorString(e));
  cudaFree(out);
  return e == cudaSuccess ? 0 : 1;
}

// The test of this file (tests/lit/README.md): the launcher's call has two
// lines, its first kernel's and its second's, each for its two launches,
// the second with at least four times the first's warp instructions (64
// steps against 4);
// the macro's line (both its launches on one line) the same.
// BUILD: NO_GPU
// TEST: unit.predict_instantiations
// LABELS: unit
// RUN: %cudalab predict --gpu h200 --sample 16 -- %bin
// CHECK: predict_instantiations: no error
// CHECK: chain<Steps><<<4096, 256>>> (the 1st kernel its call at line 23 launches) (2 launches like it; the first one's figures)
// CHECK: chain<Steps><<<4096, 256>>> (the 2nd kernel its call at line 23 launches) (2 launches like it; the first one's figures)
// RUN: %cudalab predict --gpu h200 --sample 16 --json -- %bin | %python -c "import json,sys; j=json.load(sys.stdin)['launches']; print([(x['kernel'], x['kernel_of_call'], x['launches']) for x in j]); t=[x['warp_instructions'] for x in j]; print('longer', t[1] > 4 * t[0], t[3] > 4 * t[2])"
// CHECK: [('chain<Steps>', 1, 2), ('chain<Steps>', 2, 2), ('chain<steps>', 1, 2), ('chain<steps>', 2, 2)]
// CHECK-NEXT: longer True True
