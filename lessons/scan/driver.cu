// Scan: the lesson's program. It scans random ints with each stage of your
// file (exercise.cu or solution.cu), checks each result against the CPU, and
// says what the launches were; with --bench it times them against a copy.
//
//   scan [N]            N ints (default 100,000; stages 1 and 2 take the
//                       first 1,024, one block's worth)
//   scan --bench [N]    time the stages on N ints (default 16,777,216)
//
// Build and run it, from the course's top folder:
//   on the simulator:  ./build/bin/cudalab run scan -- 5000
//     (builds it with your exercise.cu, again whenever you change it;
//     --solution takes solution.cu instead, --check runs it under the checks)
//   on a GPU, with nvcc (all one line; sm_90 is an H100 or H200: put your GPU's):
//     nvcc -O3 -std=c++17 -arch=sm_90 -I framework/include -I support/include
//       -I trace/include -I lessons/scan lessons/scan/driver.cu
//       lessons/scan/exercise.cu framework/src/*.cpp support/src/*.cpp -o scan
//     ./scan --bench
//
// Napkin math: a scan reads each element once and writes it once, 8 bytes
// per element, and does one addition with them: it is bound by memory, and
// the fastest it can be is a device-to-device copy of the array. Stage 3
// reads the input twice (12 bytes per element): at best 67 % of a copy.
// Stage 4 reads it once: at best a copy, if the look-back costs nothing.
// Stages 1 and 2 are one block, on one of the GPU's 132 multiprocessors.
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
               "usage: scan [N]          scan N random ints (default 100000) with every stage\n"
               "       scan --bench [N]  time the stages on N ints (default 16777216)\n");
  return 2;
}

using cudalab::parse_int;

// The buffers of one run: the input, the output, and each stage's scratch.
struct Buffers {
  int* in = nullptr;
  int* out = nullptr;
  int* tile_sums = nullptr;
  unsigned long long* status = nullptr;
  explicit Buffers(int n) {
    const size_t bytes = size_t(n) * sizeof(int);
    check(cudaMalloc(&in, bytes), "cudaMalloc(in)");
    check(cudaMalloc(&out, bytes), "cudaMalloc(out)");
    check(cudaMalloc(&tile_sums, size_t(tiles_for(n)) * sizeof(int)), "cudaMalloc(tile_sums)");
    check(cudaMalloc(&status, size_t(tiles_for(n) + 1) * sizeof(unsigned long long)),
          "cudaMalloc(status)");
  }
  ~Buffers() {
    cudaFree(in);
    cudaFree(out);
    cudaFree(tile_sums);
    cudaFree(status);
  }
};

// The stages, each run on the first n elements of b.in into b.out.
struct Stage {
  const char* name;
  bool one_block;  // stages 1 and 2 scan at most kBlockElements
  void (*run)(Buffers& b, int n);
};
const Stage kStages[] = {
    {"1 Kogge-Stone", true, [](Buffers& b, int n) { launch_scan_kogge_stone(b.in, b.out, n); }},
    {"2 Brent-Kung", true, [](Buffers& b, int n) { launch_scan_brent_kung(b.in, b.out, n); }},
    {"3 reduce-then-scan", false,
     [](Buffers& b, int n) { launch_scan_multiblock(b.in, b.out, b.tile_sums, n); }},
    {"4 single pass", false,
     [](Buffers& b, int n) { launch_scan_single_pass(b.in, b.out, b.status, n); }},
};

// What the last launch was, in words.
void say_launch() {
#ifdef CUDALAB_SIMULATOR
  const cudalab::sim::LaunchSummary s = cudalab::sim::last_launch();
  if (s.valid)
    std::printf("      last launch: %s, %u blocks of %u threads, %.1f ms on %u CPU threads\n",
                s.kernel, s.grid.x, s.block.x, s.seconds * 1e3, s.workers);
#endif
}

int run(int n) {
  const std::vector<int32_t> in = cudalab::random_ints(size_t(n), 1, -100, 100);
  std::vector<int32_t> want(n), got(n);
  scan_cpu(in.data(), want.data(), n);
  Buffers b(n);
  check(cudaMemcpy(b.in, in.data(), size_t(n) * sizeof(int), cudaMemcpyHostToDevice), "copy of in");
  cudalab::track_writers();
  std::printf("inclusive scan of %d random ints from -100 to 100 (tiles of %d for stages 3, 4)\n",
              n, kTileElements);
  bool all_ok = true;
  for (const Stage& stage : kStages) {
    const int m = stage.one_block && n > kBlockElements ? kBlockElements : n;
    check(cudaMemset(b.out, 0xff, size_t(n) * sizeof(int)), "cudaMemset(out)");  // -1: unwritten
    stage.run(b, m);
    check(cudaGetLastError(), stage.name);
    check(cudaDeviceSynchronize(), stage.name);
    check(cudaMemcpy(got.data(), b.out, size_t(m) * sizeof(int), cudaMemcpyDeviceToHost),
          "copy of out");
    // The first m elements of the scan of n are the scan of the first m.
    const cudalab::CompareResult r =
        cudalab::compare(got.data(), want.data(), size_t(m), "out", b.out, std::cout);
    all_ok &= r.ok();
    std::printf("  stage %-20s %9d elements: %s\n", stage.name, m,
                r.ok() ? "matches the CPU" : "WRONG");
    if (!r.ok() && cudalab::nothing_written(got.data(), size_t(m)))
      std::printf("      no element of out was written: is this stage still a TODO?\n");
    say_launch();
  }
  return all_ok ? 0 : 1;
}

