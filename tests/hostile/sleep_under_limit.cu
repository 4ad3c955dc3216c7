// hostile: sleeps half a second in the first call of each process, then computes correctly
// expect-max-points: 12
// note: correct results; with a limit of 4 s or more per test, every test must pass (reruns too)
//
// A slow submission that is still inside the time limit must not be failed:
// each graded test (and each rubric's rerun of one) is a fresh process, so
// each pays the half second once, however many launches the test makes.
#include <time.h>

#include <cerrno>

#include "lesson.h"

namespace {
bool slept = false;

void sleep_seconds(double s) {
  timespec left{time_t(s), long((s - time_t(s)) * 1e9)};
  while (nanosleep(&left, &left) == -1 && errno == EINTR) {
  }
}
}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  if (!slept) {
    slept = true;
    sleep_seconds(0.5);
  }
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
