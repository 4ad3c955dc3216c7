// Heat equation: the lesson's program. It lets a hot square in a cold plate
// spread for STEPS steps with each kernel in your file (exercise.cu or
// solution.cu), checks both against the CPU, and prints the plate.
//
//   heat [N] [STEPS]     an N x N plate (default 64), STEPS steps (default 200)
//   heat --bench [N]     time one step on N x N (default 8192) against a copy
//
// Build and run it, from the course's top folder:
//   on the simulator:  ./build/bin/cudalab run heat -- 64 500
//     (builds it with your exercise.cu, again whenever you change it;
//     --solution takes solution.cu instead, --check runs it under the checks)
//   on a GPU, with nvcc (all one line; sm_90 is an H100 or H200: put your GPU's):
//     nvcc -O3 -std=c++17 -arch=sm_90 -I framework/include -I support/include
//       -I trace/include -I lessons/heat lessons/heat/driver.cu
//       lessons/heat/exercise.cu framework/src/*.cpp support/src/*.cpp
//       -o heat
//     ./heat --bench
//
// Napkin math: a step reads each cell and writes it once, 8 bytes per cell
// (the four neighbours come from the cache or, in stage 2, from shared
// memory), and does 6 FLOPs with them: far too few to wait on arithmetic.
// So a step can at best run as fast as a device-to-device copy of the grid;
// a textbook kernel reaches about 67 % of it on an H100 (docs/measurements.md), a
// thread walking down a column (stage 3) about 90 %.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cudalab/framework/compare.h"
#include "cudalab/framework/timing.h"
#include "lesson.h"
#include "reference.h"

namespace {

using cudalab::check;

int bench(int n) {
  const size_t bytes = size_t(n) * n * sizeof(float);
  float *a, *b;
  check(cudaMalloc(&a, bytes), "cudaMalloc");
  check(cudaMalloc(&b, bytes), "cudaMalloc");
  check(cudaMemset(a, 0, bytes), "cudaMemset");
  const int reps = 20;
  const double copy_gbs = cudalab::copy_gbs(b, a, bytes, reps);
  const double ms_copy = 2.0 * bytes / (copy_gbs * 1e9) * 1e3;
  std::printf("%d x %d cells; device-to-device copy: %.3f ms, %.1f GB/s\n", n, n, ms_copy,
              copy_gbs);
  double best = 0;
  const char* const names[] = {"", "stage 1 (a thread a cell)", "stage 2 (shared halo)",
                               "stage 3 (columns)"};
  const float alpha = 0.2f;  // any stable alpha: the time does not depend on it
  for (const int stage : {1, 2, 3}) {
    const float ms = cudalab::average_ms(
        [&] {
          if (stage == 3)
            launch_heat_step_columns(a, b, n, n, alpha);
          else if (stage == 2)
            launch_heat_step_shared(a, b, n, n, alpha);
          else
            launch_heat_step(a, b, n, n, alpha);
        },
        reps, names[stage]);
    const double gbs = 2.0 * bytes / (ms * 1e-3) / 1e9;
    best = std::max(best, gbs / copy_gbs);
    std::printf("  %-26s %.3f ms, %7.1f GB/s = %5.1f %% of copy\n", names[stage], ms, gbs,
                100.0 * gbs / copy_gbs);
  }
#ifdef CUDALAB_SIMULATOR
  std::printf(
      "best: %.1f %% of copy (on the simulator both are the CPU's; the target, 75 %%, is "
      "a GPU's)\n",
      100 * best);
#else
  std::printf("best: %.1f %% of copy bandwidth (target: at least 75 %%): %s\n", 100 * best,
              best >= 0.75 ? "met" : "MISSED");
#endif
  cudaFree(a);
  cudaFree(b);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  long n = 0, steps = 200;
  bool do_bench = false;
  int numbers = 0;
  for (int i = 1; i < argc; ++i) {
    char* end = nullptr;
    if (!std::strcmp(argv[i], "--bench")) {
      do_bench = true;
      continue;
    }
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf(
          "usage: heat [N] [STEPS]   an N x N plate (default 64), STEPS steps (200)\n"
          "       heat --bench [N]   time one step on N x N (default 8192)\n");
      return 0;
    }
    const long v = std::strtol(argv[i], &end, 10);
    const long lowest = numbers == 0 ? 3 : 1;  // a grid of 3 x 3 has one interior cell
    if (!end || *end || v < lowest || v > 65536 || numbers == 2) {
      std::fprintf(stderr,
                   "heat: '%s' is not an option, a grid size from 3 or a step count from 1 (at "
                   "most 65536)\n",
                   argv[i]);
      return 2;
    }
    (numbers++ == 0 ? n : steps) = v;
  }
  if (std::string why; !cudalab::device_available(&why)) {
    std::printf("heat: no CUDA device (%s); nothing to run\n", why.c_str());
    return 77;
  }
  if (do_bench) return bench(n ? int(n) : 8192);
  if (!n) n = 64;
  // A cold plate (0) with a hot square (100) in the middle; the edges stay 0.
  std::vector<float> u0(size_t(n) * n, 0.0f);
  for (long y = n / 3; y < 2 * n / 3; ++y)
    for (long x = n / 3; x < 2 * n / 3; ++x) u0[size_t(y) * n + x] = 100.0f;
  std::vector<float> want = u0, next(u0.size());
  const float alpha = 0.25f;
  for (long s = 0; s < steps; ++s) {
    heat_step_cpu(want.data(), next.data(), int(n), int(n), alpha);
    want.swap(next);
  }
  const size_t bytes = u0.size() * sizeof(float);
  float *u, *scratch;
  check(cudaMalloc(&u, bytes), "cudaMalloc(u)");
  check(cudaMalloc(&scratch, bytes), "cudaMalloc(scratch)");
  bool ok = true;
  std::vector<float> got(u0.size());
  for (const int stage : {1, 2, 3}) {
    check(cudaMemcpy(u, u0.data(), bytes, cudaMemcpyHostToDevice), "copy of u");
    const cudaError_t e = heat_simulate(u, scratch, int(n), int(n), alpha, int(steps), stage);
    if (e == cudaErrorNotSupported) {
      std::printf(
          "heat_simulate returned cudaErrorNotSupported: it is still the exercise's "
          "TODO. Write it (README.md, 'Your steps'), then run this again.\n");
      return 1;
    }
    check(e, "heat_simulate");
    check(cudaMemcpy(got.data(), u, bytes, cudaMemcpyDeviceToHost), "copy of u");
    const cudalab::CompareResult r =
        cudalab::compare(got.data(), want.data(), got.size(),
                         {heat_tolerance(int(steps), 100.0), 0}, "u", u, std::cout);
    ok &= r.ok();
    std::printf("%s: %ld steps on %ld x %ld, alpha %.2f: %s\n",
                stage == 1   ? "stage 1"
                : stage == 2 ? "stage 2 (shared halo)"
                             : "stage 3 (columns)",
                steps, n, n, alpha, r.ok() ? "matches the CPU" : "WRONG");
  }
  // The plate, coarsely: one character per cell block, darker is hotter.
  const char* shades = " .:-=+*#%@";
  const long cell = std::max(1L, n / 32);
  for (long y = 0; y < n; y += cell * 2) {
    std::string row;
    for (long x = 0; x < n; x += cell)
      row += shades[std::clamp(int(got[size_t(y) * n + x] / 10.0f), 0, 9)];
    std::printf("  %s\n", row.c_str());
  }
  cudaFree(u);
  cudaFree(scratch);
  return ok ? 0 : 1;
}
