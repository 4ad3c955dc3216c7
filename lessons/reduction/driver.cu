// Reduction: the lesson's program. It adds up N random floats with each of
// the four kernels in your file (exercise.cu or solution.cu), checks each
// sum against the CPU's, and says how each stage launched.
//
//   reduction [N]            add N floats (default 1,000,000) four ways
//   reduction --bench [N]    time the four stages (default 16,777,216 floats)
//                            against a device-to-device copy
//
// Build and run it, from the course's top folder:
//   on the simulator:  ./build/bin/cudalab run reduction -- 100000
//     (builds it with your exercise.cu, again whenever you change it;
//     --solution takes solution.cu instead, --check runs it under the checks)
//   on a GPU, with nvcc (all one line; sm_90 is an H100 or H200: put your GPU's):
//     nvcc -O3 -std=c++17 -arch=sm_90 -I framework/include -I support/include
//       -I trace/include -I lessons/reduction lessons/reduction/driver.cu
//       lessons/reduction/exercise.cu framework/src/compare.cpp
//       framework/src/judge_side.cpp framework/src/submission_side.cpp
//       framework/src/wire.cpp support/src/*.cpp -o reduction
//     ./reduction --bench
//
// Napkin math: a sum reads each float once (4 bytes) and does one addition
// with it, so it is bound by memory bandwidth: at best it reads as fast as a
// device-to-device copy moves bytes (the copy reads 4 and writes 4 bytes per
// element, 8 in all). Its GB/s are 4 N bytes over its time; a good kernel
// reaches 85 % of the copy's GB/s. Stages 1 and 2 fall short for other
// reasons than memory: three launches, one thread per element, half the
// threads idle after the first round. Stage 4 reaches it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cudalab/framework/args.h"
#include "cudalab/framework/compare.h"
#include "cudalab/framework/timing.h"
#include "lesson.h"
#include "reference.h"
#include "stages.h"

