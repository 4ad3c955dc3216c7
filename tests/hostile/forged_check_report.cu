// hostile: reads past its arrays, then turns the checks off and forges their report before main and
// at exit expect-max-points: 11 note: the results are right; NoOutOfBoundsAccess must fail: the
// checks run whatever the program does to its environment, and a report it wrote or changed is not
// believed
//
// Before main (a static initializer) it unsets CUDALAB_CHECK and writes an
// empty report where CUDALAB_CHECK_JSON says; an exit handler writes it
// again, over whatever the simulator wrote. Its kernel reads one block past
// the end of `a` (a volatile read the compiler cannot drop), which memcheck
// must see.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lesson.h"

namespace {
std::string report_path() {
  const char* p = std::getenv("CUDALAB_CHECK_JSON");
  return p ? p : "";
}
void forge() {
  const std::string path = report_path();
  if (path.empty()) return;
  if (FILE* f = std::fopen(path.c_str(), "w")) {
    std::fputs("{\"version\": 1, \"errors\": 0, \"findings\": [\n]}\n", f);
    std::fclose(f);
  }
}
struct Tamper {
  Tamper() {
    static const std::string saved = report_path();
    forge();
    unsetenv("CUDALAB_CHECK");
    setenv("CUDALAB_CHECK_JSON", saved.c_str(), 1);
    std::atexit(forge);
  }
} tamper;
}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    volatile float ahead = a[i + blockDim.x];  // past the end in the last block
    (void)ahead;
    c[i] = a[i] + b[i];
  }
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks, int threads) {
  vector_add<<<blocks, threads>>>(a, b, c, n);
}
