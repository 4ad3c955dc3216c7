// What a warp spends where its lanes part, and what __constant__ tables
// cost, timed on a GPU (CUDA events, the median of 10 after a warm-up):
//   - a switch of 1 to 32 cases (a multiply-add each) that the lanes of a
//     warp take each its own way (paths_div) or all alike (paths_uni);
//   - an if/else of 1 or 8 multiply-adds a side, lanes parted by their
//     parity or all alike;
//   - a __constant__ table read at 1, 2, 4, 8 or 32 addresses a warp
//     request, and the same table in global memory.
// Run under Nsight Compute too, for each kernel's warp instructions:
//   nvcc -O3 -arch=sm_90 divergence.cu -o divergence && ./divergence
//   ncu --csv --metrics smsp__inst_executed.sum,gpu__time_duration.sum ./divergence --quick
#include <cstdio>
#include <cstring>
#include <vector>

#include "probe_timing.h"

// clang-format off
#define CASE(i)                               \
  case i:                                     \
    x = fmaf(x, 1.0f + (i)*0.001f, float(i)); \
    break;
// clang-format on
template <int Paths, bool Uniform>
__global__ void paths(float* out, int iters) {
  float x = threadIdx.x;
  const int who = Uniform ? blockIdx.x : threadIdx.x;
  for (int k = 0; k < iters; ++k) {
    // clang-format off
    switch ((who + k) % Paths) {
      CASE(0) CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) CASE(7)
      CASE(8) CASE(9) CASE(10) CASE(11) CASE(12) CASE(13) CASE(14) CASE(15)
      CASE(16) CASE(17) CASE(18) CASE(19) CASE(20) CASE(21) CASE(22) CASE(23)
      CASE(24) CASE(25) CASE(26) CASE(27) CASE(28) CASE(29) CASE(30) CASE(31)
      // clang-format on
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
// A switch of 8 cases, 8 multiply-adds one after another a case.
// clang-format off
#define HEAVY_CASE(i)                                                  \
  case i:                                                              \
    _Pragma("unroll") for (int j = 0; j < 8; ++j)                      \
      x = fmaf(x, 1.0f + (i)*0.001f, float(i));                        \
    break;
// clang-format on
__global__ void heavy_paths(float* out, int iters) {
  float x = threadIdx.x;
  for (int k = 0; k < iters; ++k) {
    switch ((threadIdx.x + k) & 7) {
      HEAVY_CASE(0)
      HEAVY_CASE(1)
      HEAVY_CASE(2) HEAVY_CASE(3) HEAVY_CASE(4) HEAVY_CASE(5) HEAVY_CASE(6) HEAVY_CASE(7)
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
// An if / else-if ladder of 8 rungs that the lanes of a warp take each its
// own way, as a student writes one.
__global__ void ladder(float* out, int iters) {
  float x = threadIdx.x;
  for (int k = 0; k < iters; ++k) {
    const int c = (threadIdx.x + k) & 7;
    if (c == 0)
      x = x * 1.01f + 1;
    else if (c == 1)
      x = x * 0.99f + 2;
    else if (c == 2)
      x = x * 1.02f - 1;
    else if (c == 3)
      x = x * 0.98f + 3;
    else if (c == 4)
      x = x + 5;
    else if (c == 5)
      x = x * 1.5f;
    else if (c == 6)
      x = x - 7;
    else
      x = x * 0.5f + 1;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
template <int Length, bool Uniform>
__global__ void if_else(float* out, int iters) {
  float x = threadIdx.x;
  const int who = Uniform ? blockIdx.x : threadIdx.x;
  for (int k = 0; k < iters; ++k) {
    if ((who + k) & 1) {
#pragma unroll
      for (int j = 0; j < Length; ++j) x = fmaf(x, 1.001f, 1.0f);
    } else {
#pragma unroll
      for (int j = 0; j < Length; ++j) x = fmaf(x, 0.999f, 2.0f);
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
__constant__ float c_table[1024];
template <int Addresses>
__global__ void const_read(float* out, int iters) {
  const int lane = threadIdx.x & 31;
  float s = 0;
  for (int k = 0; k < iters; ++k) s += c_table[(k + (lane % Addresses) * 33) & 1023];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
template <int Addresses>
__global__ void global_read(const float* table, float* out, int iters) {
  const int lane = threadIdx.x & 31;
  float s = 0;
  for (int k = 0; k < iters; ++k) s += table[(k + (lane % Addresses) * 33) & 1023];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

bool g_quick = false;
template <class F>
void time_it(const char* name, F f) {
  f();  // a warm-up
  std::printf("%-22s %12.2f us\n", name, median_ms(g_quick ? 1 : 10, f) * 1e3);
}
int main(int argc, char** argv) {
  g_quick = argc > 1 && !std::strcmp(argv[1], "--quick");
  const int blocks = 132 * 16, threads = 256, iters = 1024;
  float *out, *table;
  cudaMalloc(&out, size_t(blocks) * threads * 4);
  cudaMalloc(&table, 1024 * 4);
  std::vector<float> tab(1024);
  for (int i = 0; i < 1024; ++i) tab[i] = i * 0.5f;
  cudaMemcpyToSymbol(c_table, tab.data(), sizeof(float) * 1024);
  cudaMemcpy(table, tab.data(), sizeof(float) * 1024, cudaMemcpyHostToDevice);
  // clang-format off
#define PATHS(n)                                                                       \
  time_it("paths_div_" #n, [&] { paths<n, false><<<blocks, threads>>>(out, iters); }); \
  time_it("paths_uni_" #n, [&] { paths<n, true><<<blocks, threads>>>(out, iters); });
  PATHS(1)
  PATHS(2)
  PATHS(4) PATHS(8) PATHS(16) PATHS(32)
  // The divergent switch at 1 to 64 warps a multiprocessor: whether its
  // cases' cost is each warp's own wait or the multiprocessor's work.
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  for (const int warps : {1, 4, 8, 16, 32, 64}) {
    const int t = warps < 8 ? 32 * warps : 256, b = warps < 8 ? sms : sms * warps / 8;
    char name[64];
    std::snprintf(name, sizeof name, "paths_div_32_w%d", warps);
    time_it(name, [&] { paths<32, false><<<b, t>>>(out, iters); });
    std::snprintf(name, sizeof name, "paths_div_8_w%d", warps);
    time_it(name, [&] { paths<8, false><<<b, t>>>(out, iters); });
    std::snprintf(name, sizeof name, "heavy_paths_8_w%d", warps);
    time_it(name, [&] { heavy_paths<<<b, t>>>(out, iters); });
  }
  time_it("ladder_8", [&] { ladder<<<blocks, threads>>>(out, iters); });
#define IFELSE(n)                                                                          \
  time_it("if_else_div_" #n, [&] { if_else<n, false><<<blocks, threads>>>(out, iters); }); \
  time_it("if_else_uni_" #n, [&] { if_else<n, true><<<blocks, threads>>>(out, iters); });
      IFELSE(1) IFELSE(8)
#define READS(n)                                                                 \
  time_it("const_" #n, [&] { const_read<n><<<blocks, threads>>>(out, iters); }); \
  time_it("global_" #n, [&] { global_read<n><<<blocks, threads>>>(table, out, iters); });
          READS(1) READS(2) READS(4) READS(8) READS(32)
      // clang-format on
      std::printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
