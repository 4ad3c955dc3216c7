// Vector add: the CPU reference, shared by the lesson's program (driver.cu)
// and its graded tests (grade.cu).
#pragma once

// c[i] = a[i] + b[i] for every i < n. A float addition is one rounding on the
// CPU as on a GPU, so a right kernel matches it bit for bit.
inline void vector_add_cpu(const float* a, const float* b, float* c, int n) {
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
