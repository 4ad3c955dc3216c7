// Heat equation: what the graded tests of grade.cu and hidden.cu share:
// `steps` steps of the student's stage (1, 2 or 3) on an nx x ny grid drawn
// from `seed`, compared with the CPU.
#pragma once

#include <cstdint>

#include "cudalab/framework/grading.h"

// One call of the student's heat_simulate: `steps` steps of size alpha on an
// nx x ny grid, made by the kernel of `stage` (1, 2 or 3). Tests name each
// field: {.nx = 64, .ny = 64, .alpha = 0.2f, .steps = 1, .stage = 1}.
struct HeatRun {
  int nx, ny;
  float alpha;
  int steps;
  int stage;
};

void against_cpu(cudalab::grading::TestContext& t, const HeatRun& run, uint64_t seed);
