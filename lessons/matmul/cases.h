// Matrix multiply: what the graded tests of grade.cu and hidden.cu share. A
// stage is one kernel of the student's file, called through its launcher;
// run_case multiplies seeded n x n matrices with it and fails `t` with what
// is wrong.
#pragma once

#include <cstdint>

#include "cudalab/grading.h"
#include "cudalab/submission.h"

struct Stage {
  const char* kernel;
  cudalab::grading::Submitted<void(const float*, const float*, float*, int)> launch;
};
extern const Stage kNaive, kCoalesced, kTiled, kRegister;

void run_case(cudalab::grading::TestContext& t, const Stage& stage, int n, uint64_t seed);
