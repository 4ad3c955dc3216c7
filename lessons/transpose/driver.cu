// Matrix transpose: the lesson's program. It transposes a random matrix with
// each of the four kernels in your file (exercise.cu or solution.cu), checks
// each against the CPU, and says what each launch did.
//
//   transpose [ROWS [COLS]]   a ROWS x COLS matrix (default 100 x 37; COLS
//                             defaults to ROWS)
//   transpose --bench [N]     time the four kernels on N x N (default 8192)
//                             against a device-to-device copy
//
// Build and run it, from the course's top folder:
//   on the simulator:  ./build/bin/cudalab run transpose -- 33 65
//     (builds it with your exercise.cu, again whenever you change it;
//     --solution takes solution.cu instead, --check runs it under the checks)
//   on a GPU, with nvcc (all one line; sm_90 is an H100 or H200: put your GPU's):
//     nvcc -O3 -std=c++17 -arch=sm_90 -I framework/include -I support/include
//       -I trace/include -I lessons/transpose lessons/transpose/driver.cu
//       lessons/transpose/exercise.cu framework/src/*.cpp support/src/*.cpp -o transpose
//     ./transpose --bench
//
// Napkin math: a transpose reads every element once and writes it once, 8
// bytes per element, and computes nothing: it is bound by memory bandwidth,
// and the best it can do is the speed of a device-to-device copy, which
// moves the same 8 bytes per element. A copy reads and writes in long
// consecutive runs; a transpose must do the same on both sides to keep up,
// which is what the shared-memory tile is for. Target: at least 85 % of the
// copy's bandwidth.
#include <algorithm>
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
#include "stages.h"
#ifdef CUDALAB_SIMULATOR
#include "cudalab/sim.h"
#endif

namespace {

using cudalab::check;

using Launcher = void (*)(const float*, float*, int, int);
struct Kernel {
  const char* name;
  Launcher launch;
};
// The four stages of stages.h, named "stage 1: naive", "stage 2: shared-memory tile", ...
#define KERNEL_OF_STAGE(number, name, kernel, launcher) {"stage " #number ": " name, launcher},
const Kernel kKernels[] = {TRANSPOSE_STAGES(KERNEL_OF_STAGE)};
#undef KERNEL_OF_STAGE

int usage() {
  std::fprintf(stderr,
               "usage: transpose [ROWS [COLS]]  transpose a ROWS x COLS matrix (default 100 x "
               "37) four ways\n"
               "       transpose --bench [N]    time the four kernels on N x N (default 8192) "
               "against a device copy\n");
  return 2;
}

bool parse_size(const char* s, long* out) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (!end || *end || v < 1 || v > 16384) return false;
  *out = v;
  return true;
}

// What the last launch did, on the simulator; on a GPU, nothing to add.
void describe_launch(long elements) {
#ifdef CUDALAB_SIMULATOR
  const cudalab::sim::LaunchSummary s = cudalab::sim::last_launch();
  std::printf("      grid (%u,%u) x block (%u,%u) = %llu threads, %.2f elements per thread",
              s.grid.x, s.grid.y, s.block.x, s.block.y, (unsigned long long)s.threads,
              double(elements) / double(s.threads));
  if (s.instrumented)
    std::printf(", %llu touched no global memory", (unsigned long long)s.idle_threads);
  std::printf("\n");
#else
  (void)elements;
#endif
}

int bench(int n) {
  const size_t bytes = size_t(n) * n * sizeof(float);
  float *in, *out;
  check(cudaMalloc(&in, bytes), "cudaMalloc(in)");
  check(cudaMalloc(&out, bytes), "cudaMalloc(out)");
  const std::vector<float> host = cudalab::random_floats(size_t(n) * n, 1);
  check(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice), "copy of in");
#ifdef CUDALAB_SIMULATOR
  const int reps = 1;  // the simulator times the CPU: once is enough to see it run
#else
  const int reps = 20;
