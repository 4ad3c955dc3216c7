// cudalab's CPU simulator: the 8-bit floats of cuda_fp8.h, written for the
// simulator. E4M3 (4 exponent bits, bias 7, no infinity, 448 the largest,
// S.1111.111 its NaN) and E5M2 (5 exponent bits, bias 15, IEEE-like with
// infinities), their 2- and 4-wide forms, and the conversions
// (__nv_cvt_*_to_fp8*, __nv_cvt_fp8*_to_halfraw*) with their saturation
// modes. Every conversion to fp8 rounds once to nearest even, from the
// value's exact double; every fp8 value is exact in half, and the other
// conversions go through half as CUDA's do. The results equal an H100's for
// every input tried (tests/programs/fp8.cu, tests/data/fp8_gpu.txt).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda_bf16.h"
#include "cuda_fp16.h"
#include "cuda_runtime.h"

typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;

typedef enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE } __nv_saturation_t;
typedef enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 } __nv_fp8_interpretation_t;

namespace cudalab::detail::fp8 {

// A value rounded to fp8; past the largest finite value, saturation gives
// that value and no saturation E4M3's NaN or E5M2's infinity (an infinite
// input too). A NaN stays NaN, but which one depends on the source type, as
// on an H100: from a float, a half or a bfloat16, 0x7f whatever its sign;
// from a double, E4M3's 0x7f with its sign, and E5M2's 0x7e with its sign
// and the double's second mantissa bit.
inline unsigned char from_double(double x, __nv_saturation_t sat, __nv_fp8_interpretation_t as) {
  const bool e5m2 = as == __NV_E5M2;
  const int mantissa_bits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  const unsigned char sign = std::signbit(x) ? 0x80 : 0x00;
  const unsigned char nan = 0x7f, largest = e5m2 ? 0x7b : 0x7e, infinity = 0x7c;
  if (std::isnan(x)) {
    if (!e5m2) return sign | nan;
    uint64_t bits;
    std::memcpy(&bits, &x, 8);
    return static_cast<unsigned char>(sign | 0x7e | ((bits >> 50) & 1u));
  }
  const double a = std::fabs(x);
  const unsigned char overflow = sat == __NV_SATFINITE ? largest : (e5m2 ? infinity : nan);
  if (std::isinf(a)) return sign | overflow;
  const int min_exponent = 1 - bias;
  unsigned code;
  if (a < std::ldexp(1.0, min_exponent)) {
    // Subnormal: a whole number of the smallest step (one more than the
    // largest subnormal is the smallest normal, the same bits).
    code = unsigned(std::nearbyint(std::ldexp(a, -(min_exponent - mantissa_bits))));
  } else {
    int exponent;
    const double m = std::frexp(a, &exponent);  // a = m * 2^exponent, m in [0.5, 1)
    --exponent;
    if (exponent > bias + 1) return sign | overflow;  // past every finite value
    // The mantissa rounded; a carry to 2 moves into the exponent field.
    const unsigned q = unsigned(std::nearbyint(std::ldexp(m * 2.0 - 1.0, mantissa_bits)));
    code = unsigned(exponent + bias) << mantissa_bits;
    code += q;
  }
  if (code > largest) return sign | overflow;
  return sign | static_cast<unsigned char>(code);
}

inline unsigned char from_float(float f, __nv_saturation_t s, __nv_fp8_interpretation_t as) {
  return std::isnan(f) ? 0x7f : from_double(f, s, as);
}
inline unsigned char from_half(__half_raw h, __nv_saturation_t s, __nv_fp8_interpretation_t as) {
  return from_float(float(__half(h)), s, as);
}
inline unsigned char from_bfloat16(__nv_bfloat16_raw b, __nv_saturation_t s,
                                   __nv_fp8_interpretation_t as) {
  return from_float(float(__nv_bfloat16(b)), s, as);
}

// An fp8 value as a half's bits (exact); a NaN is the GPU's 0x7fff.
inline unsigned short to_half_bits(unsigned char code, __nv_fp8_interpretation_t as) {
  const unsigned short sign = (code & 0x80) ? 0x8000 : 0;
  if (as == __NV_E5M2) {
    if ((code & 0x7f) > 0x7c) return 0x7fff;
    return static_cast<unsigned short>(code << 8);
  }
  const unsigned magnitude = code & 0x7fu;
  if (magnitude == 0x7f) return 0x7fff;
  const unsigned exponent = magnitude >> 3, mantissa = magnitude & 7u;
  if (exponent == 0) {
    // m * 2^-9: exact in half, whose subnormals reach 2^-24.
    const __half h(float(std::ldexp(double(mantissa), -9)));
    return static_cast<unsigned short>(sign | h.__x);
  }
  return static_cast<unsigned short>(sign | ((exponent - 7 + 15) << 10) | (mantissa << 7));
}

inline __half to_half(unsigned char code, __nv_fp8_interpretation_t as) {
  return __half(__half_raw{to_half_bits(code, as)});
}

// The scalar types' shared conversions; As is E4M3 or E5M2.
template <__nv_fp8_interpretation_t As>
struct scalar {
  __nv_fp8_storage_t __x;