namespace {

using cudalab::check;

using Launcher = void (*)(const float*, float*, float*, int, int);
struct Stage {
  int number;
  const char* name;
  Launcher launch;
};
// The four stages of stages.h, in order.
#define DRIVER_STAGE(number, name, kernel, launcher) {number, name, launcher},
const Stage kStages[] = {REDUCTION_STAGES(DRIVER_STAGE)};
#undef DRIVER_STAGE

// The target of the README: the best stage reads at 85 % of a copy's GB/s.
constexpr double kTargetPercent = 85.0;

int usage() {
  std::fprintf(stderr,
               "usage: reduction [N]           add N floats (default 1000000) four ways\n"
               "       reduction --bench [N]   time the four stages (default 16777216 floats)\n");
  return 2;
}

using cudalab::parse_int;

// The grid of stages 3 and 4: as many blocks as the GPU keeps running at
// once (2,048 threads per multiprocessor), so that each thread loops over
// many elements; fewer when n is too small to give each thread a float4.
int grid_for_gpu(int n) {
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  const int resident = prop.multiProcessorCount * (prop.maxThreadsPerMultiProcessor / kThreads);
  const int needed = (n / 4 + kThreads - 1) / kThreads;
  return std::max(1, std::min(resident, needed));
}

// How a stage launches for n floats, in words.
std::string launch_plan(int stage, int n, int blocks) {
  char line[256];
  if (stage <= 2) {
    std::string passes;
    int count = 0;
    do {
      n = (n + kThreads - 1) / kThreads;
      passes += (count++ ? " + " : "") + std::to_string(n);
    } while (n > 1);
    std::snprintf(line, sizeof line, "%d pass%s of %s blocks", count, count == 1 ? "" : "es",
                  passes.c_str());
  } else if (stage == 3) {
    std::snprintf(line, sizeof line, "%d block%s, then 1 block adds %s %d sum%s", blocks,
                  blocks == 1 ? "" : "s", blocks == 1 ? "its" : "their", blocks,
                  blocks == 1 ? "" : "s");
  } else {
    std::snprintf(line, sizeof line, "%d block%s, %d atomicAdd%s into the total", blocks,
                  blocks == 1 ? "" : "s", blocks, blocks == 1 ? "" : "s");
  }
  return line;
}

// Runs one stage on d_in (n floats) and says whether its sum is right.
bool run_stage(const Stage& s, const float* d_in, float* d_scratch, float* d_total, int n,
               int blocks, const Sum& want) {
  check(cudaMemset(d_total, 0xff, sizeof(float)), "cudaMemset(total)");  // NaN until written
  s.launch(d_in, d_scratch, d_total, n, blocks);
  check(cudaGetLastError(), s.name);
  check(cudaDeviceSynchronize(), s.name);
  float got = 0;
  check(cudaMemcpy(&got, d_total, sizeof(float), cudaMemcpyDeviceToHost), "copy of the total");
  const double allowed = sum_tolerance(longest_chain(s.number, n, blocks), want.size);
  const bool ok = std::fabs(double(got) - want.sum) <= allowed;
  std::printf("  %d %-26s sum %14.6f  (off by %.2g, allowed %.2g)  %s\n", s.number, s.name,
              double(got), std::fabs(double(got) - want.sum), allowed, ok ? "right" : "WRONG");
  if (std::isnan(got))
    std::printf("      the total is NaN: was it written at all (is the kernel still a TODO?)\n");
  else if (s.number == 4 && got == 0)
    std::printf("      the total is the 0 the launcher set: did any block atomicAdd its sum?\n");
  std::printf("      %s\n", launch_plan(s.number, n, blocks).c_str());
  return ok;
}

int run(int n, bool bench) {
  const std::vector<float> in = cudalab::random_floats(n, 1, 0.0f, 1.0f);
  const Sum want = sum_cpu(in.data(), n);
  const size_t bytes = size_t(n) * sizeof(float);
  const int blocks = grid_for_gpu(n);
  float *d_in, *d_copy = nullptr, *d_scratch, *d_total;
  check(cudaMalloc(&d_in, bytes), "cudaMalloc(in)");
  check(cudaMalloc(&d_scratch, scratch_floats(n, blocks) * sizeof(float)), "cudaMalloc(scratch)");
  check(cudaMalloc(&d_total, sizeof(float)), "cudaMalloc(total)");
  check(cudaMemcpy(d_in, in.data(), bytes, cudaMemcpyHostToDevice), "copy of in");
  std::printf("the sum of %d floats: %.6f on the CPU (in double precision)\n", n, want.sum);

  // Validate first: every stage's sum against the CPU's.
  bool all_ok = true;
  for (const Stage& s : kStages) all_ok &= run_stage(s, d_in, d_scratch, d_total, n, blocks, want);
  if (!bench) {
    std::printf("check: %s\n", all_ok ? "all four sums are right" : "FAILED");
  } else {
    // Then time them against the memory's limit: a device-to-device copy.
#ifdef CUDALAB_SIMULATOR
    const int reps = 2;  // the CPU is a thousand times slower than a GPU
#else
    const int reps = 100;
#endif
    check(cudaMalloc(&d_copy, bytes), "cudaMalloc(copy)");
    const double copy_gbs = cudalab::copy_gbs(d_copy, d_in, bytes, reps);
    std::printf("\n%d launches each; device-to-device copy: %.1f GB/s (8 bytes per element)\n",
                reps, copy_gbs);
    double best = 0;
    for (const Stage& s : kStages) {
      const float ms =
          cudalab::average_ms([&] { s.launch(d_in, d_scratch, d_total, n, blocks); }, reps, s.name);
      const double gbs = double(bytes) / (ms * 1e-3) / 1e9;  // 4 bytes read per element
      best = std::max(best, 100.0 * gbs / copy_gbs);
      std::printf("  %d %-26s %8.4f ms  %7.1f GB/s read  %5.1f %% of copy\n", s.number, s.name, ms,
                  gbs, 100.0 * gbs / copy_gbs);
    }
#ifdef CUDALAB_SIMULATOR
    std::printf(
        "best: %.1f %% of copy (on the simulator both are the CPU's; the target, %.0f %%, is a "
        "GPU's)\n",
        best, kTargetPercent);
#else
    std::printf("best: %.1f %% of copy (target: at least %.0f %%): %s\n", best, kTargetPercent,
                best >= kTargetPercent ? "met" : "MISSED");
#endif
  }
  cudaFree(d_in);
  cudaFree(d_copy);
  cudaFree(d_scratch);
  cudaFree(d_total);
  return all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  long n = 0;
  bool bench = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--bench")) {
      bench = true;
    } else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      usage();
      return 0;
    } else if (n == 0 && parse_int(argv[i], 1, 1L << 28, &n)) {
    } else {
      std::fprintf(stderr, "reduction: '%s' is not an option or a size from 1 to 268435456\n",
                   argv[i]);
      return usage();
    }
  }
  if (std::string why; !cudalab::device_available(&why)) {
    std::printf("reduction: no CUDA device (%s); nothing to run\n", why.c_str());
    return 77;
  }
  if (n == 0) n = bench ? 1 << 24 : 1000000;
  return run(int(n), bench);
}
