// Matrix transpose: what the graded tests of grade.cu and hidden.cu share. A
// stage is one kernel of the student's file, called through its launcher;
// run_case transposes a seeded matrix of `height` rows and `width` columns
// with it and fails `t` with what is wrong.
#pragma once

#include <cstdint>

#include "cudalab/framework/grading.h"
#include "cudalab/framework/submission.h"

struct Stage {
  const char* kernel;
  const char* name;
  cudalab::grading::Submitted<void(const float*, float*, int, int)> launch;
};
// The four stages of stages.h, in order (grade.cu makes them).
extern const Stage kStages[4];
inline const Stage& kNaive = kStages[0];
inline const Stage& kTiled = kStages[1];
inline const Stage& kPadded = kStages[2];
inline const Stage& kCoarsened = kStages[3];

// One matrix: `height` rows of `width` floats, drawn from `seed`. Tests name
// each field: {.height = 33, .width = 65, .seed = t.seed(1)}.
struct Shape {
  int height;
  int width;
  uint64_t seed;
};

void run_case(cudalab::grading::TestContext& t, const Stage& stage, const Shape& shape);
