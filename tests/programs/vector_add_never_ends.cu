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
// limit, its 8 runs (6 tests, 2 rubrics) wait one limit and about a second
// each for the program to end (the record's exit_seconds: 4 + 7, under 13 s;
// a limit each would be 32 s, and the rerun of a test under the checks
// another limit); the student is told the program did not end.
// REQUIRES: solution
// TEST: lesson.vector_add.program_that_never_ends_costs_one_limit
// LABELS: lesson
// PROPERTIES: COST 11
// RUN: mkdir -p class && cp %s class/never_ends.cu && \
// RUN:   %cudalab grade vector_add class -o grades --seed 1 --timeout 4 > /dev/null; test $? -le 1
// RUN: %python -c "import json; r = json.load(open('grades/records/never_ends.json')); \
// RUN:   [print(t['name'], t['status'], t['output']) for t in r['tests']]; \
// RUN:   print('waited', r['exit_seconds']); assert r['exit_seconds'] < 13"
// CHECK: MultipleOfBlockSize passed
// CHECK: Your program did not end after it answered: it was stopped.
// CHECK: waited
