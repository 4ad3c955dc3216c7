// Matrix multiply: what the graded tests of grade.cu and hidden.cu share. A
// stage is one kernel of the student's file, called through its launcher;
// run_case multiplies seeded n x n matrices with it and fails `t` with what
// is wrong.
#pragma once

#include <cstdint>

#include "cudalab/framework/grading.h"
#include "cudalab/framework/submission.h"

struct Stage {
  const char* kernel;
  cudalab::grading::Submitted<void(const float*, const float*, float*, int)> launch;
};
// The four stages of stages.h, in order (grade.cu makes them).
extern const Stage kStages[4];
inline const Stage& kNaive = kStages[0];
inline const Stage& kCoalesced = kStages[1];
inline const Stage& kTiled = kStages[2];
inline const Stage& kRegister = kStages[3];

void run_case(cudalab::grading::TestContext& t, const Stage& stage, int n, uint64_t seed);
