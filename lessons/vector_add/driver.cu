// Vector add: the lesson's program. It makes two arrays, adds them with the
// kernel from your file (exercise.cu or solution.cu), checks the result
// against the CPU, and says what the launch did.
//
//   vector_add [N] [--threads T]    add N floats (default 1,000,000)
//   vector_add --bench [N]          time the kernel against a device copy
//
// Build and run it, from the course's top folder:
//   on the simulator:  ./build/bin/cudalab run vector_add -- 1000 --threads 128
//     (builds it with your exercise.cu, again whenever you change it;
//     --solution takes solution.cu instead, --check runs it under the checks)
//   on a GPU, with nvcc (all one line; sm_90 is an H100 or H200: put your GPU's):
//     nvcc -O3 -std=c++17 -arch=sm_90 -I framework/include -I support/include
//       -I trace/include -I lessons/vector_add lessons/vector_add/driver.cu
//       lessons/vector_add/exercise.cu framework/src/*.cpp support/src/*.cpp
//       -o vector_add
//     ./vector_add 1000 --threads 128
//
// Napkin math: each element reads 2 floats and writes 1, 12 bytes and 1
// FLOP, so vector add is bound by memory bandwidth. The best it can do is
// the speed of a device-to-device copy (which moves 8 bytes per element),
// and a good kernel reaches 90 % of it: on an H100 a grid sized to the GPU
// does (93 %), one thread per element through the grid-stride loop nearly
// (89 %).
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
#ifdef CUDALAB_SIMULATOR
#include "cudalab/sim.h"
#endif

