// Softmax: the lesson's program. It draws a random ROWS x COLS matrix, takes
// the softmax of its rows with each of the four kernels in your file
// (exercise.cu or solution.cu), checks each against the CPU and says what
// each launch was.
//
//   softmax [ROWS [COLS]] [--large]   ROWS x COLS (default 64 x 1000); --large
//                                     draws values from 200 to 1,000 (odd
//                                     rows: -1,000 to -200), as logits can be
//   softmax --bench [ROWS [COLS]]     time the four kernels (default 4096 x
//                                     4096; COLS defaults to ROWS) against a
//                                     device-to-device copy
//
// Build and run it, from the course's top folder:
//   on the simulator:  ./build/bin/cudalab run softmax -- 64 1000
//     (builds it with your exercise.cu, again whenever you change it;
//     --solution takes solution.cu instead, --check runs it under the checks)
//   on a GPU, with nvcc (all one line; sm_90 is an H100 or H200: put your GPU's):
//     nvcc -O3 -std=c++17 -arch=sm_90 -I framework/include -I support/include
//       -I trace/include -I lessons/softmax lessons/softmax/driver.cu
//       lessons/softmax/exercise.cu framework/src/*.cpp support/src/*.cpp -o softmax
//     ./softmax --bench
//
// Napkin math: softmax must read every element once and write it once, 8
// bytes per element, as a device-to-device copy does, and does a few FLOPs
// and one exp per element: far too little arithmetic to wait on. So the best
// a kernel can do is the speed of a copy. Stages 1 to 3 read each row three
// times (max, sum, write) and stage 4 twice; a row of 4,096 floats is 16 KB,
// so the second and third reads come from the cache, not from memory, when
// one block works on the row. Target: stage 4 at 80 % of copy or more.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cudalab/framework/args.h"
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
  bool block_per_row;  // stages 2 to 4: a block per row; stage 1: a thread per row
};
// The four stages of stages.h, named "stage 1, a thread per row", ...
#define KERNEL_OF_STAGE(number, name, kernel, launcher) \
  {"stage " #number ", " name, launcher, number > 1},
const Kernel kKernels[] = {SOFTMAX_STAGES(KERNEL_OF_STAGE)};
#undef KERNEL_OF_STAGE

int usage() {
  std::fprintf(stderr,
               "usage: softmax [ROWS [COLS]] [--large]   softmax of the rows of a ROWS x COLS "
               "matrix (default 64 x 1000)\n"
               "       softmax --bench [ROWS [COLS]]     time the four kernels (default 4096 x "
               "4096; COLS defaults to ROWS)\n");
  return 2;
}

using cudalab::parse_int;

int bench(int rows, int cols) {
  const size_t elements = size_t(rows) * cols, bytes = elements * sizeof(float);
  float *x, *out;
  check(cudaMalloc(&x, bytes), "cudaMalloc(x)");
  check(cudaMalloc(&out, bytes), "cudaMalloc(out)");
  const std::vector<float> h = cudalab::random_floats(elements, 1, -5.0f, 5.0f);
  check(cudaMemcpy(x, h.data(), bytes, cudaMemcpyHostToDevice), "copy of x");
#ifdef CUDALAB_SIMULATOR
  const int reps = 1;  // the CPU runs the kernels: one launch each is slow enough
#else
  const int reps = 20;
#endif
  // The limit: a device-to-device copy reads and writes each element once,
  // as softmax must.
  const double copy_gbs = cudalab::copy_gbs(out, x, bytes, reps);
  std::printf("%d x %d floats (%.1f MB); device-to-device copy: %.3f ms, %.1f GB/s\n", rows, cols,
              bytes / 1e6, 2.0 * bytes / (copy_gbs * 1e9) * 1e3, copy_gbs);
  double online = 0;
  for (const Kernel& k : kKernels) {
    // Stage 1 is slow (a few thousand threads, each reading 16 KB rows
    // alone): fewer launches.
    const float ms = cudalab::average_ms([&] { k.launch(x, out, rows, cols); },
                                         k.block_per_row ? reps : std::min(reps, 3), k.name);
    const double gbs = 2.0 * bytes / (ms * 1e-3) / 1e9;
    if (&k == &kKernels[3]) online = gbs / copy_gbs;
    std::printf("  %-32s %9.3f ms  %7.1f GB/s = %5.1f %% of copy\n", k.name, ms, gbs,
                100.0 * gbs / copy_gbs);
  }
#ifdef CUDALAB_SIMULATOR
  std::printf(
      "stage 4: %.1f %% of copy (on the simulator both are the CPU's; the target, 80 %%, is a "
      "GPU's)\n",
      100 * online);
#else
  std::printf("stage 4 (online) reaches %.1f %% of copy bandwidth (target: at least 80 %%): %s\n",
              100 * online, online >= 0.8 ? "met" : "MISSED");
#endif
  cudaFree(x);
  cudaFree(out);
  return 0;
}

int run(int rows, int cols, bool large) {
  const size_t elements = size_t(rows) * cols, bytes = elements * sizeof(float);
  // 1. The matrix, and the answer the CPU gives.
  std::vector<float> x = large ? cudalab::random_floats(elements, 1, 200.0f, 1000.0f)
                               : cudalab::random_floats(elements, 1, -5.0f, 5.0f);
  if (large)
    for (int r = 1; r < rows; r += 2)
      for (int c = 0; c < cols; ++c) x[size_t(r) * cols + c] = -x[size_t(r) * cols + c];
  std::vector<float> want(elements), got(elements);
  softmax_cpu(x.data(), want.data(), rows, cols);
  std::printf("softmax of the rows of a %d x %d matrix, values from %s\n", rows, cols,
              large ? "200 to 1,000 (odd rows: -1,000 to -200)" : "-5 to 5");

  // 2. The same on the device, and each stage's launch.
  float *d_x, *d_out;
  check(cudaMalloc(&d_x, bytes), "cudaMalloc(x)");
  check(cudaMalloc(&d_out, bytes), "cudaMalloc(out)");
  check(cudaMemcpy(d_x, x.data(), bytes, cudaMemcpyHostToDevice), "copy of x to the device");
  cudalab::track_writers();
  const cudalab::Tolerance tol{kSoftmaxAbsoluteTolerance, softmax_relative_tolerance(cols)};
  bool all_ok = true;
  for (const Kernel& k : kKernels) {
    check(cudaMemset(d_out, 0xff, bytes), "cudaMemset(out)");  // NaN: unwritten elements show
    k.launch(d_x, d_out, rows, cols);
    check(cudaGetLastError(), k.name);
    check(cudaDeviceSynchronize(), k.name);
    check(cudaMemcpy(got.data(), d_out, bytes, cudaMemcpyDeviceToHost), "copy of out");
    std::printf("%s: ", k.name);
    if (k.block_per_row)
      std::printf("%d blocks (one per row) of %d threads (%d warps)\n", rows, kThreads, kWarps);
    else
      std::printf("%d blocks of %d threads, one per row\n", (rows + kThreads - 1) / kThreads,
                  kThreads);
#ifdef CUDALAB_SIMULATOR
    const cudalab::sim::LaunchSummary s = cudalab::sim::last_launch();
    if (s.instrumented)
      std::printf("  %llu of %llu threads did no work\n", (unsigned long long)s.idle_threads,
                  (unsigned long long)s.threads);
#endif
    // 3. The check: relative, since the sums are rounded in another order
    //    (reference.h says how far).
    const cudalab::CompareResult r = cudalab::compare(got.data(), want.data(), elements, tol, "out",
                                                      d_out, std::cout, 5, size_t(cols));
    all_ok &= r.ok();
    if (r.ok())
      std::printf("  all %zu elements match the CPU; row 0 starts %.4g %.4g %.4g\n", elements,
                  got[0], cols > 1 ? got[1] : 0.0f, cols > 2 ? got[2] : 0.0f);
    else
      std::printf("  WRONG: %zu of %zu elements (element i is row i / %d, column i %% %d)\n",
                  r.wrong, elements, cols, cols);
  }
  cudaFree(d_x);
  cudaFree(d_out);
  return all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  long rows = 0, cols = 0;
  int numbers = 0;
  bool do_bench = false, large = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--bench")) {
      do_bench = true;
    } else if (!std::strcmp(argv[i], "--large")) {
      large = true;
    } else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      usage();
      return 0;
    } else if (numbers < 2 && parse_int(argv[i], 1, 1L << 20, numbers == 0 ? &rows : &cols)) {
      ++numbers;
    } else {
      std::fprintf(stderr,
                   "softmax: '%s' is not an option or a row or column count from 1 to 1048576\n",
                   argv[i]);
      return usage();
    }
  }
  if (rows * cols > (1L << 28)) {
    std::fprintf(stderr, "softmax: %ld x %ld is more than 268435456 elements\n", rows, cols);
    return usage();
  }
  if (std::string why; !cudalab::device_available(&why)) {
    std::printf("softmax: no CUDA device (%s); nothing to run\n", why.c_str());
    return 77;
  }
  if (do_bench) return bench(rows ? int(rows) : 4096, cols ? int(cols) : rows ? int(rows) : 4096);
  return run(rows ? int(rows) : 64, cols ? int(cols) : 1000, large);
}
