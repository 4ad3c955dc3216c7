// memcheck corpus: a kernel gets a large host block that sits right above
// another one (glibc maps each large malloc on its own, side by side, and
// the kernel lists them as one mapping): it is host memory all the same.
// expect: memcheck host-pointer host_blocks_side_by_side.cu:9
#include <cstdio>
#include <cstdlib>

__global__ void read_it(const float* in, float* out) {
  out[threadIdx.x] = in[threadIdx.x];
}

int main() {
  const size_t n = 1 << 18;  // 1 MiB each: glibc maps them apart from its heap
  float* first = static_cast<float*>(std::malloc(n * sizeof(float)));
  float* second = static_cast<float*>(std::malloc(n * sizeof(float)));
  for (size_t i = 0; i < n; ++i) first[i] = second[i] = 1.0f;
  float* out = nullptr;
  cudaMalloc(&out, 32 * sizeof(float));
  read_it<<<1, 32>>>(first, out);  // needs a cudaMalloc'd copy of `first`
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  std::free(second);
  std::free(first);
  return 0;
}
