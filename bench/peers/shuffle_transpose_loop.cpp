// A floor for HeCBench's shuffle at its fixed sizes (`shuffle 200000 100`):
// the same work as plain C++ over the machine's cores (OpenMP). Its first
// part broadcasts within groups of 8, 16 and 32 lanes of a 256-element buffer
// 2.4 million times (6 kernels, 400,000 launches each); its second reverses
// every group of 8, 16 or 32 floats of a 2^27-float matrix, 200 times for
// each group size (the CUDA program does each with a warp shuffle, a thread
// an element). No simulator can run the CUDA program faster than this runs
// its work. Its two arguments are the CUDA program's (repeats of each
// broadcast and of each reversal: 200000 and 100 there), for shorter runs
// of the same work side by side (bench/warp_loops.py).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  const int repeat = argc > 2 ? std::atoi(argv[1]) : 200000;
  const int repeat2 = argc > 2 ? std::atoi(argv[2]) : 100;
  if (argc == 2 || repeat < 1 || repeat2 < 1) {
    std::fprintf(stderr, "usage: %s [REPEAT REPEAT2]  (each at least 1; default 200000 100)\n",
                 argv[0]);
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  const int launches = 2 * repeat;
  std::vector<int> value(256), swapped(256);
  long long checksum = 0;
  for (int group : {8, 16, 32}) {
    // The xor broadcast: each lane adds its partner's value at masks 1, 2,
    // 4, ... below the group size, as the kernels' loops do.
    for (int k = 0; k < launches; ++k) {
      for (int i = 0; i < 256; ++i) value[i] = (i & (group - 1)) + (k & 1);
      for (int mask = 1; mask < group - 1; mask *= 2) {
        for (int i = 0; i < 256; ++i) swapped[i] = value[i] + value[i ^ mask];
        value.swap(swapped);
      }
      checksum += value[k & 255];
    }
    // The plain broadcast: every lane takes lane 0's value.
    for (int k = 0; k < launches; ++k) {
      for (int i = 0; i < 256; ++i) value[i] = (i & (group - 1)) == 0 ? 0x5EEDBEEF + k : 0;
      for (int i = 0; i < 256; ++i) swapped[i] = value[i & ~31];
      checksum += swapped[k & 255];
    }
  }
  const double broadcast_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const size_t total = size_t(1) << 27;
  std::vector<float> in(total), reversed(total);
#pragma omp parallel for
  for (size_t i = 0; i < total; ++i) in[i] = float(i) * 10.0f;
  const auto transposes = std::chrono::steady_clock::now();
  int wrong = 0;
  for (int group : {8, 16, 32}) {
    for (int k = 0; k < 2 * repeat2; ++k) {
#pragma omp parallel for
      for (size_t g = 0; g < total; g += size_t(group))
        for (int j = 0; j < group; ++j) reversed[g + size_t(j)] = in[g + size_t(group - j - 1)];
    }
    for (size_t i = 0; i < total; i += 4099)
      wrong += reversed[i] != in[i - i % size_t(group) + size_t(group) - 1 - i % size_t(group)];
  }
  const auto end = std::chrono::steady_clock::now();
  std::printf(
      "shuffle (plain loops): broadcasts %.1f s, %d reversals of 2^27 floats %.1f s, "
      "%s (%lld)\n",
      broadcast_seconds, 6 * repeat2, std::chrono::duration<double>(end - transposes).count(),
      wrong ? "WRONG" : "as the CPU's", checksum % 1000);
  return wrong != 0;
}
