// Matrix multiply: the CPU reference, shared by the lesson's program
// (driver.cu) and its graded tests (grade.cu).
#pragma once

#include <cmath>
#include <cstddef>

// Element (r, c) of A x B for n x n matrices stored row by row, summed in
// double precision. *size gets the sum of the products' sizes, which bounds
// how far a float sum can be off (matmul_tolerance).
inline double matmul_cpu_element(const float* a, const float* b, int n, int r, int c,
                                 double* size) {
  double sum = 0;
  *size = 0;
  for (int k = 0; k < n; ++k) {
    const double p = double(a[size_t(r) * n + k]) * b[size_t(k) * n + c];
    sum += p;
    *size += std::fabs(p);
  }
  return sum;
}

// How far a kernel's float sum of n products may be from the CPU's: one
// rounding (2^-24 of the running sum) per addition, so n x 2^-24 times the
// sum of the products' sizes, twice over.
inline double matmul_tolerance(int n, double size) { return 2.0 * n * std::ldexp(1.0, -24) * size; }
