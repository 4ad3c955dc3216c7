// cudalab's CPU simulator: bfloat16 (a float's sign, exponent and top 7
// mantissa bits), __nv_bfloat16 and __nv_bfloat162 with CUDA's conversions,
// arithmetic, comparisons and math functions, under the names CUDA gives
// them (__hadd, __hfma2, hexp, ... overloaded for bfloat16). Arithmetic is
// done in float and rounded once to bfloat16 (a float holds every sum,
// product and quotient of two bfloat16 values closely enough that the
// rounding is the one a GPU's bfloat16 instructions give); a NaN result is
// 0x7fff, as on an H100.
#pragma once

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "cuda_runtime.h"
#include "cudalab/detail/math.h"

namespace cudalab::detail {
// Rounding modes: 0 to nearest even, 1 toward zero, 2 up, 3 down.
inline unsigned short float_to_bfloat16_bits(float f, int mode = 0) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fffu;  // a NaN: the GPU's one
  const uint32_t rest = x & 0xffffu, kept = x >> 16;
  const bool negative = (x >> 31) != 0;
  bool up = false;
  switch (mode) {
    case 1:
      break;
    case 2:
      up = !negative && rest != 0;
      break;
    case 3:
      up = negative && rest != 0;
      break;
    default:
      up = rest > 0x8000u || (rest == 0x8000u && (kept & 1u));
  }
  return static_cast<unsigned short>(kept + (up ? 1u : 0u));  // a carry reaches infinity
}
// An integer's bfloat16, rounded once: through a float rounded toward odd,
// which keeps what the rounding to bfloat16 needs.
template <class I>
unsigned short int_to_bfloat16_bits(I i) {
  float f = float(i);
  if (static_cast<long double>(f) != static_cast<long double>(i)) {
    if (std::fabs(static_cast<long double>(f)) > std::fabs(static_cast<long double>(i)))
      f = std::nextafter(f, 0.0f);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits |= 1u;
    std::memcpy(&f, &bits, 4);
  }
  return float_to_bfloat16_bits(f);
}
inline float bfloat16_bits_to_float(unsigned short b) {
  const uint32_t x = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
}  // namespace cudalab::detail

struct __nv_bfloat16_raw {
  unsigned short x;
};

struct alignas(2) __nv_bfloat16 {
  unsigned short __x = 0;
  __nv_bfloat16() = default;
  __nv_bfloat16(float f) : __x(cudalab::detail::float_to_bfloat16_bits(f)) {}
  __nv_bfloat16(double d) : __x(cudalab::detail::float_to_bfloat16_bits(float(d))) {}
  __nv_bfloat16(int i) : __x(cudalab::detail::float_to_bfloat16_bits(float(i))) {}
  __nv_bfloat16(__nv_bfloat16_raw r) : __x(r.x) {}
  operator float() const { return cudalab::detail::bfloat16_bits_to_float(__x); }
  operator __nv_bfloat16_raw() const { return {__x}; }
  __nv_bfloat16& operator+=(__nv_bfloat16 o) { return *this = float(*this) + float(o); }
  __nv_bfloat16& operator-=(__nv_bfloat16 o) { return *this = float(*this) - float(o); }
  __nv_bfloat16& operator*=(__nv_bfloat16 o) { return *this = float(*this) * float(o); }
  __nv_bfloat16& operator/=(__nv_bfloat16 o) { return *this = float(*this) / float(o); }
};

struct alignas(4) __nv_bfloat162 {
  __nv_bfloat16 x, y;
  __nv_bfloat162() = default;
  __nv_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) : x(a), y(b) {}
  __nv_bfloat162& operator+=(__nv_bfloat162 o) { return x += o.x, y += o.y, *this; }
  __nv_bfloat162& operator-=(__nv_bfloat162 o) { return x -= o.x, y -= o.y, *this; }
  __nv_bfloat162& operator*=(__nv_bfloat162 o) { return x *= o.x, y *= o.y, *this; }
  __nv_bfloat162& operator/=(__nv_bfloat162 o) { return x /= o.x, y /= o.y, *this; }
};

using nv_bfloat16 = __nv_bfloat16;
using nv_bfloat162 = __nv_bfloat162;

// ---- conversions ---------------------------------------------------------------------------
namespace cudalab::detail {
inline __nv_bfloat16 bfloat16_of_bits(unsigned short bits) { return __nv_bfloat16_raw{bits}; }
// To integers: truncated or rounded and clamped; a NaN gives 0 (to 64 bits,
// 0x8000000000000000), as a half's does on an H100.
template <class I>
I bfloat16_to_int(__nv_bfloat16 b, bool nearest) {
  const float f = float(b);
  if (std::isnan(f)) return sizeof(I) == 8 ? I(1ull << 63) : I(0);
  return saturate_to<I>(nearest ? std::nearbyint(f) : std::trunc(f));
}
}  // namespace cudalab::detail

