// Heat equation: what the graded tests of grade.cu and hidden.cu share:
// `steps` steps of the student's stage (1, 2 or 3) on an nx x ny grid drawn
// from `seed`, compared with the CPU.
#pragma once

#include <cstdint>

#include "cudalab/grading.h"

void against_cpu(cudalab::grading::TestContext& t, int nx, int ny, float alpha, int steps,
                 int stage, uint64_t seed);
