// A copy of 16M floats (64 MiB each way) by a grid-stride loop in 2,048
// blocks, a kernel of one thread that waits for a chain of loads, one warp
// alone scaling 1M floats (each iteration waits for its load: the store
// comes between), and arithmetic in half of each warp's lanes: the
// predicted times' command (cudalab predict) on a program, with a sample of
// each launch's blocks.
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void copy(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = in[i];
}

// One thread follows next[] 1,000 times: each load waits for the one before
// (one load instruction, not unrolled: the model knows a chain by that).
__global__ void chase(const int* next, int* end) {
  int at = 0;
#pragma unroll 1
  for (int k = 0; k < 1000; ++k) at = next[at];
  *end = at;
}

__global__ void one_warp(const float* in, float* out, int n) {
  for (int i = threadIdx.x; i < n; i += 32) out[i] = in[i] * 2.0f;
}
__global__ void half_lanes(float* out) {
  float v = threadIdx.x;
  if (threadIdx.x % 2)
    for (int s = 0; s < 256; ++s) v = v * 0.999f + 1.0f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
// predict_copy [N [copy]]: N floats (16M); `copy`: the copy's launches alone.
int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 24;
  const bool copy_alone = argc > 2 && std::strcmp(argv[2], "copy") == 0;
  float *in, *out;
  int *next, *end;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMalloc(&next, n * sizeof(int));
  cudaMalloc(&end, sizeof(int));
  cudaMemset(in, 0, n * sizeof(float));
  cudaMemset(next, 0, n * sizeof(int));
  {  // a chain through the first 1,001 elements, 37 apart (mod 1,001): its
     // steps are not equal, as a pointer chase's are not
    int chain[1001];
    for (int j = 0; j < 1001; ++j) chain[j * 37 % 1001] = (j + 1) * 37 % 1001;
    cudaMemcpy(next, chain, sizeof(chain), cudaMemcpyHostToDevice);
  }
  for (int r = 0; r < 3; ++r) copy<<<2048, 256>>>(in, out, n);
  if (!copy_alone) {
    chase<<<1, 1>>>(next, end);
    one_warp<<<1, 32>>>(in, out, 1 << 20 < n ? 1 << 20 : n);
    half_lanes<<<n / 256, 256>>>(out);
  }
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("predict_copy: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

// The test of this file (tests/lit/README.md): the copy's three launches
// are one line, counted on a sample of its blocks (those that ran), and
// bound by DRAM (128 MiB through a 60 MiB L2); the chase is one thread's
// chain of loads (the model's latency); the JSON says the same. For a copy
// of 1M floats, a trace of the whole run and one of a sample predict the
// same L2 traffic (the sample's scaling; all of it fits in L2): the copy's
// launches alone, the others left out of those two runs.
// BUILD: NO_GPU
// TEST: unit.predict_a_program
// LABELS: unit
// PROPERTIES: COST 12
// RUN: %cudalab predict --gpu h200 --sample 16 -- %bin
// CHECK: predict_copy: no error
// CHECK: Predicted on an NVIDIA H200
// CHECK: copy<<<2048, 256>>> (3 launches like it; the first one's figures)
// CHECK-NEXT: counted on {{[0-9]+}} of its 2048 blocks, scaled up
// CHECK-NEXT: bound by DRAM bandwidth
// CHECK: DRAM bandwidth {{3[0-9]\.[0-9]}} us 134 MB at {{[0-9.]+}} TB/s
// CHECK: chase<<<1, 1>>>
// CHECK-NOT: counted on
// CHECK: bound by latency
// CHECK: latency {{.*}} 874 L1 hits and 126 misses of one load one after another
// CHECK: one_warp<<<1, 32>>>
// CHECK: bound by latency
// CHECK: latency {{.*}} a loop's 32.8 K iterations (32.8 K missing L1), each waiting for its load (a store between)
// CHECK: half_lanes<<<65536, 256>>>
// CHECK: instruction issue {{.*}} warp instructions (estimated from the code)
// CHECK: FP32 arithmetic {{.*}} 4.29 GFLOP (8.59 G lanes' worth issued, idle lanes included)
// The JSON: each launch's kernel, count and bound; and its estimated warp
// instructions, scaled up from the sample (half_lanes' 524,288 warps each
// run its loop of 256 iterations).
// RUN: %cudalab predict --gpu h200 --json -- %bin | %python -c "import json,sys; j=json.load(sys.stdin); print('launches', [(x['kernel'], x['launches'], x['bound']) for x in j['launches']]); w={x['kernel']: x['warp_instructions'] for x in j['launches']}; print('instructions', all(v > 0 for v in w.values()), w['half_lanes'] >= 256 * 524288)"
// CHECK: launches [('copy', 3, 'DRAM bandwidth'), ('chase', 1, 'latency'), ('one_warp', 1, 'latency'), ('half_lanes', 1, 'instruction issue')]
// CHECK-NEXT: instructions True True
// RUN: CUDALAB_TRACE=whole.trace %bin 1048576 copy && %cudalab predict whole.trace
// CHECK: copy<<<2048, 256>>>
// CHECK-NOT: counted on
// CHECK: L2 bandwidth {{[0-9.]+}} us 8.39 MB at {{[0-9.]+}} TB/s
// RUN: %cudalab predict --sample 16 -- %bin 1048576 copy
// CHECK: copy<<<2048, 256>>>
// CHECK-NEXT: counted on
// CHECK: L2 bandwidth {{[0-9.]+}} us 8.39 MB at {{[0-9.]+}} TB/s
// RUN: %cudalab predict --gpu voodoo2 whole.trace
// EXIT: 2
// CHECK: no calibration data for a GPU named 'voodoo2' (there are data for: h100, h200)
// RUN: %cudalab predict --gpu h200 -- /no/such/program
// EXIT: 127
// What the model does not time gets no figure: textures, tensor cores.
// RUN: %cudalab predict -- %bindir/textures
// CHECK: no prediction: it uses textures, which the model does not time
// RUN: %cudalab predict -- %bindir/wmma
// CHECK: no prediction: it uses tensor cores (wmma), which the model does not time
