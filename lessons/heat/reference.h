// Heat equation: the CPU reference, shared by the lesson's program
// (driver.cu) and its graded tests (grade.cu).
#pragma once

#include <cmath>

// One step on the CPU, in float with the kernels' formula: for every interior
// cell of the nx x ny grid (row by row, cell (x, y) at [y * nx + x])
//   out = in + alpha * (left + right + up + down - 4 * in),
// and edge cells keep their value.
inline void heat_step_cpu(const float* in, float* out, int nx, int ny, float alpha) {
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      const int i = y * nx + x;
      if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        out[i] = in[i];
        continue;
      }
      out[i] = in[i] + alpha * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] - 4.0f * in[i]);
    }
}

// How far a kernel may be from the CPU after `steps` steps on temperatures up
// to `hottest`: a kernel that adds the four neighbours in another order
// rounds differently, by a few units in the last place (2^-24) per step, so
// 8 of them per step.
inline double heat_tolerance(int steps, double hottest) {
  return 8.0 * steps * std::ldexp(1.0, -24) * hottest;
}
