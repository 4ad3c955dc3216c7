// A graded run's settings are read before any of the program's own code:
// a static initializer that turns the checks off, points the report
// elsewhere or looks for the grader's key finds them already read and the
// key gone (from getenv and from /proc/self/environ). The kernel writes one
// element past its buffer, which memcheck must report, in a report signed
// with the key.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace {
struct Tamper {
  Tamper() {
    std::ifstream in("/proc/self/environ");
    std::stringstream text;
    text << in.rdbuf();
    const std::string key = "000102030405060708090a0b0c0d0e0f";
    std::printf("key in the environment: %s\n",
                std::getenv("CUDALAB_REPORT_KEY") || text.str().find(key) != std::string::npos
                    ? "yes"
                    : "no");
    unsetenv("CUDALAB_CHECK");
    setenv("CUDALAB_CHECK_JSON", "elsewhere.json", 1);
  }
} tamper;
}  // namespace

__global__ void one_past(int* p, int n) {
  const int i = threadIdx.x;
  if (i <= n) p[i] = i;  // i == n is past the end
}

int main() {
  int* p = nullptr;
  cudaMalloc(&p, 8 * sizeof(int));
  one_past<<<1, 9>>>(p, 8);
  cudaDeviceSynchronize();
  std::printf("done\n");
  return 0;
}

// The test of this program (tests/lit/README.md).
// BUILD: NO_GPU
// TEST: unit.graded_settings_are_read_first
// LABELS: unit
// RUN: CUDALAB_REPORT_KEY=000102030405060708090a0b0c0d0e0f CUDALAB_CHECK=memcheck \
// RUN:   CUDALAB_CHECK_JSON=report.json %bin
// CHECK: Invalid __global__ write of size 4 bytes
// CHECK: ERROR SUMMARY: 1 error
// CHECK: key in the environment: no
// RUN: test ! -e elsewhere.json && tail -c 40 report.json
// CHECK: "signature": "{{[0-9a-f]+}}"}
