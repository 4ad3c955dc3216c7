#include <cstdio>

constexpr int kTile = 16;

// One block sums its tile: a loop of a count known when compiled.
__global__ void tile_sum(const float* in, float* out) {
  float s = 0;
  for (int k = 0; k < kTile; ++k) s += in[threadIdx.x + k * blockDim.x];
  out[threadIdx.x] = s;
}

// The same sums by a grid-stride loop over a count known when it runs.
__global__ void stride_sum(const float* in, int n, float* out) {
  float s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) s += in[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

int main() {
  const int n = kTile * 256;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, 256 * sizeof(float));
  cudaMemset(in, 0, n * sizeof(float));
  tile_sum<<<1, 256>>>(in, out);
  stride_sum<<<1, 256>>>(in, n, out);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("predict_loop_waits: %s\n", cudaGetErrorString(e));
  cudaFree(in);
  cudaFree(out);
  return e == cudaSuccess ? 0 : 1;
}

// The test of this file (tests/lit/README.md): both loads step by the
// grid's threads (one block), but only the grid-stride loop's iterations
// wait for each other: nvcc unrolls the tile's loop of 16 and issues its
// loads together.
// BUILD: NO_GPU
// TEST: unit.predict_loop_waits
// LABELS: unit
// RUN: %cudalab predict --gpu h200 --json -- %bin | %python -c "import json,sys; [print(x['kernel'], [t['figures'] for t in x['terms'] if t['name'] == 'latency'][0]) for x in json.load(sys.stdin)['launches']]"
// CHECK: predict_loop_waits: no error
// CHECK: tile_sum {{.*}}their loads overlapping
// CHECK: stride_sum {{.*}}each waiting for its load (a grid-stride loop)
