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
__global__ void double_in_place(float* v, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    v[i] *= 2.0f;
}

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
  // The same bytes copied in before each launch, which doubles them: its
  // inputs never change.
  std::vector<float> ones(n, 1.0f), other(n);
  for (int r = 0; r < 5; ++r) {
    cudaMemcpy(in, ones.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    double_in_place<<<512, 256>>>(in, n);
  }
  // New bytes before each of 12 launches: traced again at most 8 times.
  for (int r = 0; r < 12; ++r) {
    for (int i = 0; i < n; ++i) other[i] = float(i % (r + 3));
    cudaMemcpy(out, other.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    double_in_place<<<512, 256>>>(out, n);
  }
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("predict_new_inputs: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

// The test of this file (tests/lit/README.md): the histogram has a line for
// each set of bytes, the skewed bytes' over twice as long (their lanes'
// turns on one bin), each from one traced launch; the copy, whose input
// never changed, one line for its nine launches, traced once; add_one (a
// small launch, which runs whole each time and is not traced again) one
// line for its twenty; double_in_place, from its first call, traced once
// though it doubles what it loads (the same bytes are copied in before
// each launch); from its second, with new bytes each time, traced 8 times
// of 12 (the cap), one line (its figure stays the same). The JSON says
// each line's launches, launches traced, and which set of its kernel's
// inputs it is.
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
// RUN: %cudalab predict --gpu h200 --sample 16 --json -- %bin | %python -c "import json,sys; j=json.load(sys.stdin)['launches']; print([(x['kernel'], x['launches'], x['traced'], x['inputs']) for x in j]); h=[x['kernel_us'] for x in j if x['kernel'] == 'histogram']; print('skewed slower', h[1] > 2 * h[0], 'uniform again', abs(h[2] - h[0]) < 0.02 * h[0])"
// CHECK: [('histogram', 3, 1, 1), ('copy', 9, 1, 1), ('histogram', 3, 1, 2), ('histogram', 3, 1, 3), ('add_one', 20, 1, 1), ('double_in_place', 5, 1, 1), ('double_in_place', 12, 8, 1)]
// CHECK-NEXT: skewed slower True uniform again True
