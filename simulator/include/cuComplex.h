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
#include <limits>

#include "cuda_runtime.h"

using cuFloatComplex = float2;
using cuDoubleComplex = double2;
using cuComplex = cuFloatComplex;

// ---- the arithmetic, for both precisions (C is float2 or double2) ------------------------
namespace cudalab::detail {
template <class C>
C complex_mul(C a, C b) {
  return {std::fma(a.x, b.x, -(a.y * b.y)), std::fma(a.x, b.y, a.y * b.x)};
}
template <class C>
C complex_div(C a, C b) {
  // Scaled by s = |b.re| + |b.im|: (a / s) / (b / s), with |b / s| near 1.
  using R = decltype(a.x);
  const R scale = R(1) / (std::fabs(b.x) + std::fabs(b.y));
  const R ar = a.x * scale, ai = a.y * scale;
  const R br = b.x * scale, bi = b.y * scale;
  const R norm = R(1) / std::fma(br, br, bi * bi);
  return {std::fma(ar, br, ai * bi) * norm, std::fma(ai, br, -(ar * bi)) * norm};
}
template <class C>
auto complex_abs(C z) {
  // |z| = big * sqrt(1 + (small / big)^2): no square of a part overflows.
  using R = decltype(z.x);
  const R a = std::fabs(z.x), b = std::fabs(z.y);
  const R big = a > b ? a : b, small = a > b ? b : a;
  if (big == R(0) || big > std::numeric_limits<R>::max() || small > std::numeric_limits<R>::max())
    return big + small;  // zero, an infinity or a NaN
  const R ratio = small / big;
  return big * std::sqrt(std::fma(ratio, ratio, R(1)));
}
// a * b + d, each part as two fused multiply-adds.
template <class C>
C complex_fma(C a, C b, C d) {
  return {std::fma(-a.y, b.y, std::fma(a.x, b.x, d.x)),
          std::fma(a.y, b.x, std::fma(a.x, b.y, d.y))};
}
}  // namespace cudalab::detail

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
  return cudalab::detail::complex_mul(a, b);
}
inline cuFloatComplex cuCdivf(cuFloatComplex a, cuFloatComplex b) {
  return cudalab::detail::complex_div(a, b);
}
inline float cuCabsf(cuFloatComplex z) { return cudalab::detail::complex_abs(z); }
inline cuFloatComplex cuCfmaf(cuFloatComplex a, cuFloatComplex b, cuFloatComplex d) {
  return cudalab::detail::complex_fma(a, b, d);
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
  return cudalab::detail::complex_mul(a, b);
}
inline cuDoubleComplex cuCdiv(cuDoubleComplex a, cuDoubleComplex b) {
  return cudalab::detail::complex_div(a, b);
}
inline double cuCabs(cuDoubleComplex z) { return cudalab::detail::complex_abs(z); }
inline cuDoubleComplex cuCfma(cuDoubleComplex a, cuDoubleComplex b, cuDoubleComplex d) {
  return cudalab::detail::complex_fma(a, b, d);
}

// ---- conversions -------------------------------------------------------------------------

inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex z) {
  return make_double2(double(z.x), double(z.y));
}
inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex z) {
  return make_float2(float(z.x), float(z.y));
}
