// The limit for bench/block_sum_16m.cu: the same sum as a plain C++ loop
// (one host thread, clang -O2), each of the 262,144 shares as its thread
// adds it, then the shares summed; the device buffer a host buffer.
#include <cstdio>
#include <cstring>
#include <vector>

#include "../bench_data.h"

int main() {
  const int n = 1 << 24, threads = 256 * 1024;
  std::vector<float> in(n);
  fill_block_sum_input(in);
  std::vector<float> d_in(n);
  std::memcpy(d_in.data(), in.data(), n * sizeof(float));
  std::vector<float> share(threads, 0.0f);
  for (int i = 0; i < n; ++i) share[i % threads] += d_in[i];
  float total = 0;
  for (float v : share) total += v;
  double want = 0;
  for (float v : in) want += v;
  std::printf("block sum of %d floats (plain loop): %.0f (CPU: %.0f)\n", n, double(total), want);
  return double(total) != want;
}
