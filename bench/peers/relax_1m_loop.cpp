// The limit for bench/relax_1m.cu: the same 64 steps as a plain C++ loop
// nest (one host thread, clang -O2), visiting the matrix block by block as
// the launch's 16x16 blocks do; the device buffer a host buffer.
#include <cstdio>
#include <vector>

#include "../bench_data.h"

int main() {
  const int n = 1024, steps = 64;
  std::vector<int> d(size_t(n) * n);
  fill_relax_input(d, n);
  std::vector<int> dev = d;
  int* p = dev.data();
  for (int k = 0; k < steps; ++k)
    for (int by = 0; by < n; by += 16)
      for (int bx = 0; bx < n; bx += 16)
        for (int i = by; i < by + 16; ++i)
          for (int j = bx; j < bx + 16; ++j) {
            const int via = p[i * n + k] + p[k * n + j];
            if (via < p[i * n + j]) p[i * n + j] = via;
          }
  const bool ok = relax_wrong(d, dev, n, steps) == 0;
  std::printf("%d relaxation steps on %d nodes (plain loop): %s\n", steps, n,
              ok ? "as the CPU's" : "WRONG");
  return !ok;
}
