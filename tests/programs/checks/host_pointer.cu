// memcheck corpus: the kernel gets the host's arrays instead of device
// copies (a malloc'd input, and main's local output array). As on a GPU,
// each thread stops at its first bad access: the read on line 9.
// expect: memcheck host-pointer host_pointer.cu:9
#include <cstdio>
#include <cstdlib>

__global__ void twice(const float* in, float* out) {
  const float v = in[threadIdx.x];
  out[threadIdx.x] = 2.0f * v;
}

int main() {
  const int n = 64;
  float* in = static_cast<float*>(std::malloc(n * sizeof(float)));
  for (int i = 0; i < n; ++i) in[i] = float(i);
  float out[n];
  twice<<<1, n>>>(in, out);  // needs cudaMalloc'd buffers and cudaMemcpy
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  std::free(in);
  return 0;
}
