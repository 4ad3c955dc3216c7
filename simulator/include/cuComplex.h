// cudalab's CPU simulator: CUDA's single and double precision complex
// numbers (cuComplex.h). A complex number is a float2 or double2 (x the
// real part, y the imaginary part), as on a GPU, so kernels may also pass
// them to shuffles and copy them as vectors. Division scales both operands
// by the divisor's |re| + |im| first, and the magnitude divides by the
// larger part first, so that neither overflows or underflows where the
// result itself fits. Each sum of products is one product rounded and one
// fused multiply-add, in the order nvcc contracts CUDA's own functions, so
// results equal an H100's bit for bit (tests/programs/half_complex.cu),
// except that a NaN is the host's NaN.
#pragma once

#include <cmath>

#include "cuda_runtime.h"

using cuFloatComplex = float2;
using cuDoubleComplex = double2;
using cuComplex = cuFloatComplex;

// ---- single precision --------------------------------------------------------------------

inline float cuCrealf(cuFloatComplex z) { return z.x; }
inline float cuCimagf(cuFloatComplex z) { return z.y; }
inline cuFloatComplex make_cuFloatComplex(float re, float im) { return make_float2(re, im); }
inline cuComplex make_cuComplex(float re, float im) { return make_float2(re, im); }
inline cuFloatComplex cuConjf(cuFloatComplex z) { return make_float2(z.x, -z.y); }
inline cuFloatComplex cuCaddf(cuFloatComplex a, cuFloatComplex b) {
  return make_float2(a.x + b.x, a.y + b.y);
}
inline cuFloatComplex cuCsubf(cuFloatComplex a, cuFloatComplex b) {
  return make_float2(a.x - b.x, a.y - b.y);
}
inline cuFloatComplex cuCmulf(cuFloatComplex a, cuFloatComplex b) {
  return make_float2(std::fma(a.x, b.x, -(a.y * b.y)), std::fma(a.x, b.y, a.y * b.x));
}
inline cuFloatComplex cuCdivf(cuFloatComplex a, cuFloatComplex b) {
  // Scaled by s = |b.re| + |b.im|: (a / s) / (b / s), with |b / s| near 1.
  const float scale = 1.0f / (std::fabs(b.x) + std::fabs(b.y));
  const float ar = a.x * scale, ai = a.y * scale;
  const float br = b.x * scale, bi = b.y * scale;
  const float norm = 1.0f / std::fma(br, br, bi * bi);
  return make_float2(std::fma(ar, br, ai * bi) * norm, std::fma(ai, br, -(ar * bi)) * norm);
}
inline float cuCabsf(cuFloatComplex z) {
  // |z| = big * sqrt(1 + (small / big)^2): no square of a part overflows.
  const float a = std::fabs(z.x), b = std::fabs(z.y);
  const float big = a > b ? a : b, small = a > b ? b : a;
  if (big == 0.0f || big > 3.402823466e38f || small > 3.402823466e38f)
    return big + small;  // zero, an infinity or a NaN
  const float ratio = small / big;
  return big * std::sqrt(std::fma(ratio, ratio, 1.0f));
}
// a * b + d, each part as two fused multiply-adds.
inline cuFloatComplex cuCfmaf(cuFloatComplex a, cuFloatComplex b, cuFloatComplex d) {
  const float re = std::fma(-a.y, b.y, std::fma(a.x, b.x, d.x));
  const float im = std::fma(a.y, b.x, std::fma(a.x, b.y, d.y));
  return make_float2(re, im);
}

// ---- double precision --------------------------------------------------------------------

inline double cuCreal(cuDoubleComplex z) { return z.x; }
inline double cuCimag(cuDoubleComplex z) { return z.y; }
inline cuDoubleComplex make_cuDoubleComplex(double re, double im) { return make_double2(re, im); }
inline cuDoubleComplex cuConj(cuDoubleComplex z) { return make_double2(z.x, -z.y); }
inline cuDoubleComplex cuCadd(cuDoubleComplex a, cuDoubleComplex b) {
  return make_double2(a.x + b.x, a.y + b.y);
}
inline cuDoubleComplex cuCsub(cuDoubleComplex a, cuDoubleComplex b) {
  return make_double2(a.x - b.x, a.y - b.y);
}
inline cuDoubleComplex cuCmul(cuDoubleComplex a, cuDoubleComplex b) {
  return make_double2(std::fma(a.x, b.x, -(a.y * b.y)), std::fma(a.x, b.y, a.y * b.x));
}
inline cuDoubleComplex cuCdiv(cuDoubleComplex a, cuDoubleComplex b) {
  const double scale = 1.0 / (std::fabs(b.x) + std::fabs(b.y));
  const double ar = a.x * scale, ai = a.y * scale;
  const double br = b.x * scale, bi = b.y * scale;
  const double norm = 1.0 / std::fma(br, br, bi * bi);
  return make_double2(std::fma(ar, br, ai * bi) * norm, std::fma(ai, br, -(ar * bi)) * norm);
}
inline double cuCabs(cuDoubleComplex z) {
  const double a = std::fabs(z.x), b = std::fabs(z.y);
  const double big = a > b ? a : b, small = a > b ? b : a;
  if (big == 0.0 || big > 1.79769313486231570e308 || small > 1.79769313486231570e308)
    return big + small;
  const double ratio = small / big;
  return big * std::sqrt(std::fma(ratio, ratio, 1.0));
}
inline cuDoubleComplex cuCfma(cuDoubleComplex a, cuDoubleComplex b, cuDoubleComplex d) {
  const double re = std::fma(-a.y, b.y, std::fma(a.x, b.x, d.x));
  const double im = std::fma(a.y, b.x, std::fma(a.x, b.y, d.y));
  return make_double2(re, im);
}

// ---- conversions -------------------------------------------------------------------------

inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex z) {
  return make_double2(double(z.x), double(z.y));
}
inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex z) {
  return make_float2(float(z.x), float(z.y));
}
