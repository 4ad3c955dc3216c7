// Atomics on one address on a GPU, by the type of their values and by how
// the lanes meet there: an integer counter (`atomicAdd(c, 1u)`), a total of
// floats, of integers and of doubles, integers that meet on one address by
// their data (every key 0), a counter per block, an integer maximum; 16M
// threads, CUDA events around each launch, the best of 5, and the time a
// warp's request takes. nvcc adds a warp's integers on one address first
// (VOTEU and POPC, or REDUX) where the code makes the address the same for
// every lane; floats and doubles go lane by lane (cuobjdump -sass shows
// which). What the model's atomics (predict/README.md) are checked against:
//   nvcc -O3 -arch=sm_90 one_address_atomics.cu -o one_address_atomics && ./one_address_atomics
#include <cstdio>
#include <vector>

#include "probe_timing.h"
__global__ void counter_one(unsigned* c) { atomicAdd(c, 1u); }
__global__ void sum_float(const float* x, float* s) {
  atomicAdd(s, x[blockIdx.x * blockDim.x + threadIdx.x]);
}
__global__ void sum_int(const int* x, int* s) {
  atomicAdd(s, x[blockIdx.x * blockDim.x + threadIdx.x]);
}
__global__ void sum_double(const double* x, double* s) {
  atomicAdd(s, x[blockIdx.x * blockDim.x + threadIdx.x]);
}
__global__ void by_data(const int* k, unsigned* c) {
  atomicAdd(&c[k[blockIdx.x * blockDim.x + threadIdx.x]], 1u);
}
__global__ void per_block(unsigned* c) { atomicAdd(&c[blockIdx.x % 64], 1u); }
__global__ void max_int(const int* x, int* s) {
  atomicMax(s, x[blockIdx.x * blockDim.x + threadIdx.x]);
}
int main() {
  const int n = 1 << 24;
  float* xf;
  int* xi;
  double* xd;
  int* zeros;
  unsigned* c;
  float* sf;
  int* si;
  double* sd;
  cudaMalloc(&xf, n * 4);
  cudaMalloc(&xi, n * 4);
  cudaMalloc(&xd, n * 8);
  cudaMalloc(&zeros, n * 4);
  cudaMalloc(&c, 4096);
  cudaMalloc(&sf, 4);
  cudaMalloc(&si, 4);
  cudaMalloc(&sd, 8);
  std::vector<float> hf(n);
  std::vector<int> hi(n);
  std::vector<double> hd(n);
  for (int i = 0; i < n; ++i) {
    hf[i] = (i % 7) * 0.5f;
    hi[i] = i % 7;
    hd[i] = (i % 7) * 0.25;
  }
  cudaMemcpy(xf, hf.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(xi, hi.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(xd, hd.data(), n * 8, cudaMemcpyHostToDevice);
  cudaMemset(zeros, 0, n * 4);
  auto time = [&](const char* name, auto f) {
    const float best = best_ms(
        5, [&] { cudaMemset(c, 0, 4096); }, f);
    std::printf("%-12s %9.3f ms  %.3f ns a warp request\n", name, best, best * 1e6 / (n / 32));
  };
  const int g = n / 256;
  time("counter_one", [&] { counter_one<<<g, 256>>>(c); });
  time("sum_float", [&] { sum_float<<<g, 256>>>(xf, sf); });
  time("sum_int", [&] { sum_int<<<g, 256>>>(xi, si); });
  time("sum_double", [&] { sum_double<<<g, 256>>>(xd, sd); });
  time("by_data", [&] { by_data<<<g, 256>>>(zeros, c); });
  time("per_block", [&] { per_block<<<g, 256>>>(c); });
  time("max_int", [&] { max_int<<<g, 256>>>(xi, si); });
  std::printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
