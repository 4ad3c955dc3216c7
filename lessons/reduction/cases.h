// Reduction: what the graded tests of grade.cu and hidden.cu share. A stage
// is one kernel of the student's file, called through its launcher;
// run_case adds up n seeded floats with it and fails `t` with what is wrong.
#pragma once

#include <cstdint>

#include "cudalab/framework/grading.h"
#include "cudalab/framework/submission.h"

struct Stage {
  int number;
  const char* kernel;
  cudalab::grading::Submitted<void(const float*, float*, float*, int, int)> launch;
};
// The four stages of stages.h, in order (grade.cu makes them).
extern const Stage kStages[4];
inline const Stage& kInterleaved = kStages[0];
inline const Stage& kSequential = kStages[1];
inline const Stage& kGridStride = kStages[2];
inline const Stage& kShuffle = kStages[3];

// n floats drawn from `seed`, added by `blocks` blocks (stages 3 and 4;
// stages 1 and 2 pick their own grid). Tests name each field:
// {.n = 1000, .blocks = 4, .seed = t.seed(1)}.
struct Case {
  int n;
  int blocks;
  uint64_t seed;
};

// Where the input ends. kGuarded: NaNs follow the n floats, so that a sum
// that reads past the end is NaN. kExact: nothing follows them, so that
// memcheck sees a read past the end (the method rubrics' runs).
enum class InputEnd { kGuarded, kExact };

void run_case(cudalab::grading::TestContext& t, const Stage& stage, const Case& c,
              InputEnd end = InputEnd::kGuarded);
