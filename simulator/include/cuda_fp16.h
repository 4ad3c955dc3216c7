// cudalab's CPU simulator: half precision (IEEE binary16), __half and
// __half2 with CUDA's conversions and arithmetic. Arithmetic is done in float
// and rounded back to half, which gives the correctly rounded result a GPU
// gives for +, -, * and / (binary16 operands are exact in float). The
// conversions between float and binary16 bits are in cudalab/detail/half.h.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "cuda_runtime.h"
#include "cudalab/detail/half.h"

struct __half_raw {
  unsigned short x;
};

struct alignas(2) __half {
  unsigned short __x = 0;
  __half() = default;
  __half(float f) : __x(cudalab::detail::float_to_half_bits(f)) {}
  __half(double d) : __x(cudalab::detail::float_to_half_bits(float(d))) {}
  __half(int i) : __x(cudalab::detail::float_to_half_bits(float(i))) {}
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
inline __half __double2half(double d) { return __half(float(d)); }
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

inline __half2 __floats2half2_rn(float a, float b) { return {__half(a), __half(b)}; }
inline __half2 __float2half2_rn(float a) { return {__half(a), __half(a)}; }
inline __half2 __float22half2_rn(float2 f) { return {__half(f.x), __half(f.y)}; }
inline float2 __half22float2(__half2 h) { return make_float2(float(h.x), float(h.y)); }
inline float __low2float(__half2 h) { return float(h.x); }
inline float __high2float(__half2 h) { return float(h.y); }
inline __half __low2half(__half2 h) { return h.x; }
inline __half __high2half(__half2 h) { return h.y; }
inline __half2 __halves2half2(__half a, __half b) { return {a, b}; }
inline __half2 __half2half2(__half a) { return {a, a}; }
inline __half2 __lows2half2(__half2 a, __half2 b) { return {a.x, b.x}; }
inline __half2 __highs2half2(__half2 a, __half2 b) { return {a.y, b.y}; }

// Arithmetic and comparisons.
inline __half __hadd(__half a, __half b) { return __half(float(a) + float(b)); }
inline __half __hsub(__half a, __half b) { return __half(float(a) - float(b)); }
inline __half __hmul(__half a, __half b) { return __half(float(a) * float(b)); }
inline __half __hdiv(__half a, __half b) { return __half(float(a) / float(b)); }
inline __half __hfma(__half a, __half b, __half c) {
  return __half(float(double(float(a)) * float(b) + float(c)));
}
inline __half __hneg(__half a) { return __half(__half_raw{(unsigned short)(a.__x ^ 0x8000u)}); }
inline __half __habs(__half a) { return __half(__half_raw{(unsigned short)(a.__x & 0x7fffu)}); }
inline __half __hmax(__half a, __half b) { return float(a) < float(b) ? b : a; }
inline __half __hmin(__half a, __half b) { return float(b) < float(a) ? b : a; }
inline bool __heq(__half a, __half b) { return float(a) == float(b); }
inline bool __hne(__half a, __half b) { return float(a) != float(b); }
inline bool __hlt(__half a, __half b) { return float(a) < float(b); }
inline bool __hle(__half a, __half b) { return float(a) <= float(b); }
inline bool __hgt(__half a, __half b) { return float(a) > float(b); }
inline bool __hge(__half a, __half b) { return float(a) >= float(b); }
inline bool __hisnan(__half a) { return std::isnan(float(a)); }
inline int __hisinf(__half a) { return std::isinf(float(a)) ? (float(a) > 0 ? 1 : -1) : 0; }
inline __half hsqrt(__half a) { return __half(std::sqrt(float(a))); }
inline __half hrsqrt(__half a) { return __half(1.0f / std::sqrt(float(a))); }
inline __half hrcp(__half a) { return __half(1.0f / float(a)); }
inline __half hexp(__half a) { return __half(std::exp(float(a))); }
inline __half hlog(__half a) { return __half(std::log(float(a))); }
inline __half hsin(__half a) { return __half(std::sin(float(a))); }
inline __half hcos(__half a) { return __half(std::cos(float(a))); }
inline __half hfloor(__half a) { return __half(std::floor(float(a))); }
inline __half hceil(__half a) { return __half(std::ceil(float(a))); }

inline __half operator+(__half a, __half b) { return __hadd(a, b); }
inline __half operator-(__half a, __half b) { return __hsub(a, b); }
inline __half operator*(__half a, __half b) { return __hmul(a, b); }
inline __half operator/(__half a, __half b) { return __hdiv(a, b); }
inline __half operator-(__half a) { return __hneg(a); }
inline bool operator==(__half a, __half b) { return __heq(a, b); }
inline bool operator!=(__half a, __half b) { return __hne(a, b); }
inline bool operator<(__half a, __half b) { return __hlt(a, b); }
inline bool operator<=(__half a, __half b) { return __hle(a, b); }
inline bool operator>(__half a, __half b) { return __hgt(a, b); }
inline bool operator>=(__half a, __half b) { return __hge(a, b); }

#define CUDALAB_HALF2_OP(name, f) \
  inline __half2 name(__half2 a, __half2 b) { return {f(a.x, b.x), f(a.y, b.y)}; }
CUDALAB_HALF2_OP(__hadd2, __hadd)
CUDALAB_HALF2_OP(__hsub2, __hsub)
CUDALAB_HALF2_OP(__hmul2, __hmul)
CUDALAB_HALF2_OP(__h2div, __hdiv)
CUDALAB_HALF2_OP(__hmax2, __hmax)
CUDALAB_HALF2_OP(__hmin2, __hmin)
#undef CUDALAB_HALF2_OP
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
  return {__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)};
}
inline __half2 __hneg2(__half2 a) { return {__hneg(a.x), __hneg(a.y)}; }
inline __half2 __habs2(__half2 a) { return {__habs(a.x), __habs(a.y)}; }
inline __half2 h2sqrt(__half2 a) { return {hsqrt(a.x), hsqrt(a.y)}; }
inline __half2 operator+(__half2 a, __half2 b) { return __hadd2(a, b); }
inline __half2 operator-(__half2 a, __half2 b) { return __hsub2(a, b); }
inline __half2 operator*(__half2 a, __half2 b) { return __hmul2(a, b); }
inline __half2 operator/(__half2 a, __half2 b) { return __h2div(a, b); }

// Atomic adds on halves, through a compare-and-swap of the 32-bit word.
inline __half2 atomicAdd(__half2* address, __half2 value) {
  unsigned int* word = reinterpret_cast<unsigned int*>(address);
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    __half2 cur;
    std::memcpy(static_cast<void*>(&cur), &assumed, 4);
    const __half2 sum = cur + value;
    unsigned int next;
    std::memcpy(&next, &sum, 4);
    old = atomicCAS(word, assumed, next);
  } while (old != assumed);
  __half2 result;
  std::memcpy(static_cast<void*>(&result), &old, 4);
  return result;
}
inline __half atomicAdd(__half* address, __half value) {
  unsigned short* bits = reinterpret_cast<unsigned short*>(address);
  unsigned short old = *bits, assumed;
  do {
    assumed = old;
    const __half sum = __half(__half_raw{assumed}) + value;
    old = atomicCAS(bits, assumed, sum.__x);
  } while (old != assumed);
  return __half(__half_raw{old});
}
