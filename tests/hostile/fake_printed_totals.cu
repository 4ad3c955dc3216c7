// hostile: prints passing totals and JSON on stdout and stderr, hides failures; computes a - b
// expect-max-points: 0
//
// Prints what a passing run prints (the grader's per-test lines, "total: 12 /
// 12 points", a Gradescope JSON document, memcheck's "ERROR SUMMARY: 0
// errors") on stdout and stderr, at static initialization, from the kernel,
// after the launch and at exit, with terminal escapes that erase earlier
// lines and NUL bytes that cut a line short. The kernel is wrong (a - b).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "lesson.h"

namespace {

const char kTotals[] =
    "pass    2.0/2.0  MultipleOfBlockSize: n a multiple of the block size (65,536 = 256 x 256)\n"
    "pass    2.0/2.0  NotAMultipleOfBlockSize: n not a multiple of the block size (100,003): "
    "the bounds check\n"
    "pass    1.0/1.0  OneElement: a single element, one block of 256 threads\n"
    "pass    2.0/2.0  GridStride: a grid smaller than the array (16 blocks of 128 for 100,000): "
    "the grid-stride loop\n"
    "pass    2.0/2.0  SixteenMillion: 16M elements (16,777,216), blocks of 256\n"
    "pass    1.0/1.0  HiddenRandomShapes: seeded sizes and block shapes\n"
    "pass    1.0/1.0  NoOutOfBoundsAccess: no read or write outside the arrays (memcheck)\n"
    "pass    1.0/1.0  CoalescedLoads: coalesced loads\n"
    "========= ERROR SUMMARY: 0 errors\n"
    "total: 12.0 / 12.0 points\n"
    "total: 12 / 12 points\n"
    "8 passed, 0 failed\n";

const char kJson[] =
    "{\"score\":12.0,\"max_score\":12.0,\"status\":\"passed\",\"tests\":["
    "{\"name\":\"MultipleOfBlockSize\",\"score\":2,\"max_score\":2,\"status\":\"passed\"},"
    "{\"name\":\"NotAMultipleOfBlockSize\",\"score\":2,\"max_score\":2,\"status\":\"passed\"},"
    "{\"name\":\"OneElement\",\"score\":1,\"max_score\":1,\"status\":\"passed\"},"
    "{\"name\":\"GridStride\",\"score\":2,\"max_score\":2,\"status\":\"passed\"},"
    "{\"name\":\"SixteenMillion\",\"score\":2,\"max_score\":2,\"status\":\"passed\"},"
    "{\"name\":\"HiddenRandomShapes\",\"score\":1,\"max_score\":1,\"status\":\"passed\"},"
    "{\"name\":\"NoOutOfBoundsAccess\",\"score\":1,\"max_score\":1,\"status\":\"passed\"},"
    "{\"name\":\"CoalescedLoads\",\"score\":1,\"max_score\":1,\"status\":\"passed\"}]}\n"
    "{\"status\":\"passed\",\"score\":5.0}\n";

// Cursor up and erase the line, many times; clear the screen; a carriage
// return; then the fake lines.
const char kErase[] = "\r\033[1A\033[2K\033[1A\033[2K\033[1A\033[2K\033[1A\033[2K\033[2J\033[H\r";

void print_everywhere() {
  for (int fd : {1, 2}) {
    ssize_t ignored = write(fd, kErase, sizeof kErase - 1);
    ignored = write(fd, kTotals, sizeof kTotals - 1);
    ignored = write(fd, kJson, sizeof kJson - 1);
    // A NUL byte, then a failure line a naive reader stops before.
    const char cut[] = "total: 12 / 12 points\0FAIL\n";
    ignored = write(fd, cut, sizeof cut - 1);
    (void)ignored;
  }
}

const int printed_at_start = [] {
  print_everywhere();
  std::atexit(print_everywhere);
  std::at_quick_exit(print_everywhere);
  return 0;
}();

}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  const int first = blockIdx.x * blockDim.x + threadIdx.x;
  if (first == 0) printf("total: 12 / 12 points\n{\"status\":\"passed\",\"score\":5.0}\n");
  for (int i = first; i < n; i += stride) c[i] = a[i] - b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  print_everywhere();
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
  cudaDeviceSynchronize();
  std::printf("%s%s", kTotals, kJson);
  std::fprintf(stderr, "%s%s", kTotals, kJson);
  std::fflush(nullptr);
}
