// The limit for bench/vector_add_16m.cu: the same program with the kernel
// written as a plain C++ loop (one host thread, compiled with clang -O2),
// the device buffers as host buffers and the copies as memcpy.
#include <cstdio>
#include <cstring>
#include <vector>

#include "../bench_data.h"

int main() {
  const int n = 1 << 24;
  std::vector<float> a(n), b(n), c(n);
  fill_vector_add_inputs(a, b);
  std::vector<float> da(n), db(n), dc(n);
  std::memcpy(da.data(), a.data(), n * sizeof(float));
  std::memcpy(db.data(), b.data(), n * sizeof(float));
  for (int i = 0; i < n; ++i) dc[i] = da[i] + db[i];
  std::memcpy(c.data(), dc.data(), n * sizeof(float));
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += c[i] != a[i] + b[i];
  std::printf("vector add of %d floats (plain loop): %d wrong\n", n, wrong);
  return wrong != 0;
}
