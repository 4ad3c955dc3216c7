// One kernel, one shape, other data: a histogram of 4M bytes into 256
// global bins, launched three times on uniform bytes, three times on skewed
// bytes (nine in ten are 0: most lanes of a warp on one bin, where their
// atomics take turns) and three times on the uniform bytes again; beside it, a copy whose
// input never changes and a small kernel that adds 1 to its own input at
// each launch. What `cudalab predict` makes of them: a launch like one
// before is traced again when the bytes it loads have changed, and a line
// of its own only when its figure changes too.
#include <cstdio>
#include <vector>

__global__ void histogram(const unsigned char* data, int n, unsigned* bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[data[i]], 1u);
}

__global__ void copy(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = in[i];
}

// Loads and stores its own input: each launch leaves it changed.
__global__ void add_one(int* values) { values[threadIdx.x] += 1; }

int main() {
  const int n = 1 << 22;
  unsigned char* data;
  unsigned* bins;
  float *in, *out;
  int* values;
  cudaMalloc(&data, n);
  cudaMalloc(&bins, 256 * sizeof(unsigned));
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMalloc(&values, 256 * sizeof(int));
  cudaMemset(in, 0, n * sizeof(float));
  cudaMemset(values, 0, 256 * sizeof(int));
  std::vector<unsigned char> uniform(n), skewed(n);
  unsigned x = 12345;
  for (int i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    uniform[i] = static_cast<unsigned char>(x >> 24);
    skewed[i] = (x >> 8) % 10 ? 0 : uniform[i];
  }
  for (const auto* bytes : {&uniform, &skewed, &uniform}) {
    cudaMemcpy(data, bytes->data(), n, cudaMemcpyHostToDevice);
    for (int r = 0; r < 3; ++r) {
      cudaMemset(bins, 0, 256 * sizeof(unsigned));  // what it writes: not what it loads
      histogram<<<512, 256>>>(data, n, bins);
      copy<<<512, 256>>>(in, out, n);
    }
  }
  for (int r = 0; r < 20; ++r) add_one<<<1, 256>>>(values);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("predict_new_inputs: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

// The test of this file (tests/lit/README.md): the histogram has a line for
// each set of bytes, the skewed bytes' over twice as long (their lanes'
// turns on one bin); the copy, whose input never changed, one line for its nine
// launches; add_one, traced again as its input changed, one line for its
// twenty (its figure stays the same). The JSON says each line's launches
// and which set of its kernel's inputs it is.
// BUILD: NO_GPU
// TEST: unit.predict_new_inputs
// LABELS: unit
// RUN: %cudalab predict --gpu h200 --sample 16 -- %bin
// CHECK: predict_new_inputs: no error
// CHECK: histogram<<<512, 256>>> (3 launches like it; the first one's figures)
// CHECK: copy<<<512, 256>>> (9 launches like it; the first one's figures)
// CHECK: histogram<<<512, 256>>>, on its 2nd set of input data (3 launches like it; the first one's figures)
// CHECK: histogram<<<512, 256>>>, on its 3rd set of input data (3 launches like it; the first one's figures)
// CHECK: add_one<<<1, 256>>> (20 launches like it; the first one's figures)
// CHECK-NOT: add_one
// RUN: %cudalab predict --gpu h200 --sample 16 --json -- %bin | %python -c "import json,sys; j=json.load(sys.stdin)['launches']; print([(x['kernel'], x['launches'], x['inputs']) for x in j]); h=[x['kernel_us'] for x in j if x['kernel'] == 'histogram']; print('skewed slower', h[1] > 2 * h[0], 'uniform again', abs(h[2] - h[0]) < 0.02 * h[0])"
// CHECK: [('histogram', 3, 1), ('copy', 9, 1), ('histogram', 3, 2), ('histogram', 3, 3), ('add_one', 20, 1)]
// CHECK-NEXT: skewed slower True uniform again True
