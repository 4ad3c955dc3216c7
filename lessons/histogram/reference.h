// Histogram: the CPU reference and the inputs, shared by the lesson's
// program (driver.cu) and its graded tests (grade.cu, hidden.cu): the one
// place that says what the kernels must compute.
#pragma once

#include <cstdint>
#include <vector>

#include "lesson.h"

// bins[v] = how many of data[0..n) equal v, for every v < kBins. Counts are
// whole numbers: a right kernel gives exactly these.
inline void histogram_cpu(const unsigned char* data, int n, uint32_t* bins) {
  for (int v = 0; v < kBins; ++v) bins[v] = 0;
  for (int i = 0; i < n; ++i) ++bins[data[i]];
}

// n bytes drawn from `seed`. Uniform (percent 0): every value equally
// likely, so a warp's 32 bytes mostly fall in different bins. Skewed:
// `percent` of the bytes are one value (drawn from the seed too) and the rest
// uniform, as in a text of mostly spaces or an image of mostly black: most
// threads add to the same bin at the same time, the case where atomics on
// one address take turns.
inline std::vector<unsigned char> random_bytes(size_t n, uint64_t seed, int percent = 0) {
  uint64_t state = seed;
  auto next = [&state] {  // splitmix64: 64M bytes in a fraction of a second
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  const unsigned char common = (unsigned char)(next() % kBins);
  std::vector<unsigned char> bytes(n);
  for (auto& b : bytes) {
    const uint64_t z = next();
    b = int(z % 100) < percent ? common : (unsigned char)(z >> 56);
  }
  return bytes;
}
