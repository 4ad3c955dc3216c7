// Known-wrong vector add: the grid-stride loop never advances, so the
// kernel never ends. The grader must stop it and go on.
#include "lesson.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;) c[i] = a[i] + b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks, int threads) {
  vector_add<<<blocks, threads>>>(a, b, c, n);
}

// The test of this file (tests/lit/README.md): graded as a student's
// vector_add.cu, its launch is stopped a little before the deadline the
// judge sends with each call (the 3 seconds it is given, however long its
// inputs took to arrive), and the student is shown the loop's line. Its
// trace for a picture comes from a run of its own, stopped the same way:
// the submission's time is spent by then.
// REQUIRES: solution
// TEST: lesson.vector_add.hanging_kernel_is_stopped
// LABELS: lesson;slow
// RUN: %cudalab check --seed 1 vector_add --timeout 3 --file %s --trace %t/hang.trace
// EXIT: 1
// CHECK: A kernel ran until the test's time was nearly out and was stopped
// CHECK: ran until the test's time was nearly out and was stopped; thread ({{[0-9,]+}}) of block ({{[0-9,]+}}) was at vector_add_hangs.cu:6
// CHECK: total: 0 / %va_total points
// CHECK: trace of test MultipleOfBlockSize written to {{.*}}hang.trace
// RUN: %cudalab stats %t/hang.trace
// CHECK: load   vector_add_hangs.cu:6
