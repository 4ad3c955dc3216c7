// memcheck corpus: particles of five floats copied whole (one memcpy in
// the host's code), the last one read and written past the end.
// expect: memcheck read oob_struct_copy.cu:13
// expect: memcheck write oob_struct_copy.cu:13
#include <cstdio>

struct Particle {
  float x, y, z, mass, charge;
};

__global__ void keep(const Particle* in, Particle* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];  // no i < n check
}

int main() {
  const int n = 100;
  Particle *in, *out;
  cudaMalloc(&in, n * sizeof(Particle));
  cudaMalloc(&out, n * sizeof(Particle));
  cudaMemset(in, 0, n * sizeof(Particle));
  keep<<<1, 128>>>(in, out, n);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
