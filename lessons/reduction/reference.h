// Reduction: the CPU reference, shared by the lesson's program (driver.cu)
// and its graded tests (grade.cu).
#pragma once

#include <cmath>

// The sum of in[0..n), in double precision, and the sum of the sizes |in[i]|,
// which bounds how far a float sum may be from it (sum_tolerance).
struct Sum {
  double sum = 0;
  double size = 0;
};
inline Sum sum_cpu(const float* in, int n) {
  Sum s;
  for (int i = 0; i < n; ++i) {
    s.sum += in[i];
    s.size += std::fabs(in[i]);
  }
  return s;
}

// How far a float sum may be from the exact one. Float additions are not
// associative: each one rounds its result to 24 bits, an error of at most
// 2^-24 of the partial sum it makes, so two orders of the same additions
// give different last bits. An element that goes through k additions on
// its way to the total collects at most k such roundings, so a float total
// is within k x 2^-24 x (the sum of the sizes) of the exact sum, whatever
// the order. k is what the shape of the computation sets: a tree over n
// values is log2(n) additions deep, a thread's loop adds one per element it
// takes, and blocks adding to one total one after another one per block.
// Twice that bound covers the rounding of the result itself.
inline double sum_tolerance(int additions, double size) {
  return 2.0 * (additions + 1) * std::ldexp(1.0, -24) * size;
}