  scalar() = default;
  explicit scalar(float f) : __x(from_float(f, __NV_SATFINITE, As)) {}
  explicit scalar(double d) : __x(from_double(d, __NV_SATFINITE, As)) {}
  explicit scalar(__half h) : __x(from_half(__half_raw{h.__x}, __NV_SATFINITE, As)) {}
  explicit scalar(__nv_bfloat16 b)
      : __x(from_bfloat16(__nv_bfloat16_raw{b.__x}, __NV_SATFINITE, As)) {}
  template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  explicit scalar(I i) : __x(from_double(double(i), __NV_SATFINITE, As)) {}

  explicit operator __half_raw() const { return {to_half_bits(__x, As)}; }
  explicit operator __half() const { return to_half(__x, As); }
  explicit operator float() const { return float(to_half(__x, As)); }
  explicit operator double() const { return double(float(*this)); }
  explicit operator __nv_bfloat16() const { return __float2bfloat16(float(*this)); }
  explicit operator bool() const { return (__x & 0x7f) != 0; }
  explicit operator char() const { return char(__half2char_rz(__half(*this))); }
  explicit operator signed char() const { return __half2char_rz(__half(*this)); }
  explicit operator unsigned char() const { return __half2uchar_rz(__half(*this)); }
  explicit operator short() const { return __half2short_rz(__half(*this)); }
  explicit operator unsigned short() const { return __half2ushort_rz(__half(*this)); }
  explicit operator int() const { return __half2int_rz(__half(*this)); }
  explicit operator unsigned int() const { return __half2uint_rz(__half(*this)); }
  explicit operator long() const { return long(__half2ll_rz(__half(*this))); }
  explicit operator unsigned long() const { return (unsigned long)__half2ull_rz(__half(*this)); }
  explicit operator long long() const { return __half2ll_rz(__half(*this)); }
  explicit operator unsigned long long() const { return __half2ull_rz(__half(*this)); }
};

}  // namespace cudalab::detail::fp8

// ---- conversion functions ---------------------------------------------------------------
inline __nv_fp8_storage_t __nv_cvt_double_to_fp8(double x, __nv_saturation_t saturate,
                                                 __nv_fp8_interpretation_t fp8_interpretation) {
  return cudalab::detail::fp8::from_double(x, saturate, fp8_interpretation);
}
inline __nv_fp8_storage_t __nv_cvt_float_to_fp8(float x, __nv_saturation_t saturate,
                                                __nv_fp8_interpretation_t fp8_interpretation) {
  return cudalab::detail::fp8::from_float(x, saturate, fp8_interpretation);
}
inline __nv_fp8_storage_t __nv_cvt_halfraw_to_fp8(__half_raw x, __nv_saturation_t saturate,
                                                  __nv_fp8_interpretation_t fp8_interpretation) {
  return cudalab::detail::fp8::from_half(x, saturate, fp8_interpretation);
}
inline __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_fp8(
    __nv_bfloat16_raw x, __nv_saturation_t saturate, __nv_fp8_interpretation_t fp8_interpretation) {
  return cudalab::detail::fp8::from_bfloat16(x, saturate, fp8_interpretation);
}
// Two at once: the first in the low byte.
inline __nv_fp8x2_storage_t __nv_cvt_double2_to_fp8x2(double2 x, __nv_saturation_t saturate,
                                                      __nv_fp8_interpretation_t as) {
  return static_cast<__nv_fp8x2_storage_t>(__nv_cvt_double_to_fp8(x.x, saturate, as) |
                                           __nv_cvt_double_to_fp8(x.y, saturate, as) << 8);
}
inline __nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(float2 x, __nv_saturation_t saturate,
                                                     __nv_fp8_interpretation_t as) {
  return static_cast<__nv_fp8x2_storage_t>(__nv_cvt_float_to_fp8(x.x, saturate, as) |
                                           __nv_cvt_float_to_fp8(x.y, saturate, as) << 8);
}
inline __nv_fp8x2_storage_t __nv_cvt_halfraw2_to_fp8x2(__half2_raw x, __nv_saturation_t saturate,
                                                       __nv_fp8_interpretation_t as) {
  return static_cast<__nv_fp8x2_storage_t>(__nv_cvt_halfraw_to_fp8(__half_raw{x.x}, saturate, as) |
                                           __nv_cvt_halfraw_to_fp8(__half_raw{x.y}, saturate, as)
                                               << 8);
}
inline __nv_fp8x2_storage_t __nv_cvt_bfloat16raw2_to_fp8x2(__nv_bfloat162_raw x,
                                                           __nv_saturation_t saturate,
                                                           __nv_fp8_interpretation_t as) {
  return static_cast<__nv_fp8x2_storage_t>(
      __nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw{x.x}, saturate, as) |
      __nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw{x.y}, saturate, as) << 8);
}
inline __half_raw __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t x,
                                          __nv_fp8_interpretation_t fp8_interpretation) {
  return {cudalab::detail::fp8::to_half_bits(x, fp8_interpretation)};
}
inline __half2_raw __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t x,
                                              __nv_fp8_interpretation_t fp8_interpretation) {
  return {
      cudalab::detail::fp8::to_half_bits(static_cast<unsigned char>(x), fp8_interpretation),
      cudalab::detail::fp8::to_half_bits(static_cast<unsigned char>(x >> 8), fp8_interpretation)};
}