inline __nv_bfloat16 __float2bfloat16(float f) { return f; }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return f; }
inline __nv_bfloat16 __float2bfloat16_rz(float f) {
  return cudalab::detail::bfloat16_of_bits(cudalab::detail::float_to_bfloat16_bits(f, 1));
}
inline __nv_bfloat16 __float2bfloat16_ru(float f) {
  return cudalab::detail::bfloat16_of_bits(cudalab::detail::float_to_bfloat16_bits(f, 2));
}
inline __nv_bfloat16 __float2bfloat16_rd(float f) {
  return cudalab::detail::bfloat16_of_bits(cudalab::detail::float_to_bfloat16_bits(f, 3));
}
inline __nv_bfloat16 __double2bfloat16(double d) { return float(d); }
inline float __bfloat162float(__nv_bfloat16 b) { return float(b); }
inline short __bfloat16_as_short(__nv_bfloat16 b) { return short(b.__x); }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 b) { return b.__x; }
inline __nv_bfloat16 __short_as_bfloat16(short s) {
  return cudalab::detail::bfloat16_of_bits((unsigned short)s);
}
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short s) {
  return cudalab::detail::bfloat16_of_bits(s);
}
inline int __bfloat162int_rz(__nv_bfloat16 b) {
  return cudalab::detail::bfloat16_to_int<int>(b, false);
}
inline int __bfloat162int_rn(__nv_bfloat16 b) {
  return cudalab::detail::bfloat16_to_int<int>(b, true);
}
inline unsigned __bfloat162uint_rz(__nv_bfloat16 b) {
  return cudalab::detail::bfloat16_to_int<unsigned>(b, false);
}
inline short __bfloat162short_rz(__nv_bfloat16 b) {
  return cudalab::detail::bfloat16_to_int<short>(b, false);
}
inline unsigned short __bfloat162ushort_rz(__nv_bfloat16 b) {
  return cudalab::detail::bfloat16_to_int<unsigned short>(b, false);
}
inline long long __bfloat162ll_rz(__nv_bfloat16 b) {
  return cudalab::detail::bfloat16_to_int<long long>(b, false);
}
inline unsigned long long __bfloat162ull_rz(__nv_bfloat16 b) {
  return cudalab::detail::bfloat16_to_int<unsigned long long>(b, false);
}
#define CUDALAB_BF16_FROM_INT(name, I)                                                  \
  inline __nv_bfloat16 name(I i) {                                                      \
    return cudalab::detail::bfloat16_of_bits(cudalab::detail::int_to_bfloat16_bits(i)); \
  }
CUDALAB_BF16_FROM_INT(__int2bfloat16_rn, int)
CUDALAB_BF16_FROM_INT(__uint2bfloat16_rn, unsigned)
CUDALAB_BF16_FROM_INT(__short2bfloat16_rn, short)
CUDALAB_BF16_FROM_INT(__ushort2bfloat16_rn, unsigned short)
CUDALAB_BF16_FROM_INT(__ll2bfloat16_rn, long long)
CUDALAB_BF16_FROM_INT(__ull2bfloat16_rn, unsigned long long)
#undef CUDALAB_BF16_FROM_INT

inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return {a, b}; }
inline __nv_bfloat162 __float2bfloat162_rn(float a) { return {a, a}; }
inline __nv_bfloat162 __float22bfloat162_rn(float2 f) { return {f.x, f.y}; }
inline float2 __bfloat1622float2(__nv_bfloat162 b) { return make_float2(float(b.x), float(b.y)); }
inline float __low2float(__nv_bfloat162 b) { return float(b.x); }
inline float __high2float(__nv_bfloat162 b) { return float(b.y); }
inline __nv_bfloat16 __low2bfloat16(__nv_bfloat162 b) { return b.x; }
inline __nv_bfloat16 __high2bfloat16(__nv_bfloat162 b) { return b.y; }
inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return {a, b}; }
inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) { return {a, a}; }
inline __nv_bfloat162 __lows2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return {a.x, b.x}; }
inline __nv_bfloat162 __highs2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return {a.y, b.y}; }
inline __nv_bfloat162 __low2bfloat162(__nv_bfloat162 a) { return {a.x, a.x}; }
inline __nv_bfloat162 __high2bfloat162(__nv_bfloat162 a) { return {a.y, a.y}; }
inline __nv_bfloat162 __lowhigh2highlow(__nv_bfloat162 a) { return {a.y, a.x}; }

