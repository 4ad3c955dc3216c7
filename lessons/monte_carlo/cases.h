// Monte Carlo: what the graded tests of grade.cu and hidden.cu share: pi or
// a call price from the student's kernels with `draws` and cuRAND seed
// `seed`, judged within 5 standard errors.
#pragma once

#include "cudalab/framework/grading.h"
#include "lesson.h"

// How much a case draws: `blocks` blocks of kThreads threads, each drawing
// samples_per_thread. Tests name both: {.blocks = 4, .samples_per_thread = 1000}.
struct Draws {
  int blocks;
  int samples_per_thread;
};

// Whether call_case also judges sums[1], the sum of the squared payoffs.
enum class SecondMoment { kUnchecked, kChecked };

void pi_case(cudalab::grading::TestContext& t, Draws draws, unsigned long long seed);
void call_case(cudalab::grading::TestContext& t, const Option& o, Draws draws,
               unsigned long long seed, SecondMoment second_moment);
