// __dp4a and __dp2a_lo/_hi (sm_61's dot products of bytes), signed and
// unsigned, on ints and on char4/uchar4/short2/ushort2, over 256 words (the
// extremes first, then a linear congruential sequence): one line of eight
// results per word. tests/data/dot_bytes_gpu.txt is what an H100 printed
// (nvcc -arch=sm_90, CUDA 13.0); the simulator must print the same.
#include <cstdio>
__global__ void k(const unsigned* v, int n, unsigned* out) {
  int i = threadIdx.x;
  if (i >= n) return;
  unsigned a = v[i], b = v[(i * 7 + 3) % n], c = v[(i * 13 + 5) % n];
  out[i * 8 + 0] = __dp4a(int(a), int(b), int(c));
  out[i * 8 + 1] = __dp4a(a, b, c);
  out[i * 8 + 2] = __dp2a_lo(int(a), int(b), int(c));
  out[i * 8 + 3] = __dp2a_lo(a, b, c);
  out[i * 8 + 4] = __dp2a_hi(int(a), int(b), int(c));
  out[i * 8 + 5] = __dp2a_hi(a, b, c);
  char4 ca, cb; uchar4 ua, ub; short2 sa; ushort2 usa;
  memcpy(&ca, &a, 4); memcpy(&cb, &b, 4); memcpy(&ua, &a, 4); memcpy(&ub, &b, 4);
  memcpy(&sa, &a, 4); memcpy(&usa, &a, 4);
  out[i * 8 + 6] = __dp4a(ca, cb, int(c)) ^ __dp2a_hi(sa, cb, int(c));
  out[i * 8 + 7] = __dp4a(ua, ub, c) ^ __dp2a_lo(usa, ub, c);
}
int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("no CUDA device\n");
    return 77;
  }
  const int n = 256;
  unsigned h[n];
  unsigned x = 12345;
  for (int i = 0; i < n; ++i) { x = x * 1664525u + 1013904223u; h[i] = x; }
  h[0] = 0x80808080u; h[1] = 0x7f7f7f7fu; h[2] = 0xffffffffu; h[3] = 0; h[4] = 0x8000ff01u;
  unsigned *dv, *dout;
  cudaMalloc(&dv, sizeof h); cudaMalloc(&dout, n * 8 * sizeof(unsigned));
  cudaMemcpy(dv, h, sizeof h, cudaMemcpyHostToDevice);
  k<<<1, n>>>(dv, n, dout);
  static unsigned out[n * 8];
  cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < 8; ++j) printf("%08x ", out[i * 8 + j]);
    printf("\n");
  }
}

// The tests of this program (tests/lit/README.md): both builds print what
// an H100 printed (data/dot_bytes_gpu.txt; nvcc -arch=sm_90, CUDA 13.0).
// BUILD:
// TEST: unit.dot_bytes_matches_gpu
// LABELS: unit
// RUN: %bin > dot_bytes_sim.txt
// RUN: diff %data/dot_bytes_gpu.txt dot_bytes_sim.txt
//
// TEST: gpu.dot_bytes_matches_expected
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu > dot_bytes_gpu_now.txt
// RUN: diff %data/dot_bytes_gpu.txt dot_bytes_gpu_now.txt
