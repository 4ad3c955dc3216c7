// hostile: defines its own main, to take the process over from the grader's
// expect-max-points: 0
// note: the launcher is correct; a second main cannot link, so it must be a build failure
//
// Its main answers the judge's channel itself: it reads whatever comes on
// descriptor 3 and answers every 8-byte length with a made-up reply on
// descriptor 4, and prints a passing total. Linked with the grader's
// generated main it must fail to build (two definitions of main); if it
// ever built, it would not call the student's launcher at all.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "lesson.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}

int main() {
  std::printf("total: 12 / 12 points\n");
  std::fflush(stdout);
  char buf[65536];
  while (read(3, buf, sizeof buf) > 0) {
    const std::string body = std::string(1, '\0') + std::string(24, '\0');
    const uint64_t size = body.size();
    if (write(4, &size, sizeof size) < 0 || write(4, body.data(), body.size()) < 0) break;
  }
  return 0;
}