int bench(int n) {
  const size_t bytes = size_t(n) * sizeof(int);
  const std::vector<int32_t> in = cudalab::random_ints(size_t(n), 1, -100, 100);
  std::vector<int32_t> want(n), got(n);
  scan_cpu(in.data(), want.data(), n);
  Buffers b(n);
  check(cudaMemcpy(b.in, in.data(), bytes, cudaMemcpyHostToDevice), "copy of in");
#ifdef CUDALAB_SIMULATOR
  const int reps = 2;
#else
  const int reps = 100;
#endif
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  // The limit: a device-to-device copy moves 8 bytes per element, as a scan must.
  const double copy_gbs = cudalab::copy_gbs(b.out, b.in, bytes, reps);
  const double ms_copy = 2.0 * bytes / (copy_gbs * 1e9) * 1e3;
  std::printf("device: %s, %d ints, %d runs each\n", prop.name, n, reps);
  std::printf("  %-30s %8.4f ms  %7.1f GB/s  (8 bytes per element)\n", "device-to-device copy",
              ms_copy, copy_gbs);
  auto line = [&](const char* what, float ms, bool ok) {
    const double gbs = 2.0 * bytes / (ms * 1e-3) / 1e9;
    std::printf("  %-30s %8.4f ms  %7.1f GB/s  %5.1f %% of copy%s\n", what, ms, gbs,
                100.0 * gbs / copy_gbs, ok ? "" : "  WRONG");
    return 100.0 * gbs / copy_gbs;
  };
  // Stages 1 and 2 are one block: a time per block, not a bandwidth.
  for (const Stage* stage : {&kStages[0], &kStages[1]}) {
    const float ms = cudalab::average_ms([&] { stage->run(b, kBlockElements); }, reps, stage->name);
    std::printf("  stage %-24s %8.4f ms  for one block of %d elements\n", stage->name, ms,
                kBlockElements);
  }
  // Stage 3, launch by launch, then whole.
  const int tiles = tiles_for(n);
  const float ms_reduce =
      cudalab::average_ms([&] { launch_reduce_tiles(b.in, b.tile_sums, n); }, reps, "reduce");
  const float ms_sums =
      cudalab::average_ms([&] { launch_scan_tile_sums(b.tile_sums, tiles); }, reps, "sums");
  const float ms_tiles = cudalab::average_ms(
      [&] { launch_scan_tiles(b.in, b.out, b.tile_sums, n); }, reps, "scan tiles");
  std::printf("    3.1 reduce_tiles    %8.4f ms (reads 4 bytes per element)\n", ms_reduce);
  std::printf("    3.2 scan_tile_sums  %8.4f ms (one block, %d sums)\n", ms_sums, tiles);
  std::printf("    3.3 scan_tiles      %8.4f ms (reads and writes: 8 bytes per element)\n",
              ms_tiles);
  double share[2] = {0, 0};
  for (int k = 2; k < 4; ++k) {
    const Stage& stage = kStages[k];
    check(cudaMemset(b.out, 0xff, bytes), "cudaMemset(out)");
    const float ms = cudalab::average_ms([&] { stage.run(b, n); }, reps, stage.name);
    check(cudaMemcpy(got.data(), b.out, bytes, cudaMemcpyDeviceToHost), "copy of out");
    const bool ok =
        cudalab::compare(got.data(), want.data(), size_t(n), "out", b.out, std::cout).ok();
    share[k - 2] = line((std::string("stage ") + stage.name).c_str(), ms, ok);
  }
#ifdef CUDALAB_SIMULATOR
  std::printf(
      "(on the simulator the times are the CPU's; the targets, stage 3 at least 50 %% and "
      "stage 4 at least 80 %% of copy, are a GPU's)\n");
#else
  std::printf("stage 3: %.1f %% of copy (target: at least 50 %%): %s\n", share[0],
              share[0] >= 50 ? "met" : "MISSED");
  std::printf("stage 4: %.1f %% of copy (target: at least 80 %%): %s\n", share[1],
              share[1] >= 80 ? "met" : "MISSED");
#endif
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  long n = 0;
  bool do_bench = false, n_given = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--bench")) {
      do_bench = true;
    } else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      usage();
      return 0;
    } else if (!n_given && parse_int(argv[i], 1, 1L << 28, &n)) {
      n_given = true;
    } else {
      std::fprintf(stderr, "scan: '%s' is not an option or a size from 1 to 268435456\n", argv[i]);
      return usage();
    }
  }
  if (std::string why; !cudalab::device_available(&why)) {
    std::printf("scan: no CUDA device (%s); nothing to run\n", why.c_str());
    return 77;
  }
  if (do_bench) return bench(n_given ? int(n) : 1 << 24);
  return run(n_given ? int(n) : 100000);
}