// ---- the types ------------------------------------------------------------------------
struct alignas(1) __nv_fp8_e4m3 : cudalab::detail::fp8::scalar<__NV_E4M3> {
  using scalar::scalar;
};
struct alignas(1) __nv_fp8_e5m2 : cudalab::detail::fp8::scalar<__NV_E5M2> {
  using scalar::scalar;
};

namespace cudalab::detail::fp8 {
template <__nv_fp8_interpretation_t As>
struct pair {
  __nv_fp8x2_storage_t __x;

  pair() = default;
  explicit pair(float2 f) : __x(__nv_cvt_float2_to_fp8x2(f, __NV_SATFINITE, As)) {}
  explicit pair(double2 d) : __x(__nv_cvt_double2_to_fp8x2(d, __NV_SATFINITE, As)) {}
  explicit pair(__half2 h)
      : __x(__nv_cvt_halfraw2_to_fp8x2(__half2_raw{h.x.__x, h.y.__x}, __NV_SATFINITE, As)) {}
  explicit pair(__nv_bfloat162 b)
      : __x(__nv_cvt_bfloat16raw2_to_fp8x2(__nv_bfloat162_raw{b.x.__x, b.y.__x}, __NV_SATFINITE,
                                           As)) {}
  explicit operator __half2_raw() const { return __nv_cvt_fp8x2_to_halfraw2(__x, As); }
  explicit operator __half2() const {
    const __half2_raw r = __nv_cvt_fp8x2_to_halfraw2(__x, As);
    return __half2(__half(__half_raw{r.x}), __half(__half_raw{r.y}));
  }
  explicit operator float2() const {
    const __half2_raw r = __nv_cvt_fp8x2_to_halfraw2(__x, As);
    return make_float2(float(__half(__half_raw{r.x})), float(__half(__half_raw{r.y})));
  }
};
template <__nv_fp8_interpretation_t As>
struct quad {
  __nv_fp8x4_storage_t __x;

  quad() = default;
  explicit quad(float4 f)
      : __x(__nv_cvt_float2_to_fp8x2(make_float2(f.x, f.y), __NV_SATFINITE, As) |
            unsigned(__nv_cvt_float2_to_fp8x2(make_float2(f.z, f.w), __NV_SATFINITE, As)) << 16) {}
  explicit quad(double4 d)
      : __x(__nv_cvt_double2_to_fp8x2(make_double2(d.x, d.y), __NV_SATFINITE, As) |
            unsigned(__nv_cvt_double2_to_fp8x2(make_double2(d.z, d.w), __NV_SATFINITE, As)) << 16) {
  }
  quad(__half2 low, __half2 high) : __x(pair<As>(low).__x | unsigned(pair<As>(high).__x) << 16) {}
  quad(__nv_bfloat162 low, __nv_bfloat162 high)
      : __x(pair<As>(low).__x | unsigned(pair<As>(high).__x) << 16) {}
  explicit operator float4() const {
    pair<As> low, high;
    low.__x = static_cast<__nv_fp8x2_storage_t>(__x);
    high.__x = static_cast<__nv_fp8x2_storage_t>(__x >> 16);
    const float2 a = float2(low), b = float2(high);
    return make_float4(a.x, a.y, b.x, b.y);
  }
};
}  // namespace cudalab::detail::fp8

struct alignas(2) __nv_fp8x2_e4m3 : cudalab::detail::fp8::pair<__NV_E4M3> {
  using pair::pair;
};
struct alignas(2) __nv_fp8x2_e5m2 : cudalab::detail::fp8::pair<__NV_E5M2> {
  using pair::pair;
};
struct alignas(4) __nv_fp8x4_e4m3 : cudalab::detail::fp8::quad<__NV_E4M3> {
  using quad::quad;
};
struct alignas(4) __nv_fp8x4_e5m2 : cudalab::detail::fp8::quad<__NV_E5M2> {
  using quad::quad;
};