// ---- arithmetic, comparisons, math: CUDA's half-precision names --------------------------
inline __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) + float(b); }
inline __nv_bfloat16 __hsub(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) - float(b); }
inline __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) * float(b); }
inline __nv_bfloat16 __hdiv(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) / float(b); }
// Rounded once: the product is exact in double (not a float's overflow);
// the sum is rounded toward odd in double and float first.
inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
  const double exact = double(float(a)) * double(float(b)) + double(float(c));
  float f = float(exact);
  if (double(f) != exact && std::isfinite(f)) {
    if (std::fabs(double(f)) > std::fabs(exact)) f = std::nextafter(f, 0.0f);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits |= 1u;
    std::memcpy(&f, &bits, 4);
  }
  return f;
}
inline __nv_bfloat16 __hneg(__nv_bfloat16 a) {
  return cudalab::detail::bfloat16_of_bits(
      (a.__x & 0x7fffu) > 0x7f80u ? 0x7fffu : (unsigned short)(a.__x ^ 0x8000u));
}
inline __nv_bfloat16 __habs(__nv_bfloat16 a) {
  return cudalab::detail::bfloat16_of_bits(
      (a.__x & 0x7fffu) > 0x7f80u ? 0x7fffu : (unsigned short)(a.__x & 0x7fffu));
}
inline bool __hisnan(__nv_bfloat16 a) { return std::isnan(float(a)); }
inline int __hisinf(__nv_bfloat16 a) { return std::isinf(float(a)) ? (float(a) > 0 ? 1 : -1) : 0; }
// A NaN gives the other, two give 0x7fff, and +0 is greater than -0.
namespace cudalab::detail {
inline __nv_bfloat16 bfloat16_max_min(__nv_bfloat16 a, __nv_bfloat16 b, bool max) {
  const bool a_nan = __hisnan(a), b_nan = __hisnan(b);
  if (a_nan || b_nan) return a_nan && b_nan ? bfloat16_of_bits(0x7fff) : a_nan ? b : a;
  if (((a.__x | b.__x) & 0x7fffu) == 0)
    return (a.__x & b.__x) == 0x8000u || (!max && (a.__x | b.__x) == 0x8000u)
               ? bfloat16_of_bits(0x8000)
               : bfloat16_of_bits(0);
  return (float(a) < float(b)) == max ? b : a;
}
}  // namespace cudalab::detail
inline __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b) {
  return cudalab::detail::bfloat16_max_min(a, b, true);
}
inline __nv_bfloat16 __hmin(__nv_bfloat16 a, __nv_bfloat16 b) {
  return cudalab::detail::bfloat16_max_min(a, b, false);
}
inline __nv_bfloat16 __hmax_nan(__nv_bfloat16 a, __nv_bfloat16 b) {
  return __hisnan(a) || __hisnan(b) ? cudalab::detail::bfloat16_of_bits(0x7fff) : __hmax(a, b);
}
inline __nv_bfloat16 __hmin_nan(__nv_bfloat16 a, __nv_bfloat16 b) {
  return __hisnan(a) || __hisnan(b) ? cudalab::detail::bfloat16_of_bits(0x7fff) : __hmin(a, b);
}
inline bool __heq(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) == float(b); }
inline bool __hne(__nv_bfloat16 a, __nv_bfloat16 b) {
  return float(a) < float(b) || float(a) > float(b);
}
inline bool __hlt(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) < float(b); }
inline bool __hle(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) <= float(b); }
inline bool __hgt(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) > float(b); }
inline bool __hge(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) >= float(b); }
inline bool __hequ(__nv_bfloat16 a, __nv_bfloat16 b) { return !__hne(a, b); }
inline bool __hneu(__nv_bfloat16 a, __nv_bfloat16 b) { return !(float(a) == float(b)); }
inline bool __hltu(__nv_bfloat16 a, __nv_bfloat16 b) { return !(float(a) >= float(b)); }
inline bool __hleu(__nv_bfloat16 a, __nv_bfloat16 b) { return !(float(a) > float(b)); }
inline bool __hgtu(__nv_bfloat16 a, __nv_bfloat16 b) { return !(float(a) <= float(b)); }
inline bool __hgeu(__nv_bfloat16 a, __nv_bfloat16 b) { return !(float(a) < float(b)); }
#define CUDALAB_BF16_MATH(name, f) \
  inline __nv_bfloat16 name(__nv_bfloat16 a) { return f; }
