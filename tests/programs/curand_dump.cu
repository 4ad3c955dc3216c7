// Prints cuRAND device-API draws for a fixed set of seeds, subsequences and
// offsets, one line per case. Run on a GPU it gives the values the simulator
// must reproduce (tests/data/curand_gpu.txt); the curand test compares.
#include <curand_kernel.h>

#include <cstdio>

struct Case {
  unsigned long long seed, subsequence, offset;
};
constexpr Case kCases[] = {{1234, 0, 0},
                           {1234, 1, 0},
                           {1234, 5, 0},
                           {1234, 1000, 0},
                           {1234, 123456789, 0},
                           {1234, 0, 3},
                           {1234, 7, 1001},
                           {0, 0, 0},
                           {0xDEADBEEFCAFEull, 3, 5},
                           {42, (1ull << 40) + 17, 12345678901ull}};
constexpr int kCases_n = sizeof(kCases) / sizeof(kCases[0]);
constexpr int kDraws = 6;
// per case: 6 curand, 6 uniform, 6 uniform_double, 6 normal, 6 normal_double,
// 6 poisson(10), 4 poisson(100), 4 poisson(5000), 6 log_normal(0.5, 0.25)
constexpr int kPerCase = 6 * kDraws + 8;  // 44

template <class State>
__global__ void draw(const Case* kCases, double* out) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= kCases_n) return;
  State s;
  double* o = out + c * kPerCase;
  int k = 0;
  curand_init(kCases[c].seed, kCases[c].subsequence, kCases[c].offset, &s);
  for (int i = 0; i < kDraws; ++i) o[k++] = curand(&s);
  curand_init(kCases[c].seed, kCases[c].subsequence, kCases[c].offset, &s);
  for (int i = 0; i < kDraws; ++i) o[k++] = curand_uniform(&s);
  curand_init(kCases[c].seed, kCases[c].subsequence, kCases[c].offset, &s);
  for (int i = 0; i < kDraws; ++i) o[k++] = curand_uniform_double(&s);
  curand_init(kCases[c].seed, kCases[c].subsequence, kCases[c].offset, &s);
  for (int i = 0; i < kDraws; ++i) o[k++] = curand_normal(&s);
  curand_init(kCases[c].seed, kCases[c].subsequence, kCases[c].offset, &s);
  for (int i = 0; i < kDraws; ++i) o[k++] = curand_normal_double(&s);
  curand_init(kCases[c].seed, kCases[c].subsequence, kCases[c].offset, &s);
  for (int i = 0; i < kDraws; ++i) o[k++] = curand_poisson(&s, 10.0);
  for (int i = 0; i < 4; ++i) o[k++] = curand_poisson(&s, 100.0);
  for (int i = 0; i < 4; ++i) o[k++] = curand_poisson(&s, 5000.0);
}

template <class State>
void run(const char* name) {
  double* d;
  Case* cases;
  cudaMalloc(&d, sizeof(double) * kCases_n * kPerCase);
  cudaMalloc(&cases, sizeof(kCases));
  cudaMemcpy(cases, kCases, sizeof(kCases), cudaMemcpyHostToDevice);
  draw<State><<<1, 32>>>(cases, d);
  double h[kCases_n * kPerCase];
  if (cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost) != cudaSuccess) {
    std::printf("error: %s\n", cudaGetErrorString(cudaGetLastError()));
    return;
  }
  const char* kinds[] = {"curand", "uniform",       "uniform_double",
                         "normal", "normal_double", "poisson10"};
  for (int c = 0; c < kCases_n; ++c) {
    const double* o = h + c * kPerCase;
    for (int kind = 0; kind < 6; ++kind) {
      std::printf("%s %llu %llu %llu %s", name, kCases[c].seed, kCases[c].subsequence,
                  kCases[c].offset, kinds[kind]);
      for (int i = 0; i < kDraws; ++i) std::printf(" %.17g", o[kind * kDraws + i]);
      std::printf("\n");
    }
    std::printf("%s %llu %llu %llu poisson100", name, kCases[c].seed, kCases[c].subsequence,
                kCases[c].offset);
    for (int i = 0; i < 4; ++i) std::printf(" %.17g", o[36 + i]);
    std::printf("\n%s %llu %llu %llu poisson5000", name, kCases[c].seed, kCases[c].subsequence,
                kCases[c].offset);
    for (int i = 0; i < 4; ++i) std::printf(" %.17g", o[40 + i]);
    std::printf("\n");
  }
  cudaFree(d);
  cudaFree(cases);
}

int main() {
  run<curandStateXORWOW_t>("xorwow");
  run<curandStatePhilox4_32_10_t>("philox");
  run<curandStateMRG32k3a_t>("mrg32k3a");
  return 0;
}

// The tests of this program (tests/lit/README.md): on a GPU it prints the
// expected file itself (the simulator's build is compared with it by
// tests/unit/curand_test.cpp).
// BUILD:
// TEST: gpu.curand_matches_expected
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu > curand_gpu_now.txt
// RUN: diff curand_gpu_now.txt %data/curand_gpu.txt
