// Copies whose host code is one memcpy, not loads and stores: a float4 (a
// GPU's one 16-byte load and store a lane), a structure of five floats
// (five 4-byte ones) and one with padding between its fields (a load and a
// store a field). A traced run sees their accesses as a GPU makes them, so
// the predicted time counts the bytes they move.
#include <cstdio>

struct Five {
  float a, b, c, d, e;
};
struct Padded {
  double time;
  float value;
};

__global__ void copy_float4(const float4* in, float4* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
}
__global__ void copy_five(const Five* in, Five* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
}
__global__ void copy_padded(const Padded* in, Padded* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
}

int main() {
  const int n = 1 << 22;  // elements of each kind: 64, 80 and 64 MiB
  void *in, *out;
  cudaMalloc(&in, n * sizeof(Five));
  cudaMalloc(&out, n * sizeof(Five));
  cudaMemset(in, 0, n * sizeof(Five));
  copy_float4<<<n / 256, 256>>>(static_cast<const float4*>(in), static_cast<float4*>(out));
  copy_five<<<n / 256, 256>>>(static_cast<const Five*>(in), static_cast<Five*>(out));
  copy_padded<<<n / 256, 256>>>(static_cast<const Padded*>(in), static_cast<Padded*>(out));
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("predict_wide_copies: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

// The test of this file (tests/lit/README.md): DRAM moves each copy's bytes
// both ways (the padding's too: a sector holds it with its fields), and a
// float4 copy makes a quarter of the requests of four floats' copies.
// BUILD: NO_GPU
// TEST: unit.predict_wide_copies
// LABELS: unit
// RUN: %cudalab predict --json -- %bin | %python -c "import json, sys; [print(x['kernel'], t['figures']) for x in json.load(sys.stdin)['launches'] for t in x['terms'] if t['name'] == 'DRAM bandwidth']"
// CHECK: copy_float4 134 MB at
// CHECK-NEXT: copy_five 168 MB at
// CHECK-NEXT: copy_padded 134 MB at
