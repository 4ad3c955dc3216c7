// memcheck corpus: a buffer freed twice.
// expect: memcheck api double_free.cu:9
#include <cstdio>

int main() {
  float* x;
  cudaMalloc(&x, 400);
  cudaFree(x);
  const cudaError_t e = cudaFree(x);
  std::printf("after: %s\n", cudaGetErrorName(e));
  return 0;
}