#endif
  // The limit: a device-to-device copy moves the same 8 bytes per element.
  const double copy_gbs = cudalab::copy_gbs(out, in, bytes, reps);
  std::printf("%d x %d floats (%.0f MB each way); device-to-device copy: %.3f ms, %.1f GB/s\n", n,
              n, bytes / 1e6, 2.0 * bytes / (copy_gbs * 1e9) * 1e3, copy_gbs);
  double best = 0;
  std::vector<float> got(size_t(n) * n), want(size_t(n) * n);
  transpose_cpu(host.data(), want.data(), n, n);
  bool all_ok = true;
  for (const Kernel& k : kKernels) {
    check(cudaMemset(out, 0xff, bytes), "cudaMemset(out)");  // NaN: unwritten elements show
    const float ms = cudalab::average_ms([&] { k.launch(in, out, n, n); }, reps, k.name);
    check(cudaMemcpy(got.data(), out, bytes, cudaMemcpyDeviceToHost), "copy of out");
    const bool ok = std::memcmp(got.data(), want.data(), bytes) == 0;
    all_ok &= ok;
    const double gbs = 2.0 * bytes / (ms * 1e-3) / 1e9;
    best = std::max(best, gbs / copy_gbs);
    std::printf("  %-31s %8.3f ms  %7.1f GB/s = %5.1f %% of copy  %s\n", k.name, ms, gbs,
                100.0 * gbs / copy_gbs, ok ? "right" : "WRONG");
  }
#ifdef CUDALAB_SIMULATOR
  std::printf(
      "best: %.1f %% of copy (on the simulator both are the CPU's; the target, 85 %%, is "
      "a GPU's)\n",
      100 * best);
#else
  std::printf("best: %.1f %% of copy bandwidth (target: at least 85 %%): %s\n", 100 * best,
              best >= 0.85 ? "met" : "MISSED");
#endif
  cudaFree(in);
  cudaFree(out);
  return all_ok ? 0 : 1;
}

int run(int height, int width) {
  const size_t n = size_t(width) * height, bytes = n * sizeof(float);
  const std::vector<float> in = cudalab::random_floats(n, 1);
  std::vector<float> want(n), got(n);
  transpose_cpu(in.data(), want.data(), width, height);
  float *d_in, *d_out;
  check(cudaMalloc(&d_in, bytes), "cudaMalloc(in)");
  check(cudaMalloc(&d_out, bytes), "cudaMalloc(out)");
  check(cudaMemcpy(d_in, in.data(), bytes, cudaMemcpyHostToDevice), "copy of in");
  std::printf("transpose: in is %d x %d (%d rows of %d floats), out is %d x %d\n", height, width,
              height, width, width, height);
  bool all_ok = true;
  for (const Kernel& k : kKernels) {
    check(cudaMemset(d_out, 0xff, bytes), "cudaMemset(out)");  // NaN: unwritten elements show
    cudalab::track_writers();
    k.launch(d_in, d_out, width, height);
    check(cudaGetLastError(), k.name);
    check(cudaDeviceSynchronize(), k.name);
    check(cudaMemcpy(got.data(), d_out, bytes, cudaMemcpyDeviceToHost), "copy of out");
    std::printf("  %s\n", k.name);
    describe_launch(long(n));
    // A transpose moves numbers without rounding: equal bit for bit. out is
    // drawn in rows of `height` elements.
    const cudalab::CompareResult r =
        cudalab::compare(got.data(), want.data(), n, {0, 0}, "out", d_out, std::cout, 5, height);
    all_ok &= r.ok();
    if (r.ok())
      std::printf("      check: all %zu elements match the CPU\n", n);
    else
      std::printf(
          "      check: WRONG, %zu of %zu elements differ (out[i] is row i / %d, "
          "column i %% %d; it should be in[i %% %d][i / %d])\n",
          r.wrong, n, height, height, height, height);
  }
  cudaFree(d_in);
  cudaFree(d_out);
  return all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  long sizes[2] = {0, 0};
  int given = 0;
  bool do_bench = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--bench")) {
      do_bench = true;
    } else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      usage();
      return 0;
    } else if (given < 2 && parse_size(argv[i], &sizes[given])) {
      ++given;
    } else {
      std::fprintf(stderr, "transpose: '%s' is not an option or a size from 1 to 16384\n", argv[i]);
      return usage();
    }
  }
  if (do_bench && given > 1) {
    std::fprintf(stderr, "transpose: --bench takes one size, N for an N x N matrix\n");
    return usage();
  }
  if (std::string why; !cudalab::device_available(&why)) {
    std::printf("transpose: no CUDA device (%s); nothing to run\n", why.c_str());
    return 77;
  }
  if (do_bench) return bench(given ? int(sizes[0]) : 8192);
  const int height = given ? int(sizes[0]) : 100;
  const int width = given > 1 ? int(sizes[1]) : given ? height : 37;
  return run(height, width);
}
