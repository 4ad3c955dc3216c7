// Monte Carlo: what the graded tests of grade.cu and hidden.cu share: pi or
// a call price from the student's kernels with `blocks` blocks, `samples`
// draws a thread and cuRAND seed `seed`, judged within 5 standard errors.
#pragma once

#include "cudalab/grading.h"
#include "lesson.h"

void pi_case(cudalab::grading::TestContext& t, int blocks, int samples, unsigned long long seed);
void call_case(cudalab::grading::TestContext& t, const Option& o, int blocks, int samples,
               unsigned long long seed, bool check_second_moment);
