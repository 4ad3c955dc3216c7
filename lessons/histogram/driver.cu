// Histogram: the lesson's program. It makes N random bytes, counts them with
// each of the three kernels in your file (exercise.cu or solution.cu),
// checks every bin against the CPU, and says what each launch did.
//
//   histogram [N] [--blocks B] [--threads T] [--skew P]
//                          count N bytes (default 1,000,000) with blocks of T
//                          threads (default 256); P % of the bytes one value
//   histogram --bench [N]  time each stage on N bytes (default 67,108,864),
//                          uniform and skewed, against a device-to-device copy
//
// Build and run it, from the course's top folder:
//   on the simulator:  ./build/bin/cudalab run histogram -- 100000 --skew 90
//     (builds it with your exercise.cu, again whenever you change it;
//     --solution takes solution.cu instead, --check runs it under the checks)
//   on a GPU, with nvcc (all one line; sm_90 is an H100 or H200: put your GPU's):
//     nvcc -O3 -std=c++17 -arch=sm_90 -I framework/include -I support/include
//       -I trace/include -I lessons/histogram lessons/histogram/driver.cu
//       lessons/histogram/exercise.cu framework/src/*.cpp support/src/*.cpp -o histogram
//     ./histogram --bench
//
// Napkin math: a histogram reads each byte once and writes only its 256
// bins, so the most it can do is read at the memory's speed. A
// device-to-device copy reads and writes every byte (2 bytes moved per byte):
// its GB/s, counting both, is the memory's speed, and a histogram that reads
// N bytes in the time the copy moves N bytes each way runs at 50 % of it;
// the target, 60 %, is a histogram faster than that copy. What stands in the
// way is the atomics: one per byte, each a read-add-write of one bin that
// others may be waiting for.
#include <algorithm>
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

using Launcher = void (*)(const unsigned char*, int, unsigned int*, int, int);
struct Kernel {
  int stage;
  const char* name;
  Launcher launch;
};
// The three stages of stages.h, named "1 global atomics", ...
#define KERNEL_OF_STAGE(number, name, kernel, launcher) {number, #number " " name, launcher},
const Kernel kKernels[] = {HISTOGRAM_STAGES(KERNEL_OF_STAGE)};
#undef KERNEL_OF_STAGE

int usage() {
  std::fprintf(stderr,
               "usage: histogram [N] [--blocks B] [--threads T] [--skew P]\n"
               "           count N bytes (default 1000000) with each stage, B blocks (default:\n"
               "           at most 64) of T threads (default 256), P %% of the bytes\n"
               "           one value (default 0: uniform)\n"
               "       histogram --bench [N]   time each stage on N bytes (default 67108864),\n"
               "           uniform and 90 %% one value, against a device copy\n");
  return 2;
}

using cudalab::parse_int;

// Counts the bytes at d_data with `k`, into d_bins (zeroed first), and
// compares with `want`; prints the first wrong bins to `out`.
bool count_and_check(const Kernel& k, const unsigned char* d_data, int n, unsigned int* d_bins,
                     int blocks, int threads, const std::vector<uint32_t>& want,
                     std::ostream& out) {
  check(cudaMemset(d_bins, 0, kBins * sizeof(unsigned int)), "cudaMemset(bins)");
  k.launch(d_data, n, d_bins, blocks, threads);
  check(cudaGetLastError(), "the launch");
  check(cudaDeviceSynchronize(), k.name);
  std::vector<uint32_t> got(kBins);
  check(cudaMemcpy(got.data(), d_bins, kBins * sizeof(unsigned int), cudaMemcpyDeviceToHost),
        "copy of bins");
  return cudalab::compare(got.data(), want.data(), kBins, "bins", d_bins, out).ok();
}