CUDALAB_BF16_MATH(hsqrt, std::sqrt(float(a)))
CUDALAB_BF16_MATH(hrsqrt, 1.0f / std::sqrt(float(a)))
CUDALAB_BF16_MATH(hrcp, 1.0f / float(a))
CUDALAB_BF16_MATH(hexp, std::exp(float(a)))
CUDALAB_BF16_MATH(hexp2, std::exp2(float(a)))
CUDALAB_BF16_MATH(hexp10, std::pow(10.0f, float(a)))
CUDALAB_BF16_MATH(hlog, std::log(float(a)))
CUDALAB_BF16_MATH(hlog2, std::log2(float(a)))
CUDALAB_BF16_MATH(hlog10, std::log10(float(a)))
CUDALAB_BF16_MATH(hsin, std::sin(float(a)))
CUDALAB_BF16_MATH(hcos, std::cos(float(a)))
CUDALAB_BF16_MATH(htanh, std::tanh(float(a)))
CUDALAB_BF16_MATH(hfloor, std::floor(float(a)))
CUDALAB_BF16_MATH(hceil, std::ceil(float(a)))
CUDALAB_BF16_MATH(htrunc, std::trunc(float(a)))
CUDALAB_BF16_MATH(hrint, std::nearbyint(float(a)))
#undef CUDALAB_BF16_MATH

inline __nv_bfloat16 operator+(__nv_bfloat16 a, __nv_bfloat16 b) { return __hadd(a, b); }
inline __nv_bfloat16 operator-(__nv_bfloat16 a, __nv_bfloat16 b) { return __hsub(a, b); }
inline __nv_bfloat16 operator*(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmul(a, b); }
inline __nv_bfloat16 operator/(__nv_bfloat16 a, __nv_bfloat16 b) { return __hdiv(a, b); }
inline __nv_bfloat16 operator-(__nv_bfloat16 a) { return __hneg(a); }
inline __nv_bfloat16 operator+(__nv_bfloat16 a) { return a; }
inline __nv_bfloat16& operator++(__nv_bfloat16& a) { return a += __nv_bfloat16(1.0f); }
inline __nv_bfloat16& operator--(__nv_bfloat16& a) { return a -= __nv_bfloat16(1.0f); }
inline bool operator==(__nv_bfloat16 a, __nv_bfloat16 b) { return __heq(a, b); }
inline bool operator!=(__nv_bfloat16 a, __nv_bfloat16 b) { return __hneu(a, b); }
inline bool operator<(__nv_bfloat16 a, __nv_bfloat16 b) { return __hlt(a, b); }
inline bool operator<=(__nv_bfloat16 a, __nv_bfloat16 b) { return __hle(a, b); }
inline bool operator>(__nv_bfloat16 a, __nv_bfloat16 b) { return __hgt(a, b); }
inline bool operator>=(__nv_bfloat16 a, __nv_bfloat16 b) { return __hge(a, b); }

// ---- two lanes -----------------------------------------------------------------------------
#define CUDALAB_BF162_OP(name, f)                                  \
  inline __nv_bfloat162 name(__nv_bfloat162 a, __nv_bfloat162 b) { \
    return {f(a.x, b.x), f(a.y, b.y)};                             \
  }
CUDALAB_BF162_OP(__hadd2, __hadd)
CUDALAB_BF162_OP(__hsub2, __hsub)
CUDALAB_BF162_OP(__hmul2, __hmul)
CUDALAB_BF162_OP(__h2div, __hdiv)
CUDALAB_BF162_OP(__hmax2, __hmax)
CUDALAB_BF162_OP(__hmin2, __hmin)
#undef CUDALAB_BF162_OP
inline __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
  return {__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)};
}
inline __nv_bfloat162 __hneg2(__nv_bfloat162 a) { return {__hneg(a.x), __hneg(a.y)}; }
inline __nv_bfloat162 __habs2(__nv_bfloat162 a) { return {__habs(a.x), __habs(a.y)}; }
#define CUDALAB_BF162_FUNCTION(name, f) \
  inline __nv_bfloat162 name(__nv_bfloat162 a) { return {f(a.x), f(a.y)}; }
