// Scan: the CPU reference, shared by the lesson's program (driver.cu) and its
// graded tests (grade.cu, hidden.cu): the one place that says what every
// stage must compute.
#pragma once

#include <cstdint>

// The inclusive prefix sum: out[i] = in[0] + ... + in[i] for every i < n.
// Integer additions in any order give the same sum, so a right kernel matches
// it exactly (the inputs are small enough that no sum overflows an int).
inline void scan_cpu(const int32_t* in, int32_t* out, int n) {
  int32_t sum = 0;
  for (int i = 0; i < n; ++i) {
    sum += in[i];
    out[i] = sum;
  }
}
