// memcheck corpus: a kernel reads a buffer freed with cudaFreeAsync earlier
// in its stream.
#include <cstdio>

__global__ void sum(const float* x, float* out) { atomicAdd(out, x[threadIdx.x]); }  // line 5

int main() {
  cudaStream_t s;
  cudaStreamCreate(&s);
  float *x, *out;
  cudaMallocAsync(&x, 32 * sizeof(float), s);
  cudaMallocAsync(&out, sizeof(float), s);
  cudaMemsetAsync(x, 0, 32 * sizeof(float), s);
  cudaMemsetAsync(out, 0, sizeof(float), s);
  cudaFreeAsync(x, s);
  sum<<<1, 32, 0, s>>>(x, out);
  std::printf("after: %s\n", cudaGetErrorName(cudaStreamSynchronize(s)));
  return 0;
}
// expect: memcheck use-after-free use_after_free_async.cu:5
