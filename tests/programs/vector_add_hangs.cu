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
// vector_add.cu, it is stopped after the 3 seconds it is given.
// REQUIRES: solution
// TEST: lesson.vector_add.hanging_kernel_is_stopped
// LABELS: lesson;slow
// RUN: %cudalab check --seed 1 vector_add --timeout 3 --file %s
// EXIT: 1
// CHECK: ran for more than 3 seconds and was stopped
// CHECK: total: 0 / %va_total points
