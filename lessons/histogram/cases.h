// Histogram: what the graded tests of grade.cu and hidden.cu share. A stage
// is one kernel of the student's file, called through its launcher; a case
// is the bytes (how many, how skewed, drawn from which seed) and the launch
// shape, each field named in the tests ({.n = 1000, .blocks = 4, .threads =
// 256, .skew = 0, .seed = ...}). run_case counts the bytes with the stage
// and fails `t` with what is wrong.
#pragma once

#include <cstdint>

#include "cudalab/framework/grading.h"
#include "cudalab/framework/submission.h"

struct Stage {
  int number;
  const char* kernel;
  cudalab::grading::Submitted<void(const unsigned char*, int, unsigned int*, int, int)> launch;
};
// The three stages of stages.h, in order (grade.cu makes them).
extern const Stage kStages[3];
inline const Stage& kGlobal = kStages[0];
inline const Stage& kShared = kStages[1];
inline const Stage& kWide = kStages[2];

struct Case {
  int n;        // bytes
  int blocks;   // the grid
  int threads;  // per block
  int skew;     // percent of the bytes that are one value (0: uniform)
  uint64_t seed;
};

void run_case(cudalab::grading::TestContext& t, const Stage& stage, const Case& c);

// Blocks of `threads` that cover n bytes, one thread per byte.
inline int blocks_for(int n, int threads) { return (n + threads - 1) / threads; }
