// Correct: structures with padding between their fields (a double, then a
// float: 4 bytes of padding) written field by field, then copied whole.
// A GPU copies a structure field by field, so the padding, never written,
// is never read either: initcheck has nothing to say.
#include <cstdio>

struct Sample {
  double time;
  float value;
};

__global__ void fill(Sample* s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    s[i].time = i * 0.5;
    s[i].value = float(i);
  }
}

__global__ void copy(const Sample* in, Sample* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[n - 1 - i];
}

int main() {
  const int n = 300;
  Sample *a, *b;
  cudaMalloc(&a, n * sizeof(Sample));
  cudaMalloc(&b, n * sizeof(Sample));
  fill<<<2, 256>>>(a, n);
  copy<<<2, 256>>>(a, b, n);
  Sample last;
  cudaMemcpy(&last, b + n - 1, sizeof(Sample), cudaMemcpyDeviceToHost);
  std::printf("after: %s, %g %g\n", cudaGetErrorName(cudaDeviceSynchronize()), last.time,
              double(last.value));
  cudaFree(a);
  cudaFree(b);
  return 0;
}
