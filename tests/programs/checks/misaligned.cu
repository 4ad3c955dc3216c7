// memcheck corpus: an int read from an address one byte into a buffer.
// expect: memcheck misaligned misaligned.cu:6
#include <cstdio>

__global__ void read_packed(const char* bytes, int* out) {
  *out = *reinterpret_cast<const int*>(bytes + 1);
}

int main() {
  char* bytes;
  int* out;
  cudaMalloc(&bytes, 64);
  cudaMalloc(&out, sizeof(int));
  cudaMemset(bytes, 0, 64);
  read_packed<<<1, 1>>>(bytes, out);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(bytes);
  cudaFree(out);
  return 0;
}
