// hostile: reads past its arrays, and from its launcher turns the checks off
// and forges their report
// expect-max-points: 11
// note: the results are right; NoOutOfBoundsAccess must fail: the checks
// were set before any of the program's code ran, and a report the program
// wrote is not believed
//
// Before and after each launch, the launcher unsets CUDALAB_CHECK, sets
// CUDALAB_CHECK_EXITCODE to 0, and writes an empty report where
// CUDALAB_CHECK_JSON says (and again at exit). Its kernel reads one element
// past the end of `b` (a volatile read the compiler cannot drop).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lesson.h"

namespace {
void forge() {
  const char* path = std::getenv("CUDALAB_CHECK_JSON");
  if (!path) return;
  if (FILE* f = std::fopen(path, "w")) {
    std::fputs("{\"version\": 1, \"errors\": 0, \"findings\": [\n]}\n", f);
    std::fclose(f);
  }
}
}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    volatile float past = b[n];  // one element past the end of b
    (void)past;
  }
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks, int threads) {
  static bool once = false;
  if (!once) {
    once = true;
    std::atexit(forge);
  }
  forge();
  unsetenv("CUDALAB_CHECK");
  setenv("CUDALAB_CHECK_EXITCODE", "0", 1);
  vector_add<<<blocks, threads>>>(a, b, c, n);
  cudaDeviceSynchronize();
  forge();
}
