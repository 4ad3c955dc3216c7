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
#include "cudalab/detail/float16_api.h"
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
struct __nv_bfloat162_raw {
  unsigned short x, y;
};

struct alignas(2) __nv_bfloat16 {
  unsigned short __x = 0;
  __nv_bfloat16() = default;
  __nv_bfloat16(float f) : __x(cudalab::detail::float_to_bfloat16_bits(f)) {}
  // Rounded once: through a float rounded toward odd.
  __nv_bfloat16(double d)
      : __x(cudalab::detail::float_to_bfloat16_bits(cudalab::detail::rounded_to_odd(d))) {}
  __nv_bfloat16(int i) : __x(cudalab::detail::int_to_bfloat16_bits(i)) {}
  __nv_bfloat16(unsigned i) : __x(cudalab::detail::int_to_bfloat16_bits(i)) {}
  __nv_bfloat16(long i) : __x(cudalab::detail::int_to_bfloat16_bits(i)) {}
  __nv_bfloat16(unsigned long i) : __x(cudalab::detail::int_to_bfloat16_bits(i)) {}
  __nv_bfloat16(long long i) : __x(cudalab::detail::int_to_bfloat16_bits(i)) {}
  __nv_bfloat16(unsigned long long i) : __x(cudalab::detail::int_to_bfloat16_bits(i)) {}
  __nv_bfloat16(short i) : __x(cudalab::detail::int_to_bfloat16_bits(i)) {}
  __nv_bfloat16(unsigned short i) : __x(cudalab::detail::int_to_bfloat16_bits(i)) {}
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
inline __nv_bfloat16 bfloat16_of_bits(unsigned short bits) {
  return float16_of_bits<__nv_bfloat16>(bits);
}
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
inline __nv_bfloat16 __double2bfloat16(double d) { return __nv_bfloat16(d); }
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
inline __nv_bfloat162 make_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return {a, b}; }
inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) { return {a, a}; }
inline __nv_bfloat162 __lows2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return {a.x, b.x}; }
inline __nv_bfloat162 __highs2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return {a.y, b.y}; }
inline __nv_bfloat162 __low2bfloat162(__nv_bfloat162 a) { return {a.x, a.x}; }
inline __nv_bfloat162 __high2bfloat162(__nv_bfloat162 a) { return {a.y, a.y}; }
inline __nv_bfloat162 __lowhigh2highlow(__nv_bfloat162 a) { return {a.y, a.x}; }

// ---- arithmetic, comparisons, math functions, operators and atomics -------------------------
// Under CUDA's half-precision names (cudalab/detail/float16_api.h); a NaN is 0x7fff.
CUDALAB_FLOAT16_SCALAR_API(__nv_bfloat16, 0x7fffu, 0x7f80u)
CUDALAB_FLOAT16_PAIR_API(__nv_bfloat162, __nv_bfloat16)