int bench(int n) {
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
#ifdef CUDALAB_SIMULATOR
  const int reps = 1;  // the CPU counts about a thousand times slower
#else
  const int reps = 20;
#endif
  // A grid sized to the GPU: 8 blocks of 256 threads per multiprocessor
  // (2,048 threads, as many as one holds), each thread looping over bytes.
  const int threads = 256, blocks = prop.multiProcessorCount * 8;
  unsigned char *d_data, *d_copy;
  unsigned int* d_bins;
  check(cudaMalloc(&d_data, n), "cudaMalloc(data)");
  check(cudaMalloc(&d_copy, n), "cudaMalloc(copy)");
  check(cudaMalloc(&d_bins, kBins * sizeof(unsigned int)), "cudaMalloc(bins)");
  check(cudaMemset(d_copy, 0, n), "cudaMemset");

  // The limit: a device-to-device copy of the same bytes, read and written.
  const double copy = cudalab::copy_gbs(d_copy, d_data, n, reps);
  std::printf("device: %s, %d bytes, %d blocks of %d threads, %d launches each\n", prop.name, n,
              blocks, threads, reps);
  std::printf("device-to-device copy: %.1f GB/s (2 bytes moved per byte)\n", copy);

  const int skews[2] = {0, 90};
  float ms[3][2] = {};
  bool all_right = true;
  for (int s = 0; s < 2; ++s) {
    const std::vector<unsigned char> data = random_bytes(n, 2026, skews[s]);
    std::vector<uint32_t> want(kBins);
    histogram_cpu(data.data(), n, want.data());
    check(cudaMemcpy(d_data, data.data(), n, cudaMemcpyHostToDevice), "copy of the bytes");
    std::printf("%s bytes:\n", skews[s] ? "skewed (90 % one value)" : "uniform");
    for (const Kernel& k : kKernels) {
      const bool right = count_and_check(k, d_data, n, d_bins, blocks, threads, want, std::cout);
      all_right &= right;
      const float t =
          cudalab::average_ms([&] { k.launch(d_data, n, d_bins, blocks, threads); }, reps, k.name);
      ms[k.stage - 1][s] = t;
      const double gbs = double(n) / (t * 1e-3) / 1e9;  // bytes read per second
      std::printf("  %-22s %8.3f ms  %7.1f GB/s read = %5.1f %% of copy  %s\n", k.name, t, gbs,
                  100.0 * gbs / copy, right ? "right" : "WRONG");
    }
  }
  const double best_uniform =
      100.0 * (double(n) / (std::min(ms[1][0], ms[2][0]) * 1e-3) / 1e9) / copy;
  const double skew_ratio = ms[1][1] / ms[1][0];
#ifdef CUDALAB_SIMULATOR
  std::printf(
      "(on the simulator the times are the CPU's; the targets are a GPU's: at least 60 %% of "
      "copy on uniform bytes, and stage 2 on skewed bytes within 3x of its uniform time)\n");
  (void)best_uniform;
  (void)skew_ratio;
#else
  std::printf(
      "uniform: the best privatized stage reaches %.1f %% of copy (target: at least 60 %%): "
      "%s\n",
      best_uniform, best_uniform >= 60.0 ? "met" : "MISSED");
  std::printf("skewed: stage 2 takes %.2fx its uniform time (target: at most 3x): %s\n", skew_ratio,
              skew_ratio <= 3.0 ? "met" : "MISSED");
#endif
  cudaFree(d_data);
  cudaFree(d_copy);
  cudaFree(d_bins);
  return all_right ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  long n = 1000000, threads = 256, blocks = 0, skew = 0;
  bool do_bench = false, n_given = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--bench")) {
      do_bench = true;
    } else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      if (!parse_int(argv[++i], 1, 1024, &threads)) {
        std::fprintf(stderr, "histogram: --threads takes a number from 1 to 1024\n");
        return usage();
      }
    } else if (!std::strcmp(argv[i], "--blocks") && i + 1 < argc) {
      if (!parse_int(argv[++i], 1, 1 << 20, &blocks)) {
        std::fprintf(stderr, "histogram: --blocks takes a number from 1 to 1048576\n");
        return usage();
      }
    } else if (!std::strcmp(argv[i], "--skew") && i + 1 < argc) {
      if (!parse_int(argv[++i], 0, 100, &skew)) {
        std::fprintf(stderr, "histogram: --skew takes a percentage from 0 to 100\n");
        return usage();
      }
    } else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      usage();
      return 0;
    } else if (!n_given && parse_int(argv[i], 1, 1L << 30, &n)) {
      n_given = true;
    } else {
      std::fprintf(stderr, "histogram: '%s' is not an option or a size from 1 to 1073741824\n",
                   argv[i]);
      return usage();
    }
  }
  if (std::string why; !cudalab::device_available(&why)) {
    std::printf("histogram: no CUDA device (%s); nothing to run\n", why.c_str());
    return 77;
  }
  if (do_bench) return bench(n_given ? int(n) : 1 << 26);

  // 1. The bytes, and the counts the CPU gives.
  const std::vector<unsigned char> data = random_bytes(n, 1, int(skew));
  std::vector<uint32_t> want(kBins);
  histogram_cpu(data.data(), int(n), want.data());
  const int most = int(std::max_element(want.begin(), want.end()) - want.begin());
  std::printf("histogram of %ld bytes (%s): the fullest bin is bins[%d], %u bytes\n", n,
              skew ? (std::to_string(skew) + " % one value").c_str() : "uniform", most, want[most]);

  // 2. The same bytes on the device; each stage counts them.
  unsigned char* d_data;
  unsigned int* d_bins;
  check(cudaMalloc(&d_data, n), "cudaMalloc(data)");
  check(cudaMalloc(&d_bins, kBins * sizeof(unsigned int)), "cudaMalloc(bins)");
  check(cudaMemcpy(d_data, data.data(), n, cudaMemcpyHostToDevice), "copy of the bytes");
  cudalab::track_writers();
  // By default at most 64 blocks: with more bytes than threads, each thread
  // counts several in its grid-stride loop.
  if (blocks == 0) blocks = std::min(64L, (n + threads - 1) / threads);
  std::printf("each stage: %ld blocks of %ld threads, about %.1f bytes per thread\n", blocks,
              threads, double(n) / (double(blocks) * threads));
  bool all_right = true;
  for (const Kernel& k : kKernels) {
    const bool right =
        count_and_check(k, d_data, int(n), d_bins, int(blocks), int(threads), want, std::cout);
    all_right &= right;
    std::printf("  %-22s %s", k.name, right ? "all 256 bins right" : "WRONG");
    // What reached global memory: one atomic per byte, or one per bin per block.
    if (k.stage == 1)
      std::printf("  (%ld atomics on bins[], one per byte)", n);
    else
      std::printf("  (at most %ld atomics on bins[], one per bin per block)", blocks * kBins);
#ifdef CUDALAB_SIMULATOR
    std::printf("  %.1f ms on the simulator", cudalab::sim::last_launch().seconds * 1e3);
#endif
    std::printf("\n");
  }
  std::printf("check: %s\n", all_right ? "every stage matches the CPU" : "FAILED");
  cudaFree(d_data);
  cudaFree(d_bins);
  return all_right ? 0 : 1;
}
