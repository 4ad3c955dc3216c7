// A host buffer (a std::vector's) given to a kernel, as a student might:
// a GPU stops with an illegal address; the simulator's instrumented build
// stops there too and says whose memory it was.
#include <cstdio>
#include <vector>

__global__ void fill(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f;  // line 9: out is host memory
}

int main() {
  const int n = 256;
  std::vector<float> host(n);
  fill<<<1, 256>>>(host.data(), n);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
