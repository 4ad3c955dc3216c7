// Vector add: what the graded tests of grade.cu and hidden.cu share. A case
// is an array size and a launch shape, each field named in the tests
// ({.n = 1000, .blocks = 4, .threads = 256, .seed = ...}); run_case launches
// the student's kernel on inputs drawn from `seed` and fails `t` with what is
// wrong.
#pragma once

#include <cstdint>

#include "cudalab/framework/grading.h"

struct Case {
  int n;
  int blocks;
  int threads;
  uint64_t seed;
};

void run_case(cudalab::grading::TestContext& t, const Case& c);

// Blocks of `threads` that cover n elements.
inline int blocks_for(int n, int threads) { return (n + threads - 1) / threads; }
