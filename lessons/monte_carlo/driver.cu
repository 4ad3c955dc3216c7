// Monte Carlo: the lesson's program. It estimates pi and the price of a
// European call with the kernels in your file (exercise.cu or solution.cu)
// and prints each estimate with its error bar next to the exact value.
//
//   monte_carlo [SAMPLES]       SAMPLES per thread (default 1000), 64 blocks
//   monte_carlo --bench         time pi on a large grid: samples per second
//
// Build and run it, from the course's top folder:
//   on the simulator:  ./build/bin/cudalab run monte_carlo -- 100
//     (builds it with your exercise.cu, again whenever you change it;
//     --solution takes solution.cu instead, --check runs it under the checks)
//   on a GPU, with nvcc (all one line; sm_90 is an H100 or H200: put your GPU's):
//     nvcc -O3 -std=c++17 -arch=sm_90 -I framework/include -I support/include
//       -I trace/include -I lessons/monte_carlo lessons/monte_carlo/driver.cu
//       lessons/monte_carlo/exercise.cu framework/src/*.cpp support/src/*.cpp
//       -o monte_carlo
//     ./monte_carlo --bench
//
// Napkin math: a sample of pi is two random floats, a multiply-add, a
// compare; no memory at all but one atomicAdd per block. The limit is how
// fast the GPU makes random numbers: Philox is 10 rounds of 32-bit
// multiplies for 4 numbers, so an H100 draws about 400 G samples of pi a
// second (docs/measurements.md: 397 G with Philox).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cudalab/framework/compare.h"
#include "cudalab/framework/timing.h"
#include "lesson.h"
#include "reference.h"

namespace {

using cudalab::check;

double pi_estimate(int blocks, int samples, unsigned long long seed) {
  unsigned long long* hits;
  check(cudaMalloc(&hits, sizeof(*hits)), "cudaMalloc");
  check(cudaMemset(hits, 0, sizeof(*hits)), "cudaMemset");
  launch_count_in_circle(hits, blocks, samples, seed);
  check(cudaGetLastError(), "the launch");
  unsigned long long got = 0;
  check(cudaMemcpy(&got, hits, sizeof(got), cudaMemcpyDeviceToHost), "the pi kernel");
  cudaFree(hits);
  return 4.0 * double(got) / (double(blocks) * kThreads * samples);
}

int bench() {
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  // A CPU draws about a thousand times fewer points (but a prediction of
  // the GPU's time runs the GPU's sizes on a sample of the blocks).
  const int samples = cudalab::gpu_sized_run() ? 4096 : 16;
  const int blocks = prop.multiProcessorCount * 64;
  unsigned long long* hits;
  check(cudaMalloc(&hits, sizeof(*hits)), "cudaMalloc");
  const float best = cudalab::average_ms([&] { launch_count_in_circle(hits, blocks, samples, 2); },
                                         5, "the pi kernel");
  cudaFree(hits);
  const double n = double(blocks) * kThreads * samples, rate = n / (best * 1e-3) / 1e9;
  std::printf("device: %s; pi from %.3g points (%d blocks of %d, %d each): %.3f ms\n", prop.name, n,
              blocks, kThreads, samples, best);
#ifdef CUDALAB_SIMULATOR
  std::printf("%.3f G samples/s on the simulator (the target, 300, is a GPU's)\n", rate);
#else
  std::printf("%.1f G samples/s (target: at least 300): %s\n", rate,
              rate >= 300 ? "met" : "MISSED");
#endif
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  long samples = 1000;
  bool bench_only = false;
  for (int i = 1; i < argc; ++i) {
    char* end = nullptr;
    if (!std::strcmp(argv[i], "--bench")) {
      bench_only = true;
    } else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf(
          "usage: monte_carlo [SAMPLES]   samples per thread (default 1000)\n"
          "       monte_carlo --bench     samples per second on a large grid\n");
      return 0;
    } else if (samples = std::strtol(argv[i], &end, 10),
               !end || *end || samples < 1 || samples > 1000000) {
      std::fprintf(stderr, "monte_carlo: '%s' is not an option or a count from 1 to 1000000\n",
                   argv[i]);
      return 2;
    }
  }
  if (std::string why; !cudalab::device_available(&why)) {
    std::printf("monte_carlo: no CUDA device (%s); nothing to run\n", why.c_str());
    return 77;
  }
  if (bench_only) return bench();
  const int blocks = 64;
  const double n = double(blocks) * kThreads * samples;
  const double pi = pi_estimate(blocks, int(samples), 2026);
  const double se = pi_standard_error(n);
  std::printf("pi   ~ %.6f +- %.6f from %.0f points (exact %.6f: %.1f standard errors off)\n", pi,
              se, n, kPi, std::fabs(pi - kPi) / se);

  double* sums;
  check(cudaMalloc(&sums, 2 * sizeof(double)), "cudaMalloc");
  check(cudaMemset(sums, 0, 2 * sizeof(double)), "cudaMemset");
  launch_call_payoffs(sums, kOption, blocks, int(samples), 2027);
  check(cudaGetLastError(), "the launch");
  double got[2];
  check(cudaMemcpy(got, sums, sizeof(got), cudaMemcpyDeviceToHost), "copy of the sums");
  cudaFree(sums);
  const double discount = discount_factor(kOption), mean = got[0] / n;
  const double price = discount * mean,
               call_se = discount * std::sqrt((got[1] / n - mean * mean) / n);
  const double exact = call_exact(kOption).price;
  std::printf("call ~ %.4f +- %.4f (Black-Scholes %.4f: %.1f standard errors off)\n", price,
              call_se, exact, std::fabs(price - exact) / call_se);
  if (got[0] == 0) std::printf("      no payoff was added: is call_payoffs still a TODO?\n");
  const bool ok =
      std::fabs(pi - kPi) <= kTolerance * se && std::fabs(price - exact) <= kTolerance * call_se;
  std::printf("check: %s\n", ok ? "both within 5 standard errors" : "FAILED: too far to be chance");
  return ok ? 0 : 1;
}