namespace {

using cudalab::check;

int usage() {
  std::fprintf(stderr,
               "usage: vector_add [N] [--threads T]   add N floats (default 1000000) with "
               "blocks of T threads (default 256)\n"
               "       vector_add --bench [N]         time the kernel against a device copy\n");
  return 2;
}

using cudalab::parse_int;

int bench(int n) {
  const size_t bytes = size_t(n) * sizeof(float);
  float *a, *b, *c;
  check(cudaMalloc(&a, bytes), "cudaMalloc");
  check(cudaMalloc(&b, bytes), "cudaMalloc");
  check(cudaMalloc(&c, bytes), "cudaMalloc");
  check(cudaMemset(a, 0, bytes), "cudaMemset");
  check(cudaMemset(b, 0, bytes), "cudaMemset");
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  const int reps = 100, threads = 256;

  // The limit: a device-to-device copy moves 8 bytes per element.
  const double copy_gbs = cudalab::copy_gbs(c, a, bytes, reps);
  const float ms_copy = float(2.0 * bytes / (copy_gbs * 1e9) * 1e3);

  // Two grids: one thread per element, and a grid sized to the GPU (32
  // blocks of 256 per multiprocessor) whose threads loop over several
  // elements each: fewer threads, less index arithmetic per byte.
  const int one_per_element = (n + threads - 1) / threads;
  const int sized_to_gpu = prop.multiProcessorCount * 32;
  auto time_grid = [&](int blocks) {
    return cudalab::average_ms([&] { launch_vector_add(a, b, c, n, blocks, threads); }, reps,
                               "vector add");
  };
  const float ms_a = time_grid(one_per_element), ms_b = time_grid(sized_to_gpu);
  const double gbs_a = 3.0 * bytes / (ms_a * 1e-3) / 1e9, gbs_b = 3.0 * bytes / (ms_b * 1e-3) / 1e9;
  std::printf("device: %s, %d floats, %d launches each\n", prop.name, n, reps);
  std::printf("device-to-device copy:            %.3f ms, %6.1f GB/s (8 bytes per element)\n",
              ms_copy, copy_gbs);
  std::printf(
      "vector add, %7d blocks of %d: %.3f ms, %6.1f GB/s = %5.1f %% of copy "
      "(one thread per element)\n",
      one_per_element, threads, ms_a, gbs_a, 100.0 * gbs_a / copy_gbs);
  std::printf(
      "vector add, %7d blocks of %d: %.3f ms, %6.1f GB/s = %5.1f %% of copy "
      "(grid sized to the GPU)\n",
      sized_to_gpu, threads, ms_b, gbs_b, 100.0 * gbs_b / copy_gbs);
  const double best = 100.0 * std::max(gbs_a, gbs_b) / copy_gbs;
#ifdef CUDALAB_SIMULATOR
  std::printf(
      "vector add reaches %.1f %% of copy (on the simulator both are the CPU's; the "
      "target, 90 %%, is a GPU's)\n",
      best);
#else
  std::printf("vector add reaches %.1f %% of copy bandwidth (target: at least 90 %%): %s\n", best,
              best >= 90.0 ? "met" : "MISSED");
#endif
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  long n = 1000000, threads = 256;
  bool do_bench = false, n_given = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--bench")) {
      do_bench = true;
    } else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      if (!parse_int(argv[++i], 1, 1024, &threads)) {
        std::fprintf(stderr, "vector_add: --threads takes a number from 1 to 1024\n");
        return 2;
      }
    } else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      usage();
      return 0;
    } else if (!n_given && parse_int(argv[i], 1, 1L << 28, &n)) {
      n_given = true;
    } else {
      std::fprintf(stderr, "vector_add: '%s' is not an option or a size from 1 to 268435456\n",
                   argv[i]);
      return usage();
    }
  }
  if (std::string why; !cudalab::device_available(&why)) {
    std::printf("vector_add: no CUDA device (%s); nothing to run\n", why.c_str());
    return 77;
  }
  if (do_bench) return bench(n_given ? int(n) : 1 << 26);

  // 1. Data on the host, and the answer the CPU gives.
  std::vector<float> a = cudalab::random_floats(n, 1), b = cudalab::random_floats(n, 2);
  std::vector<float> want(n), got(n);
  vector_add_cpu(a.data(), b.data(), want.data(), int(n));

  // 2. The same data on the device.
  const size_t bytes = size_t(n) * sizeof(float);
  float *d_a, *d_b, *d_c;
  check(cudaMalloc(&d_a, bytes), "cudaMalloc(a)");
  check(cudaMalloc(&d_b, bytes), "cudaMalloc(b)");
  check(cudaMalloc(&d_c, bytes), "cudaMalloc(c)");
  check(cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice), "copy of a to the device");
  check(cudaMemcpy(d_b, b.data(), bytes, cudaMemcpyHostToDevice), "copy of b to the device");
  check(cudaMemset(d_c, 0xff, bytes), "cudaMemset(c)");  // NaN: unwritten elements show
  cudalab::track_writers();

  // 3. One thread per element: enough blocks to cover n.
  const int blocks = int((n + threads - 1) / threads);
  std::printf("vector add: c[i] = a[i] + b[i] for %ld floats\n", n);
  launch_vector_add(d_a, d_b, d_c, int(n), blocks, int(threads));
  check(cudaGetLastError(), "the launch");
  check(cudaDeviceSynchronize(), "the kernel");
  check(cudaMemcpy(got.data(), d_c, bytes, cudaMemcpyDeviceToHost), "copy of c to the host");

#ifdef CUDALAB_SIMULATOR
  const cudalab::sim::LaunchSummary s = cudalab::sim::last_launch();
  std::printf("launch: grid (%u,%u,%u) x block (%u,%u,%u) = %llu threads in %llu warps of 32\n",
              s.grid.x, s.grid.y, s.grid.z, s.block.x, s.block.y, s.block.z,
              (unsigned long long)s.threads, (unsigned long long)s.warps);
  if (s.instrumented)
    std::printf("        %llu threads did no work (their index is past the end of the array)\n",
                (unsigned long long)s.idle_threads);
  std::printf("        ran on the cudalab simulator in %.1f ms on %u CPU threads\n",
              s.seconds * 1e3, s.workers);
#else
  std::printf("launch: grid (%d,1,1) x block (%ld,1,1) on the GPU\n", blocks, threads);
#endif

  // 4. The check: a + b is one rounding in float on both, so equal bit for bit.
  cudalab::CompareResult r =
      cudalab::compare(got.data(), want.data(), n, {0, 0}, "c", d_c, std::cout);
  if (r.ok())
    std::printf("check: all %ld elements match the CPU reference\n", n);
  else
    std::printf("check: FAILED, %zu of %ld elements are wrong\n", r.wrong, n);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
  return r.ok() ? 0 : 1;
}
