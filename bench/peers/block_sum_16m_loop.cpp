// The limit for bench/block_sum_16m.cu: the same sum as a plain C++ loop
// (one host thread, clang -O2), a partial a block of 256 as the block's
// threads make it, then the partials summed; the device buffer a host
// buffer.
#include <cstdio>
#include <cstring>
#include <vector>

#include "../bench_data.h"

int main() {
  const int n = 1 << 24, threads = 256, blocks = n / threads;
  std::vector<float> in(n);
  fill_block_sum_input(in);
  std::vector<float> d_in(n);
  std::memcpy(d_in.data(), in.data(), n * sizeof(float));
  std::vector<float> partial(blocks, 0.0f);
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < threads; ++t) partial[b] += d_in[b * threads + t];
  float total = 0;
  for (float v : partial) total += v;
  double want = 0;
  for (float v : in) want += v;
  std::printf("block sum of %d floats (plain loop): %.0f (CPU: %.0f)\n", n, double(total), want);
  return double(total) != want;
}
