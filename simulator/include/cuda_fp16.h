// cudalab's CPU simulator: half precision (IEEE binary16), __half and
// __half2 with CUDA's conversions and arithmetic. Arithmetic is done in float
// and rounded back to half, which gives the correctly rounded result a GPU
// gives for +, -, * and / (binary16 operands are exact in float). The
// conversions between float and binary16 bits are in cudalab/detail/half.h.
#pragma once

#include <climits>
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

inline unsigned int __half2uint_rz(__half h) {
  return cudalab::detail::saturate_to<unsigned int>(std::trunc(float(h)));
}
inline short __half2short_rz(__half h) {
  return cudalab::detail::saturate_to<short>(std::trunc(float(h)));
}
inline unsigned short __half2ushort_rz(__half h) {
  return cudalab::detail::saturate_to<unsigned short>(std::trunc(float(h)));
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
inline __half2 __half2half2(__half a) { return {a, a}; }
inline __half2 __lows2half2(__half2 a, __half2 b) { return {a.x, b.x}; }
inline __half2 __highs2half2(__half2 a, __half2 b) { return {a.y, b.y}; }
inline __half2 __low2half2(__half2 a) { return {a.x, a.x}; }
inline __half2 __high2half2(__half2 a) { return {a.y, a.y}; }
inline __half2 __lowhigh2highlow(__half2 a) { return {a.y, a.x}; }

// Arithmetic and comparisons.
inline __half __hadd(__half a, __half b) { return __half(float(a) + float(b)); }
inline __half __hsub(__half a, __half b) { return __half(float(a) - float(b)); }
inline __half __hmul(__half a, __half b) { return __half(float(a) * float(b)); }
inline __half __hdiv(__half a, __half b) { return __half(float(a) / float(b)); }
// Rounded once, as a GPU's fused multiply-add: the product of two halves is
// exact in double, the sum nearly; rounding it to float toward odd keeps
// the bits that the rounding to half needs.
inline __half __hfma(__half a, __half b, __half c) {
  const double exact = double(float(a)) * float(b) + float(c);
  float f = float(exact);
  if (double(f) != exact && std::isfinite(f)) {
    if (std::fabs(double(f)) > std::fabs(exact)) f = std::nextafter(f, 0.0f);
    unsigned int bits;
    std::memcpy(&bits, &f, 4);
    bits |= 1u;
    std::memcpy(&f, &bits, 4);
  }
  return __half(f);
}
// A GPU's neg.f16 and abs.f16 give a NaN as its one NaN, 0x7fff.
inline __half __hneg(__half a) {
  return __half(
      __half_raw{(unsigned short)((a.__x & 0x7fffu) > 0x7c00u ? 0x7fffu : a.__x ^ 0x8000u)});
}
inline __half __habs(__half a) {
  return __half(
      __half_raw{(unsigned short)((a.__x & 0x7fffu) > 0x7c00u ? 0x7fffu : a.__x & 0x7fffu)});
}
// A NaN gives the other, two give the canonical NaN (0x7fff), and +0 is
// greater than -0, as on a GPU.
namespace cudalab::detail {
inline __half half_max_min(__half a, __half b, bool max) {
  const bool a_nan = std::isnan(float(a)), b_nan = std::isnan(float(b));
  if (a_nan || b_nan) return a_nan && b_nan ? __half(__half_raw{0x7fff}) : a_nan ? b : a;
  if (((a.__x | b.__x) & 0x7fffu) == 0)  // two zeros: the sign bits decide
    return (a.__x & b.__x) == 0x8000u || (!max && (a.__x | b.__x) == 0x8000u)
               ? __half(__half_raw{0x8000})
               : __half(__half_raw{0});
  return (float(a) < float(b)) == max ? b : a;
}
}  // namespace cudalab::detail
inline __half __hmax(__half a, __half b) { return cudalab::detail::half_max_min(a, b, true); }
inline __half __hmin(__half a, __half b) { return cudalab::detail::half_max_min(a, b, false); }
inline bool __heq(__half a, __half b) { return float(a) == float(b); }
// Ordered (false when either is NaN, as a GPU's setp.ne); the u ones are
// unordered (true when either is NaN).
inline bool __hne(__half a, __half b) { return float(a) < float(b) || float(a) > float(b); }
inline bool __hequ(__half a, __half b) { return !(float(a) < float(b) || float(a) > float(b)); }
inline bool __hneu(__half a, __half b) { return !(float(a) == float(b)); }
inline bool __hltu(__half a, __half b) { return !(float(a) >= float(b)); }
inline bool __hleu(__half a, __half b) { return !(float(a) > float(b)); }
inline bool __hgtu(__half a, __half b) { return !(float(a) <= float(b)); }
inline bool __hgeu(__half a, __half b) { return !(float(a) < float(b)); }
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
inline __half htrunc(__half a) { return __half(std::trunc(float(a))); }
inline __half hrint(__half a) { return __half(std::nearbyint(float(a))); }
inline __half hexp2(__half a) { return __half(std::exp2(float(a))); }
inline __half hexp10(__half a) { return __half(std::pow(10.0f, float(a))); }
inline __half hlog2(__half a) { return __half(std::log2(float(a))); }
inline __half hlog10(__half a) { return __half(std::log10(float(a))); }
inline __half htanh(__half a) { return __half(std::tanh(float(a))); }
// Correctly rounded: within the error a GPU's approximation may have.
inline __half htanh_approx(__half a) { return htanh(a); }
// The canonical NaN when either is one (the plain ones give the other).
inline __half __hmax_nan(__half a, __half b) {
  return __hisnan(a) || __hisnan(b) ? __half(__half_raw{0x7fff}) : __hmax(a, b);
}
inline __half __hmin_nan(__half a, __half b) {
  return __hisnan(a) || __hisnan(b) ? __half(__half_raw{0x7fff}) : __hmin(a, b);
}
// _sat: clamped to [0, 1] (NaN gives 0).
namespace cudalab::detail {
inline __half half_saturate(float f) { return __half(f > 0.0f ? (f < 1.0f ? f : 1.0f) : 0.0f); }
}  // namespace cudalab::detail
inline __half __hadd_sat(__half a, __half b) {
  return cudalab::detail::half_saturate(float(__hadd(a, b)));
}
inline __half __hsub_sat(__half a, __half b) {
  return cudalab::detail::half_saturate(float(__hsub(a, b)));
}
inline __half __hmul_sat(__half a, __half b) {
  return cudalab::detail::half_saturate(float(__hmul(a, b)));
}
inline __half __hfma_sat(__half a, __half b, __half c) {
  return cudalab::detail::half_saturate(float(__hfma(a, b, c)));
}

inline __half operator+(__half a, __half b) { return __hadd(a, b); }
inline __half operator-(__half a, __half b) { return __hsub(a, b); }
inline __half operator*(__half a, __half b) { return __hmul(a, b); }
inline __half operator/(__half a, __half b) { return __hdiv(a, b); }
inline __half operator-(__half a) { return __hneg(a); }
inline __half operator+(__half a) { return a; }
inline __half& operator++(__half& a) { return a += __half(1.0f); }
inline __half& operator--(__half& a) { return a -= __half(1.0f); }
inline __half operator++(__half& a, int) {
  const __half old = a;
  a += __half(1.0f);
  return old;
}
inline __half operator--(__half& a, int) {
  const __half old = a;
  a -= __half(1.0f);
  return old;
}
inline bool operator==(__half a, __half b) { return __heq(a, b); }
inline bool operator!=(__half a, __half b) { return __hneu(a, b); }
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
#define CUDALAB_HALF2_FUNCTION(name, f) \
  inline __half2 name(__half2 a) { return {f(a.x), f(a.y)}; }
CUDALAB_HALF2_FUNCTION(h2sqrt, hsqrt)
CUDALAB_HALF2_FUNCTION(h2rsqrt, hrsqrt)
CUDALAB_HALF2_FUNCTION(h2rcp, hrcp)
CUDALAB_HALF2_FUNCTION(h2exp, hexp)
CUDALAB_HALF2_FUNCTION(h2exp2, hexp2)
CUDALAB_HALF2_FUNCTION(h2exp10, hexp10)
CUDALAB_HALF2_FUNCTION(h2log, hlog)
CUDALAB_HALF2_FUNCTION(h2log2, hlog2)
CUDALAB_HALF2_FUNCTION(h2log10, hlog10)
CUDALAB_HALF2_FUNCTION(h2sin, hsin)
CUDALAB_HALF2_FUNCTION(h2cos, hcos)
CUDALAB_HALF2_FUNCTION(h2floor, hfloor)
CUDALAB_HALF2_FUNCTION(h2ceil, hceil)
CUDALAB_HALF2_FUNCTION(h2trunc, htrunc)
CUDALAB_HALF2_FUNCTION(h2rint, hrint)
CUDALAB_HALF2_FUNCTION(h2tanh, htanh)
CUDALAB_HALF2_FUNCTION(h2tanh_approx, htanh_approx)
#undef CUDALAB_HALF2_FUNCTION
// Comparisons lane by lane: 1.0 where it holds, else 0.0; the __hb ones
// whether it holds in both lanes.
#define CUDALAB_HALF2_COMPARE(name, both, f)                                       \
  inline __half2 name(__half2 a, __half2 b) {                                      \
    return {__half(f(a.x, b.x) ? 1.0f : 0.0f), __half(f(a.y, b.y) ? 1.0f : 0.0f)}; \
  }                                                                                \
  inline bool both(__half2 a, __half2 b) { return f(a.x, b.x) && f(a.y, b.y); }
CUDALAB_HALF2_COMPARE(__heq2, __hbeq2, __heq)
CUDALAB_HALF2_COMPARE(__hne2, __hbne2, __hne)
CUDALAB_HALF2_COMPARE(__hlt2, __hblt2, __hlt)
CUDALAB_HALF2_COMPARE(__hle2, __hble2, __hle)
CUDALAB_HALF2_COMPARE(__hgt2, __hbgt2, __hgt)
CUDALAB_HALF2_COMPARE(__hge2, __hbge2, __hge)
CUDALAB_HALF2_COMPARE(__hequ2, __hbequ2, __hequ)
CUDALAB_HALF2_COMPARE(__hneu2, __hbneu2, __hneu)
CUDALAB_HALF2_COMPARE(__hltu2, __hbltu2, __hltu)
CUDALAB_HALF2_COMPARE(__hleu2, __hbleu2, __hleu)
CUDALAB_HALF2_COMPARE(__hgtu2, __hbgtu2, __hgtu)
CUDALAB_HALF2_COMPARE(__hgeu2, __hbgeu2, __hgeu)
#undef CUDALAB_HALF2_COMPARE
inline __half2 __hisnan2(__half2 a) {
  return {__half(__hisnan(a.x) ? 1.0f : 0.0f), __half(__hisnan(a.y) ? 1.0f : 0.0f)};
}
inline __half2 operator-(__half2 a) { return __hneg2(a); }
inline __half2 operator+(__half2 a) { return a; }
inline bool operator==(__half2 a, __half2 b) { return __hbeq2(a, b); }
inline bool operator!=(__half2 a, __half2 b) { return __hbneu2(a, b); }
inline bool operator<(__half2 a, __half2 b) { return __hblt2(a, b); }
inline bool operator<=(__half2 a, __half2 b) { return __hble2(a, b); }
inline bool operator>(__half2 a, __half2 b) { return __hbgt2(a, b); }
inline bool operator>=(__half2 a, __half2 b) { return __hbge2(a, b); }
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
