// memcheck corpus: an 8-byte read that starts at the buffer's last int and
// ends 4 bytes past the buffer (bytes 24 to 31 of a 28-byte buffer): out of
// bounds, though its first bytes are the buffer's.
// expect: memcheck read oob_straddle.cu:10
#include <cstdio>

__global__ void pairs(const int* in, long long* out) {
  // The last two ints as one 8-byte value: the second is not there.
  const long long* both = reinterpret_cast<const long long*>(in + 6);
  out[0] = *both;
}

int main() {
  int* in;
  long long* out;
  cudaMalloc(&in, 7 * sizeof(int));
  cudaMalloc(&out, sizeof(long long));
  cudaMemset(in, 0, 7 * sizeof(int));
  pairs<<<1, 1>>>(in, out);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
