// A kernel that never ends, for the viewer's tests: its loop's step sits
// inside an `if` that never holds, so each thread goes round its first
// element forever. Run with CUDALAB_TIMEOUT the simulator stops the launch;
// the trace says where a thread was then (in the loop, lines 10 to 13).
#include <cstdio>

__global__ void add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  while (i < n) {
    c[i] = a[i] + b[i];
    if (c[i] > 1e30f) i += stride;
  }
}

int main() {
  const int n = 256;
  float *a, *b, *c;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&c, n * sizeof(float));
  cudaMemset(a, 0, n * sizeof(float));
  cudaMemset(b, 0, n * sizeof(float));
  add<<<2, 64>>>(a, b, c, n);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("traced_never_ends: %s\n", cudaGetErrorString(e));
  return e == cudaErrorLaunchTimeout ? 0 : 1;
}
