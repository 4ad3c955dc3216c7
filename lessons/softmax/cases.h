// Softmax: what the graded tests of grade.cu and hidden.cu share. A stage is
// one kernel of the student's file, called through its launcher; run_case
// draws a seeded rows x cols matrix, runs the stage on it and fails `t` with
// what is wrong.
#pragma once

#include <cstdint>

#include "cudalab/framework/grading.h"
#include "cudalab/framework/submission.h"

struct Stage {
  const char* kernel;
  cudalab::grading::Submitted<void(const float*, float*, int, int)> launch;
};
// The four stages of stages.h, in order (grade.cu makes them).
extern const Stage kStages[4];
inline const Stage& kThreadPerRow = kStages[0];
inline const Stage& kBlockPerRow = kStages[1];
inline const Stage& kWarpShuffle = kStages[2];
inline const Stage& kOnline = kStages[3];

// The values of the matrix: small ones, from -5 to 5, or large ones, 200 to
// 1,000 in the even rows and -1,000 to -200 in the odd rows, whose exp is
// inf or 0 in float unless the row's max is subtracted first.
enum class Logits { kSmall, kLarge };

// A matrix for a test; tests name each field: {.rows = 8, .cols = 1000}.
struct Shape {
  int rows;
  int cols;
  Logits logits = Logits::kSmall;
};

void run_case(cudalab::grading::TestContext& t, const Stage& stage, const Shape& shape,
              uint64_t seed);