CUDALAB_BF162_FUNCTION(h2sqrt, hsqrt)
CUDALAB_BF162_FUNCTION(h2rsqrt, hrsqrt)
CUDALAB_BF162_FUNCTION(h2rcp, hrcp)
CUDALAB_BF162_FUNCTION(h2exp, hexp)
CUDALAB_BF162_FUNCTION(h2exp2, hexp2)
CUDALAB_BF162_FUNCTION(h2exp10, hexp10)
CUDALAB_BF162_FUNCTION(h2log, hlog)
CUDALAB_BF162_FUNCTION(h2log2, hlog2)
CUDALAB_BF162_FUNCTION(h2log10, hlog10)
CUDALAB_BF162_FUNCTION(h2sin, hsin)
CUDALAB_BF162_FUNCTION(h2cos, hcos)
CUDALAB_BF162_FUNCTION(h2tanh, htanh)
CUDALAB_BF162_FUNCTION(h2floor, hfloor)
CUDALAB_BF162_FUNCTION(h2ceil, hceil)
CUDALAB_BF162_FUNCTION(h2trunc, htrunc)
CUDALAB_BF162_FUNCTION(h2rint, hrint)
#undef CUDALAB_BF162_FUNCTION
#define CUDALAB_BF162_COMPARE(name, both, f)                                                     \
  inline __nv_bfloat162 name(__nv_bfloat162 a, __nv_bfloat162 b) {                               \
    return {__nv_bfloat16(f(a.x, b.x) ? 1.0f : 0.0f), __nv_bfloat16(f(a.y, b.y) ? 1.0f : 0.0f)}; \
  }                                                                                              \
  inline bool both(__nv_bfloat162 a, __nv_bfloat162 b) { return f(a.x, b.x) && f(a.y, b.y); }
CUDALAB_BF162_COMPARE(__heq2, __hbeq2, __heq)
CUDALAB_BF162_COMPARE(__hne2, __hbne2, __hne)
CUDALAB_BF162_COMPARE(__hlt2, __hblt2, __hlt)
CUDALAB_BF162_COMPARE(__hle2, __hble2, __hle)
CUDALAB_BF162_COMPARE(__hgt2, __hbgt2, __hgt)
CUDALAB_BF162_COMPARE(__hge2, __hbge2, __hge)
CUDALAB_BF162_COMPARE(__hequ2, __hbequ2, __hequ)
CUDALAB_BF162_COMPARE(__hneu2, __hbneu2, __hneu)
CUDALAB_BF162_COMPARE(__hltu2, __hbltu2, __hltu)
CUDALAB_BF162_COMPARE(__hleu2, __hbleu2, __hleu)
CUDALAB_BF162_COMPARE(__hgtu2, __hbgtu2, __hgtu)
CUDALAB_BF162_COMPARE(__hgeu2, __hbgeu2, __hgeu)
#undef CUDALAB_BF162_COMPARE
inline __nv_bfloat162 operator+(__nv_bfloat162 a, __nv_bfloat162 b) { return __hadd2(a, b); }
inline __nv_bfloat162 operator-(__nv_bfloat162 a, __nv_bfloat162 b) { return __hsub2(a, b); }
inline __nv_bfloat162 operator*(__nv_bfloat162 a, __nv_bfloat162 b) { return __hmul2(a, b); }
inline __nv_bfloat162 operator/(__nv_bfloat162 a, __nv_bfloat162 b) { return __h2div(a, b); }
inline __nv_bfloat162 operator-(__nv_bfloat162 a) { return __hneg2(a); }
inline bool operator==(__nv_bfloat162 a, __nv_bfloat162 b) { return __hbeq2(a, b); }
inline bool operator!=(__nv_bfloat162 a, __nv_bfloat162 b) { return __hbneu2(a, b); }

// Atomic adds, through a compare-and-swap of the word that holds them.
inline __nv_bfloat162 atomicAdd(__nv_bfloat162* address, __nv_bfloat162 value) {
  unsigned int* word = reinterpret_cast<unsigned int*>(address);
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    __nv_bfloat162 cur;
    std::memcpy(static_cast<void*>(&cur), &assumed, 4);
    const __nv_bfloat162 sum = cur + value;
    unsigned int next;
    std::memcpy(&next, &sum, 4);
    old = atomicCAS(word, assumed, next);
  } while (old != assumed);
  __nv_bfloat162 result;
  std::memcpy(static_cast<void*>(&result), &old, 4);
  return result;
}
inline __nv_bfloat16 atomicAdd(__nv_bfloat16* address, __nv_bfloat16 value) {
  unsigned short* bits = reinterpret_cast<unsigned short*>(address);
  unsigned short old = *bits, assumed;
  do {
    assumed = old;
    const __nv_bfloat16 sum = cudalab::detail::bfloat16_of_bits(assumed) + value;
    old = atomicCAS(bits, assumed, sum.__x);
  } while (old != assumed);
  return cudalab::detail::bfloat16_of_bits(old);
}
