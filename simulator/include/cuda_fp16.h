// cudalab's CPU simulator: half precision (IEEE binary16), __half and
// __half2 with CUDA's conversions and arithmetic. Arithmetic is done in float
// and rounded back to half, which gives the correctly rounded result a GPU
// gives for +, -, * and / (binary16 operands are exact in float). The
// conversions between float and binary16 bits are in cudalab/detail/half.h,
// the functions half shares with bfloat16 in cudalab/detail/float16_api.h.
#pragma once

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "cuda_runtime.h"
#include "cudalab/detail/float16_api.h"
#include "cudalab/detail/half.h"

struct __half_raw {
  unsigned short x;
};
struct __half2_raw {
  unsigned short x, y;
};

struct alignas(2) __half {
  unsigned short __x = 0;
  __half() = default;
  __half(float f) : __x(cudalab::detail::float_to_half_bits(f)) {}
  // Rounded once (through a float rounded toward odd). Every integer that
  // rounds to a finite half is exact in float.
  __half(double d) : __x(cudalab::detail::float_to_half_bits(cudalab::detail::rounded_to_odd(d))) {}
  __half(int i) : __x(cudalab::detail::float_to_half_bits(float(i))) {}
  __half(unsigned i) : __x(cudalab::detail::float_to_half_bits(float(i))) {}
  __half(long i) : __x(cudalab::detail::float_to_half_bits(float(i))) {}
  __half(unsigned long i) : __x(cudalab::detail::float_to_half_bits(float(i))) {}
  __half(long long i) : __x(cudalab::detail::float_to_half_bits(float(i))) {}
  __half(unsigned long long i) : __x(cudalab::detail::float_to_half_bits(float(i))) {}
  __half(short i) : __x(cudalab::detail::float_to_half_bits(float(i))) {}
  __half(unsigned short i) : __x(cudalab::detail::float_to_half_bits(float(i))) {}
  __half(__half_raw r) : __x(r.x) {}
  operator float() const { return cudalab::detail::half_bits_to_float(__x); }
  operator __half_raw() const { return {__x}; }
  __half& operator+=(__half o) { return *this = __half(float(*this) + float(o)); }
  __half& operator-=(__half o) { return *this = __half(float(*this) - float(o)); }
  __half& operator*=(__half o) { return *this = __half(float(*this) * float(o)); }
  __half& operator/=(__half o) { return *this = __half(float(*this) / float(o)); }
};

struct alignas(4) __half2 {
  __half x, y;
  __half2() = default;
  __half2(__half a, __half b) : x(a), y(b) {}
  __half2(float a, float b) : x(a), y(b) {}
  __half2& operator+=(__half2 o) { return x += o.x, y += o.y, *this; }
  __half2& operator-=(__half2 o) { return x -= o.x, y -= o.y, *this; }
  __half2& operator*=(__half2 o) { return x *= o.x, y *= o.y, *this; }
  __half2& operator/=(__half2 o) { return x /= o.x, y /= o.y, *this; }
};

using half = __half;
using half2 = __half2;

inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) {
  return __half(__half_raw{cudalab::detail::float_to_half_bits(f, 0)});
}
inline __half __float2half_rz(float f) {
  return __half(__half_raw{cudalab::detail::float_to_half_bits(f, 1)});
}
inline __half __float2half_ru(float f) {
  return __half(__half_raw{cudalab::detail::float_to_half_bits(f, 2)});
}
inline __half __float2half_rd(float f) {
  return __half(__half_raw{cudalab::detail::float_to_half_bits(f, 3)});
}
inline float __half2float(__half h) { return float(h); }
inline __half __double2half(double d) { return __half(d); }
inline __half __int2half_rn(int i) { return __half(float(i)); }
inline int __half2int_rz(__half h) {
  return cudalab::detail::saturate_to<int>(std::trunc(float(h)));
}
inline int __half2int_rn(__half h) {
  return cudalab::detail::saturate_to<int>(std::nearbyint(float(h)));
}
inline short __half_as_short(__half h) { return short(h.__x); }
inline unsigned short __half_as_ushort(__half h) { return h.__x; }
inline __half __short_as_half(short s) { return __half(__half_raw{(unsigned short)s}); }
inline __half __ushort_as_half(unsigned short s) { return __half(__half_raw{s}); }

inline unsigned int __half2uint_rz(__half h) {
  return cudalab::detail::saturate_to<unsigned int>(std::trunc(float(h)));
}
inline short __half2short_rz(__half h) {
  return cudalab::detail::saturate_to<short>(std::trunc(float(h)));
}
inline unsigned short __half2ushort_rz(__half h) {
  return cudalab::detail::saturate_to<unsigned short>(std::trunc(float(h)));
}
inline signed char __half2char_rz(__half h) {
  return cudalab::detail::saturate_to<signed char>(std::trunc(float(h)));
}
inline unsigned char __half2uchar_rz(__half h) {
  return cudalab::detail::saturate_to<unsigned char>(std::trunc(float(h)));
}
// To 64 bits a NaN gives 0x8000000000000000, as on an H100 (to 32 bits, 0).
inline long long __half2ll_rz(__half h) {
  return std::isnan(float(h)) ? LLONG_MIN
                              : cudalab::detail::saturate_to<long long>(std::trunc(float(h)));
}
inline unsigned long long __half2ull_rz(__half h) {
  return std::isnan(float(h))
             ? 1ull << 63
             : cudalab::detail::saturate_to<unsigned long long>(std::trunc(float(h)));
}
// Integers: exact in float below 2^24, and every half's magnitude is below
// 65520, so the float's rounding to half is the integer's.
inline __half __uint2half_rn(unsigned int i) { return __half(float(i)); }
inline __half __short2half_rn(short i) { return __half(float(i)); }
inline __half __ushort2half_rn(unsigned short i) { return __half(float(i)); }
inline __half __ll2half_rn(long long i) { return __half(float(i)); }
inline __half __ull2half_rn(unsigned long long i) { return __half(float(i)); }

inline __half2 __floats2half2_rn(float a, float b) { return {__half(a), __half(b)}; }
inline __half2 __float2half2_rn(float a) { return {__half(a), __half(a)}; }
inline __half2 __float22half2_rn(float2 f) { return {__half(f.x), __half(f.y)}; }
inline float2 __half22float2(__half2 h) { return make_float2(float(h.x), float(h.y)); }
inline float __low2float(__half2 h) { return float(h.x); }
inline float __high2float(__half2 h) { return float(h.y); }
inline __half __low2half(__half2 h) { return h.x; }
inline __half __high2half(__half2 h) { return h.y; }
inline __half2 __halves2half2(__half a, __half b) { return {a, b}; }
inline __half2 make_half2(__half a, __half b) { return {a, b}; }
inline __half2 __half2half2(__half a) { return {a, a}; }
inline __half2 __lows2half2(__half2 a, __half2 b) { return {a.x, b.x}; }
inline __half2 __highs2half2(__half2 a, __half2 b) { return {a.y, b.y}; }
inline __half2 __low2half2(__half2 a) { return {a.x, a.x}; }
inline __half2 __high2half2(__half2 a) { return {a.y, a.y}; }
inline __half2 __lowhigh2highlow(__half2 a) { return {a.y, a.x}; }

// Arithmetic, comparisons, math functions, operators and atomics, as
// bfloat16 has them too (cudalab/detail/float16_api.h); a NaN is 0x7fff.
CUDALAB_FLOAT16_SCALAR_API(__half, 0x7fffu, 0x7c00u)
CUDALAB_FLOAT16_PAIR_API(__half2, __half)
