// Softmax: the CPU reference, shared by the lesson's program (driver.cu) and
// its graded tests (grade.cu, hidden.cu): the one place that says what the
// kernels must compute.
#pragma once

#include <cmath>
#include <cstddef>

// The softmax of each row of the rows x cols matrix x (row by row), into out:
// out[r][c] = exp(x[r][c] - m) / (the sum of exp(x[r][c'] - m) over the row),
// with m the row's largest value. Subtracting m changes nothing in exact
// arithmetic (it cancels between the top and the bottom) but keeps every
// exponent at 0 or below: exp(89) is already too large for a float.
//
// x - m is worked out in float, as a kernel does (so both round it the same
// way), then the exponentials and their sum in double: the exact answer to
// within a unit in the last place of a float.
inline void softmax_cpu(const float* x, float* out, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float* in = x + size_t(r) * cols;
    float m = in[0];
    for (int c = 1; c < cols; ++c) m = std::fmax(m, in[c]);
    double sum = 0;
    for (int c = 0; c < cols; ++c) sum += std::exp(double(in[c] - m));
    for (int c = 0; c < cols; ++c)
      out[size_t(r) * cols + c] = float(std::exp(double(in[c] - m)) / sum);
  }
}

// How far a kernel's element may be from the CPU's, relative to it. The
// kernel adds the row's exponentials in float, in its own order: each of
// up to cols additions rounds by at most 2^-24 of the running sum (all terms
// are positive), so cols x 2^-24 covers the sum. expf on a GPU is off by up
// to 2 units in the last place, and its fast form __expf by more for large
// arguments; the online softmax's rescaling rounds too: 256 more units of
// 2^-24 cover those.
inline double softmax_relative_tolerance(int cols) { return (cols + 256) * std::ldexp(1.0, -24); }

// Elements below this are as good as 0 (exp(-69) and less): a GPU may
// flush such a tiny result to 0, or round it in another way.
constexpr double kSoftmaxAbsoluteTolerance = 1e-30;
