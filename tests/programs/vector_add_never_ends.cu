// Known-wrong vector add: right results, but the program never ends after
// answering (a static object's destructor waits forever). The grader must
// stop it, say so, and wait a second, not a whole limit, in later tests.
#include <unistd.h>

#include "lesson.h"

namespace {
struct WaitsForever {
  ~WaitsForever() {
    for (;;) pause();
  }
} waits_forever;
}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks, int threads) {
  vector_add<<<blocks, threads>>>(a, b, c, n);
}

// The test of this file (tests/lit/README.md): graded with a 4-second
// limit, its 8 runs (6 tests, 2 rubrics) take one limit and about a second
// each (under 26 s in all; a limit each would be over 32 s); the student is
// told the program did not end.
// REQUIRES: solution
// TEST: lesson.vector_add.program_that_never_ends_costs_one_limit
// LABELS: lesson
// RUN: %cudalab check --seed 1 vector_add --timeout 4 --file %s > out.txt; test $? -le 1
// RUN: cat out.txt
// CHECK: pass 2.0/2.0 MultipleOfBlockSize
// CHECK: Your program did not end after it answered: it was stopped.
// RUN: %python -c "import re; s = float(re.search(r'\(([0-9.]+) s\)', open('out.txt').read().splitlines()[-1]).group(1)); \
// RUN:   print('seconds', s); assert s < 26, s"
// CHECK: seconds
