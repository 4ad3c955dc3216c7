// Matrix transpose: the CPU reference, shared by the lesson's program
// (driver.cu) and its graded tests (grade.cu).
#pragma once

#include <cstddef>

// out[c][r] = in[r][c]: `in` has `height` rows of `width` floats, `out` has
// `width` rows of `height` floats, both stored row by row. A transpose only
// moves numbers, so a kernel's result must be equal to this bit for bit.
inline void transpose_cpu(const float* in, float* out, int width, int height) {
  for (int r = 0; r < height; ++r)
    for (int c = 0; c < width; ++c) out[size_t(c) * height + r] = in[size_t(r) * width + c];
}
