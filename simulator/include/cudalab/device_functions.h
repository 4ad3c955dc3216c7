// CUDA's math functions, intrinsics, conversions and reinterpretations that
// C++ lacks. The fast intrinsics (__expf, __sinf, ...) are computed at full
// precision here: a GPU's answers differ from these in the last bits, within
// the error bounds CUDA documents for them. Their helpers are in
// cudalab/detail/math.h.
#pragma once

#include <cfenv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "cudalab/detail/math.h"

// ---- min and max as CUDA overloads them --------------------------------------------------
inline int min(int a, int b) { return a < b ? a : b; }
inline unsigned int min(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int min(int a, unsigned int b) { return min(unsigned(a), b); }
inline unsigned int min(unsigned int a, int b) { return min(a, unsigned(b)); }
inline long min(long a, long b) { return a < b ? a : b; }
inline unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline float min(float a, float b) { return std::fmin(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double min(float a, double b) { return std::fmin(double(a), b); }
inline double min(double a, float b) { return std::fmin(a, double(b)); }
inline int max(int a, int b) { return a < b ? b : a; }
inline unsigned int max(unsigned int a, unsigned int b) { return a < b ? b : a; }
inline unsigned int max(int a, unsigned int b) { return max(unsigned(a), b); }
inline unsigned int max(unsigned int a, int b) { return max(a, unsigned(b)); }
inline long max(long a, long b) { return a < b ? b : a; }
inline unsigned long max(unsigned long a, unsigned long b) { return a < b ? b : a; }
inline long long max(long long a, long long b) { return a < b ? b : a; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a < b ? b : a; }
inline float max(float a, float b) { return std::fmax(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }
inline double max(float a, double b) { return std::fmax(double(a), b); }
inline double max(double a, float b) { return std::fmax(a, double(b)); }
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a < b ? b : a; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a < b ? b : a; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) {
  return a < b ? a : b;
}
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) {
  return a < b ? b : a;
}

// ---- classification, in the global namespace as CUDA's math API has it ----------------------
// (C's macros of these names are gone once <cmath> is included.)
using std::isfinite;
using std::isinf;
using std::isnan;
using std::signbit;

// ---- float and double functions that C++ lacks -----------------------------------------------
extern "C" float cudalab_fast_rsqrtf(float x) noexcept;  // (out of line: fast_math.cpp)
inline float rsqrtf(float x) { return cudalab_fast_rsqrtf(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / std::cbrt(x); }
inline double rcbrt(double x) { return 1.0 / std::cbrt(x); }
inline float sinpif(float x) { return float(std::sin(M_PI * double(x))); }
inline double sinpi(double x) { return std::sin(M_PI * x); }
inline float cospif(float x) { return float(std::cos(M_PI * double(x))); }
inline double cospi(double x) { return std::cos(M_PI * x); }
inline void sincospif(float x, float* s, float* c) { *s = sinpif(x), *c = cospif(x); }
inline void sincospi(double x, double* s, double* c) { *s = sinpi(x), *c = cospi(x); }
inline float exp10f(float x) { return std::pow(10.0f, x); }
inline double exp10(double x) { return std::pow(10.0, x); }
inline float normcdff(float x) { return 0.5f * std::erfc(-x / std::sqrt(2.0f)); }
inline double normcdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }
inline double erfinv(double y) {
  // Newton on erf(x) = y from a good first guess; exact to a few ulps.
  if (y <= -1) return y == -1 ? -INFINITY : NAN;
  if (y >= 1) return y == 1 ? INFINITY : NAN;
  const double a = 0.147, l = std::log(1 - y * y), t = 2 / (M_PI * a) + l / 2;
  double x = std::copysign(std::sqrt(std::sqrt(t * t - l / a) - t), y);
  for (int i = 0; i < 4; ++i) x -= (std::erf(x) - y) / (2 / std::sqrt(M_PI) * std::exp(-x * x));
  return x;
}
inline float erfinvf(float y) { return float(erfinv(y)); }
inline double erfcinv(double y) {
  // Below 0.5, Newton on log(erfc(x)) = log(y): 1 - y would lose the digits
  // of a small y (the tail that Sobol normals reach, 2^-64 and below), and
  // the logarithm is nearly linear there, so Newton converges fast.
  if (y >= 0.5) return erfinv(1 - y);
  if (y <= 0) return y == 0 ? INFINITY : NAN;
  const double a = 0.147, l = std::log(y * (2 - y)), t = 2 / (M_PI * a) + l / 2;
  double x = std::sqrt(std::sqrt(t * t - l / a) - t);
  const double log_y = std::log(y);
  for (int i = 0; i < 8; ++i) {
    const double e = std::erfc(x);
    const double step = (std::log(e) - log_y) * e / (2 / std::sqrt(M_PI) * std::exp(-x * x));
    x += step;
    if (std::fabs(step) <= 1e-16 * x) break;
  }
  return x;
}
inline float erfcinvf(float y) { return float(erfcinv(double(y))); }
inline double normcdfinv(double p) { return -std::sqrt(2.0) * erfcinv(2 * p); }
inline float normcdfinvf(float p) { return float(normcdfinv(p)); }
inline double erfcx(double x) { return std::exp(x * x) * std::erfc(x); }
inline float erfcxf(float x) { return float(erfcx(x)); }
extern "C" float cudalab_fast_fdividef(float a, float b) noexcept;  // (out of line: fast_math.cpp)
inline float fdividef(float a, float b) { return cudalab_fast_fdividef(a, b); }
inline float saturatef(float x) { return x < 0.f ? 0.f : (x > 1.f ? 1.f : x); }

// The fast intrinsics, out of line (simulator/src/runtime/fast_math.cpp):
// a GPU computes each on its special function unit in a couple of
// instructions, where sinf and the like take tens, and a predicted time
// tells them apart by the function called. They cannot throw: a kernel
// that calls one may still run its block in loops (a call that might
// throw keeps a fiber per thread).
extern "C" {
float cudalab_fast_expf(float x) noexcept;
float cudalab_fast_exp10f(float x) noexcept;
float cudalab_fast_logf(float x) noexcept;
float cudalab_fast_log2f(float x) noexcept;
float cudalab_fast_log10f(float x) noexcept;
float cudalab_fast_powf(float a, float b) noexcept;
float cudalab_fast_sinf(float x) noexcept;
float cudalab_fast_cosf(float x) noexcept;
float cudalab_fast_tanf(float x) noexcept;
}
inline float __expf(float x) { return cudalab_fast_expf(x); }
inline float __exp10f(float x) { return cudalab_fast_exp10f(x); }
inline float __logf(float x) { return cudalab_fast_logf(x); }
inline float __log2f(float x) { return cudalab_fast_log2f(x); }
inline float __log10f(float x) { return cudalab_fast_log10f(x); }
inline float __powf(float a, float b) { return cudalab_fast_powf(a, b); }
inline float __sinf(float x) { return cudalab_fast_sinf(x); }
inline float __cosf(float x) { return cudalab_fast_cosf(x); }
inline float __tanf(float x) { return cudalab_fast_tanf(x); }
inline void __sincosf(float x, float* s, float* c) {
  *s = cudalab_fast_sinf(x), *c = cudalab_fast_cosf(x);
}
inline float __fdividef(float a, float b) { return cudalab_fast_fdividef(a, b); }
inline float __saturatef(float x) { return saturatef(x); }

// Arithmetic with an explicit rounding mode.
#define CUDALAB_ROUNDED(name, T, expr)                          \
  inline T name##_rn(T a, T b) { return expr; }                 \
  inline T name##_rz(T a, T b) {                                \
    return cudalab::detail::with_sse_rounding(                  \
        FE_TOWARDZERO, [](T a, T b) { return T(expr); }, a, b); \
  }                                                             \
  inline T name##_ru(T a, T b) {                                \
    return cudalab::detail::with_sse_rounding(                  \
        FE_UPWARD, [](T a, T b) { return T(expr); }, a, b);     \
  }                                                             \
  inline T name##_rd(T a, T b) {                                \
    return cudalab::detail::with_sse_rounding(                  \
        FE_DOWNWARD, [](T a, T b) { return T(expr); }, a, b);   \
  }
CUDALAB_ROUNDED(__fadd, float, a + b)
CUDALAB_ROUNDED(__fsub, float, a - b)
CUDALAB_ROUNDED(__fmul, float, a* b)
CUDALAB_ROUNDED(__fdiv, float, a / b)
CUDALAB_ROUNDED(__dadd, double, a + b)
CUDALAB_ROUNDED(__dsub, double, a - b)
CUDALAB_ROUNDED(__dmul, double, a* b)
CUDALAB_ROUNDED(__ddiv, double, a / b)
#undef CUDALAB_ROUNDED
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline float __fmaf_rz(float a, float b, float c) {
  return cudalab::detail::with_rounding(
      FE_TOWARDZERO, [](float x, float y, float z) { return std::fma(x, y, z); }, a, b, c);
}
inline float __fmaf_ru(float a, float b, float c) {
  return cudalab::detail::with_rounding(
      FE_UPWARD, [](float x, float y, float z) { return std::fma(x, y, z); }, a, b, c);
}
inline float __fmaf_rd(float a, float b, float c) {
  return cudalab::detail::with_rounding(
      FE_DOWNWARD, [](float x, float y, float z) { return std::fma(x, y, z); }, a, b, c);
}
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline float __frsqrt_rn(float x) { return 1.0f / std::sqrt(x); }
#define CUDALAB_ROUNDED1(name, T, expr)                 \
  inline T name##_rn(T a) { return expr; }              \
  inline T name##_rz(T a) {                             \
    return cudalab::detail::with_sse_rounding(          \
        FE_TOWARDZERO, [](T a) { return T(expr); }, a); \
  }                                                     \
  inline T name##_ru(T a) {                             \
    return cudalab::detail::with_sse_rounding(          \
        FE_UPWARD, [](T a) { return T(expr); }, a);     \
  }                                                     \
  inline T name##_rd(T a) {                             \
    return cudalab::detail::with_sse_rounding(          \
        FE_DOWNWARD, [](T a) { return T(expr); }, a);   \
  }
CUDALAB_ROUNDED1(__frcp, float, 1.0f / a)
CUDALAB_ROUNDED1(__fsqrt, float, std::sqrt(a))
CUDALAB_ROUNDED1(__drcp, double, 1.0 / a)
CUDALAB_ROUNDED1(__dsqrt, double, std::sqrt(a))
#undef CUDALAB_ROUNDED1
inline double __fma_rz(double a, double b, double c) {
  return cudalab::detail::with_rounding(
      FE_TOWARDZERO, [](double x, double y, double z) { return std::fma(x, y, z); }, a, b, c);
}
inline double __fma_ru(double a, double b, double c) {
  return cudalab::detail::with_rounding(
      FE_UPWARD, [](double x, double y, double z) { return std::fma(x, y, z); }, a, b, c);
}
inline double __fma_rd(double a, double b, double c) {
  return cudalab::detail::with_rounding(
      FE_DOWNWARD, [](double x, double y, double z) { return std::fma(x, y, z); }, a, b, c);
}

// ---- conversions with an explicit rounding mode ------------------------------------------------
#define CUDALAB_TO_INT(name, F, I)                                                       \
  inline I name##_rn(F x) { return cudalab::detail::saturate_to<I>(std::nearbyint(x)); } \
  inline I name##_rz(F x) { return cudalab::detail::saturate_to<I>(std::trunc(x)); }     \
  inline I name##_ru(F x) { return cudalab::detail::saturate_to<I>(std::ceil(x)); }      \
  inline I name##_rd(F x) { return cudalab::detail::saturate_to<I>(std::floor(x)); }
CUDALAB_TO_INT(__float2int, float, int)
CUDALAB_TO_INT(__float2uint, float, unsigned int)
CUDALAB_TO_INT(__float2ll, float, long long)
CUDALAB_TO_INT(__float2ull, float, unsigned long long)
CUDALAB_TO_INT(__double2int, double, int)
CUDALAB_TO_INT(__double2uint, double, unsigned int)
CUDALAB_TO_INT(__double2ll, double, long long)
CUDALAB_TO_INT(__double2ull, double, unsigned long long)
#undef CUDALAB_TO_INT
#define CUDALAB_TO_FLOAT(name, I, F)                 \
  inline F name##_rn(I x) { return F(x); }           \
  inline F name##_rz(I x) {                          \
    return cudalab::detail::with_rounding(           \
        FE_TOWARDZERO, [](I v) { return F(v); }, x); \
  }                                                  \
  inline F name##_ru(I x) {                          \
    return cudalab::detail::with_rounding(           \
        FE_UPWARD, [](I v) { return F(v); }, x);     \
  }                                                  \
  inline F name##_rd(I x) {                          \
    return cudalab::detail::with_rounding(           \
        FE_DOWNWARD, [](I v) { return F(v); }, x);   \
  }
CUDALAB_TO_FLOAT(__int2float, int, float)
CUDALAB_TO_FLOAT(__uint2float, unsigned int, float)
CUDALAB_TO_FLOAT(__ll2float, long long, float)
CUDALAB_TO_FLOAT(__ull2float, unsigned long long, float)
CUDALAB_TO_FLOAT(__ll2double, long long, double)
CUDALAB_TO_FLOAT(__ull2double, unsigned long long, double)
CUDALAB_TO_FLOAT(__double2float, double, float)
#undef CUDALAB_TO_FLOAT
inline double __int2double_rn(int x) { return double(x); }
inline double __uint2double_rn(unsigned int x) { return double(x); }
inline float __int_as_float(int x) { return cudalab::detail::bit_cast<float>(x); }
inline int __float_as_int(float x) { return cudalab::detail::bit_cast<int>(x); }
inline float __uint_as_float(unsigned int x) { return cudalab::detail::bit_cast<float>(x); }
inline unsigned int __float_as_uint(float x) { return cudalab::detail::bit_cast<unsigned int>(x); }
inline double __longlong_as_double(long long x) { return cudalab::detail::bit_cast<double>(x); }
inline long long __double_as_longlong(double x) { return cudalab::detail::bit_cast<long long>(x); }
inline int __double2hiint(double x) { return int(uint64_t(__double_as_longlong(x)) >> 32); }
inline int __double2loint(double x) { return int(uint32_t(__double_as_longlong(x))); }
inline double __hiloint2double(int hi, int lo) {
  return __longlong_as_double((long long)((uint64_t(uint32_t(hi)) << 32) | uint32_t(lo)));
}

// ---- integer intrinsics --------------------------------------------------------------------
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x ? __builtin_clz(unsigned(x)) : 32; }
inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x) {
  return (uint64_t(__brev(unsigned(x))) << 32) | __brev(unsigned(x >> 32));
}
inline int __mul24(int a, int b) {
  // The low 24 bits of each, sign-extended, multiplied; the low 32 bits kept.
  const int64_t a24 = int32_t(uint32_t(a) << 8) >> 8, b24 = int32_t(uint32_t(b) << 8) >> 8;
  return int(uint32_t(a24 * b24));
}
inline unsigned int __umul24(unsigned int a, unsigned int b) {
  return unsigned((uint64_t(a & 0xffffffu) * (b & 0xffffffu)) & 0xffffffffu);
}
inline int __mulhi(int a, int b) { return int((int64_t(a) * b) >> 32); }
inline unsigned int __umulhi(unsigned int a, unsigned int b) {
  return unsigned((uint64_t(a) * b) >> 32);
}
inline long long __mul64hi(long long a, long long b) {
  return (long long)((__int128(a) * b) >> 64);
}
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)((unsigned __int128)(a)*b >> 64);
}
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  // Each result byte i is byte (s >> 4i) & 7 of the 8 bytes {y:x}.
  const uint64_t both = (uint64_t(y) << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= unsigned((both >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
}
inline unsigned int __sad(int x, int y, unsigned int z) {
  return unsigned(x > y ? int64_t(x) - y : int64_t(y) - x) + z;
}
inline unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) {
  return (x > y ? x - y : y - x) + z;
}
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
  return unsigned(((uint64_t(hi) << 32 | lo) << (shift & 31)) >> 32);
}
inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift) {
  return unsigned(((uint64_t(hi) << 32 | lo) << std::min(shift, 32u)) >> 32);
}
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
  return unsigned((uint64_t(hi) << 32 | lo) >> (shift & 31));
}
inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift) {
  return unsigned((uint64_t(hi) << 32 | lo) >> std::min(shift, 32u));
}
inline int __hadd(int a, int b) { return int((int64_t(a) + b) >> 1); }
inline int __rhadd(int a, int b) { return int((int64_t(a) + b + 1) >> 1); }
inline unsigned int __uhadd(unsigned int a, unsigned int b) {
  return unsigned((uint64_t(a) + b) >> 1);
}
inline unsigned int __urhadd(unsigned int a, unsigned int b) {
  return unsigned((uint64_t(a) + b + 1) >> 1);
}

// ---- loads and stores with cache hints: plain ones here --------------------------------------
template <class T>
T __ldg(const T* p) {
  return *p;
}
template <class T>
T __ldcg(const T* p) {
  return *p;
}
template <class T>
T __ldca(const T* p) {
  return *p;
}
template <class T>
T __ldcs(const T* p) {
  return *p;
}
template <class T>
T __ldlu(const T* p) {
  return *p;
}
template <class T>
T __ldcv(const T* p) {
  return *p;
}
template <class T>
void __stwb(T* p, T v) {
  *p = v;
}
template <class T>
void __stcg(T* p, T v) {
  *p = v;
}
template <class T>
void __stcs(T* p, T v) {
  *p = v;
}
template <class T>
void __stwt(T* p, T v) {
  *p = v;
}

// ---- SIMD intrinsics: two 16-bit or four 8-bit lanes in a 32-bit word ---------------------
// Per lane, signed (s) or unsigned (u); ss and us saturate, the others wrap.
// __vcmp* give all ones in a lane where it holds, __vset* give 1.
#define CUDALAB_SIMD(name2, name4, is_signed, expr)                            \
  inline unsigned name2(unsigned a, unsigned b) {                              \
    return cudalab::detail::simd_lanes<16, is_signed>(a, b, [](int x, int y) { \
      constexpr int kBits = 16;                                                \
      (void)kBits;                                                             \
      return expr;                                                             \
    });                                                                        \
  }                                                                            \
  inline unsigned name4(unsigned a, unsigned b) {                              \
    return cudalab::detail::simd_lanes<8, is_signed>(a, b, [](int x, int y) {  \
      constexpr int kBits = 8;                                                 \
      (void)kBits;                                                             \
      return expr;                                                             \
    });                                                                        \
  }
CUDALAB_SIMD(__vadd2, __vadd4, false, x + y)
CUDALAB_SIMD(__vsub2, __vsub4, false, x - y)
CUDALAB_SIMD(__vaddss2, __vaddss4, true, cudalab::detail::simd_clamp_signed<kBits>(x + y))
CUDALAB_SIMD(__vsubss2, __vsubss4, true, cudalab::detail::simd_clamp_signed<kBits>(x - y))
CUDALAB_SIMD(__vaddus2, __vaddus4, false, cudalab::detail::simd_clamp_unsigned<kBits>(x + y))
CUDALAB_SIMD(__vsubus2, __vsubus4, false, cudalab::detail::simd_clamp_unsigned<kBits>(x - y))
CUDALAB_SIMD(__vabsdiffs2, __vabsdiffs4, true, x > y ? x - y : y - x)
CUDALAB_SIMD(__vabsdiffu2, __vabsdiffu4, false, x > y ? x - y : y - x)
CUDALAB_SIMD(__vavgs2, __vavgs4, true, (x + y + ((x + y) >= 0 ? 1 : 0)) >> 1)
CUDALAB_SIMD(__vavgu2, __vavgu4, false, (x + y + 1) >> 1)
CUDALAB_SIMD(__vhaddu2, __vhaddu4, false, (x + y) >> 1)
CUDALAB_SIMD(__vmaxs2, __vmaxs4, true, x > y ? x : y)
CUDALAB_SIMD(__vmaxu2, __vmaxu4, false, x > y ? x : y)
CUDALAB_SIMD(__vmins2, __vmins4, true, x < y ? x : y)
CUDALAB_SIMD(__vminu2, __vminu4, false, x < y ? x : y)
CUDALAB_SIMD(__vcmpeq2, __vcmpeq4, false, x == y ? -1 : 0)
CUDALAB_SIMD(__vcmpne2, __vcmpne4, false, x != y ? -1 : 0)
CUDALAB_SIMD(__vcmpges2, __vcmpges4, true, x >= y ? -1 : 0)
CUDALAB_SIMD(__vcmpgeu2, __vcmpgeu4, false, x >= y ? -1 : 0)
CUDALAB_SIMD(__vcmpgts2, __vcmpgts4, true, x > y ? -1 : 0)
CUDALAB_SIMD(__vcmpgtu2, __vcmpgtu4, false, x > y ? -1 : 0)
CUDALAB_SIMD(__vcmples2, __vcmples4, true, x <= y ? -1 : 0)
CUDALAB_SIMD(__vcmpleu2, __vcmpleu4, false, x <= y ? -1 : 0)
CUDALAB_SIMD(__vcmplts2, __vcmplts4, true, x < y ? -1 : 0)
CUDALAB_SIMD(__vcmpltu2, __vcmpltu4, false, x < y ? -1 : 0)
CUDALAB_SIMD(__vseteq2, __vseteq4, false, x == y ? 1 : 0)
CUDALAB_SIMD(__vsetne2, __vsetne4, false, x != y ? 1 : 0)
CUDALAB_SIMD(__vsetges2, __vsetges4, true, x >= y ? 1 : 0)
CUDALAB_SIMD(__vsetgeu2, __vsetgeu4, false, x >= y ? 1 : 0)
CUDALAB_SIMD(__vsetgts2, __vsetgts4, true, x > y ? 1 : 0)
CUDALAB_SIMD(__vsetgtu2, __vsetgtu4, false, x > y ? 1 : 0)
CUDALAB_SIMD(__vsetles2, __vsetles4, true, x <= y ? 1 : 0)
CUDALAB_SIMD(__vsetleu2, __vsetleu4, false, x <= y ? 1 : 0)
CUDALAB_SIMD(__vsetlts2, __vsetlts4, true, x < y ? 1 : 0)
CUDALAB_SIMD(__vsetltu2, __vsetltu4, false, x < y ? 1 : 0)
#undef CUDALAB_SIMD
// One operand: absolute value and negation (ss: saturated).
inline unsigned __vabs2(unsigned a) { return __vabsdiffs2(a, 0); }
inline unsigned __vabs4(unsigned a) { return __vabsdiffs4(a, 0); }
inline unsigned __vabsss2(unsigned a) {
  return cudalab::detail::simd_lanes<16, true>(
      a, 0, [](int x, int) { return cudalab::detail::simd_clamp_signed<16>(x < 0 ? -x : x); });
}
inline unsigned __vabsss4(unsigned a) {
  return cudalab::detail::simd_lanes<8, true>(
      a, 0, [](int x, int) { return cudalab::detail::simd_clamp_signed<8>(x < 0 ? -x : x); });
}
inline unsigned __vneg2(unsigned a) { return __vsub2(0, a); }
inline unsigned __vneg4(unsigned a) { return __vsub4(0, a); }
inline unsigned __vnegss2(unsigned a) { return __vsubss2(0, a); }
inline unsigned __vnegss4(unsigned a) { return __vsubss4(0, a); }
// Sums of absolute differences over the lanes.
inline unsigned __vsads2(unsigned a, unsigned b) {
  return cudalab::detail::simd_sum<16, true>(a, b,
                                             [](int x, int y) { return x > y ? x - y : y - x; });
}
inline unsigned __vsads4(unsigned a, unsigned b) {
  return cudalab::detail::simd_sum<8, true>(a, b,
                                            [](int x, int y) { return x > y ? x - y : y - x; });
}
inline unsigned __vsadu2(unsigned a, unsigned b) {
  return cudalab::detail::simd_sum<16, false>(a, b,
                                              [](int x, int y) { return x > y ? x - y : y - x; });
}
inline unsigned __vsadu4(unsigned a, unsigned b) {
  return cudalab::detail::simd_sum<8, false>(a, b,
                                             [](int x, int y) { return x > y ? x - y : y - x; });
}

// ---- DPX intrinsics (CUDA 12): maxima and minima of 32-bit values or of two
// 16-bit lanes: of three values, of a sum and a value, and of two with 0 (_relu) ----------
namespace cudalab::detail {
inline int dpx_max(int x, int y) { return x > y ? x : y; }
inline int dpx_min(int x, int y) { return x < y ? x : y; }
inline unsigned dpx_max_u(unsigned x, unsigned y) { return x > y ? x : y; }
inline unsigned dpx_min_u(unsigned x, unsigned y) { return x < y ? x : y; }
// `f` on two signed (or unsigned) 16-bit lanes of each of a, b, c.
template <bool Signed, class F>
unsigned dpx_lanes(unsigned a, unsigned b, unsigned c, F f) {
  unsigned out = 0;
  for (int shift = 0; shift < 32; shift += 16)
    out |= (unsigned(f(simd_lane<16, Signed>(a, shift), simd_lane<16, Signed>(b, shift),
                       simd_lane<16, Signed>(c, shift))) &
            0xffffu)
           << shift;
  return out;
}
}  // namespace cudalab::detail

inline int __vimax_s32_relu(int a, int b) {
  return cudalab::detail::dpx_max(cudalab::detail::dpx_max(a, b), 0);
}
inline int __vimin_s32_relu(int a, int b) {
  return cudalab::detail::dpx_max(cudalab::detail::dpx_min(a, b), 0);
}
inline int __vimax3_s32(int a, int b, int c) {
  return cudalab::detail::dpx_max(cudalab::detail::dpx_max(a, b), c);
}
inline unsigned __vimax3_u32(unsigned a, unsigned b, unsigned c) {
  return cudalab::detail::dpx_max_u(cudalab::detail::dpx_max_u(a, b), c);
}
inline int __vimin3_s32(int a, int b, int c) {
  return cudalab::detail::dpx_min(cudalab::detail::dpx_min(a, b), c);
}
inline unsigned __vimin3_u32(unsigned a, unsigned b, unsigned c) {
  return cudalab::detail::dpx_min_u(cudalab::detail::dpx_min_u(a, b), c);
}
inline int __vimax3_s32_relu(int a, int b, int c) {
  return cudalab::detail::dpx_max(__vimax3_s32(a, b, c), 0);
}
inline int __vimin3_s32_relu(int a, int b, int c) {
  return cudalab::detail::dpx_max(__vimin3_s32(a, b, c), 0);
}
// ---- dot products of bytes (sm_61's dp4a and dp2a) ----------------------------------------
// Four 8-bit products (dp4a), or two 16-bit by 8-bit ones (dp2a: the low or
// the high two bytes of b) added to c; the sum wraps, as a 32-bit add does.
namespace cudalab::detail {
template <class T>
inline T dot_bytes(uint32_t a, uint32_t b, T c, bool is_signed, int a_bits, int b_first) {
  uint32_t sum = uint32_t(c);
  const int lanes = a_bits == 8 ? 4 : 2;
  for (int k = 0; k < lanes; ++k) {
    const uint32_t ua = (a >> (k * a_bits)) & (a_bits == 8 ? 0xffu : 0xffffu);
    const uint32_t ub = (b >> ((b_first + k) * 8)) & 0xffu;
    const int32_t sa = a_bits == 8 ? int32_t(int8_t(ua)) : int32_t(int16_t(ua));
    const int32_t sb = int32_t(int8_t(ub));
    sum += is_signed ? uint32_t(sa * sb) : ua * ub;
  }
  return T(sum);
}
}  // namespace cudalab::detail
inline int __dp4a(int a, int b, int c) {
  return cudalab::detail::dot_bytes<int>(uint32_t(a), uint32_t(b), c, true, 8, 0);
}
inline unsigned __dp4a(unsigned a, unsigned b, unsigned c) {
  return cudalab::detail::dot_bytes<unsigned>(a, b, c, false, 8, 0);
}
inline int __dp2a_lo(int a, int b, int c) {
  return cudalab::detail::dot_bytes<int>(uint32_t(a), uint32_t(b), c, true, 16, 0);
}
inline unsigned __dp2a_lo(unsigned a, unsigned b, unsigned c) {
  return cudalab::detail::dot_bytes<unsigned>(a, b, c, false, 16, 0);
}
inline int __dp2a_hi(int a, int b, int c) {
  return cudalab::detail::dot_bytes<int>(uint32_t(a), uint32_t(b), c, true, 16, 2);
}
inline unsigned __dp2a_hi(unsigned a, unsigned b, unsigned c) {
  return cudalab::detail::dot_bytes<unsigned>(a, b, c, false, 16, 2);
}
// The sum wraps, as a 32-bit add does.
inline int __viaddmax_s32(int a, int b, int c) {
  return cudalab::detail::dpx_max(int(unsigned(a) + unsigned(b)), c);
}
inline unsigned __viaddmax_u32(unsigned a, unsigned b, unsigned c) {
  return cudalab::detail::dpx_max_u(a + b, c);
}
inline int __viaddmin_s32(int a, int b, int c) {
  return cudalab::detail::dpx_min(int(unsigned(a) + unsigned(b)), c);
}
inline unsigned __viaddmin_u32(unsigned a, unsigned b, unsigned c) {
  return cudalab::detail::dpx_min_u(a + b, c);
}
inline int __viaddmax_s32_relu(int a, int b, int c) {
  return cudalab::detail::dpx_max(__viaddmax_s32(a, b, c), 0);
}
inline int __viaddmin_s32_relu(int a, int b, int c) {
  return cudalab::detail::dpx_max(__viaddmin_s32(a, b, c), 0);
}
// With the comparison's outcome: *pred is whether a was chosen (a >= b for
// max, a <= b for min).
inline int __vibmax_s32(int a, int b, bool* pred) { return (*pred = a >= b) ? a : b; }
inline unsigned __vibmax_u32(unsigned a, unsigned b, bool* pred) {
  return (*pred = a >= b) ? a : b;
}
inline int __vibmin_s32(int a, int b, bool* pred) { return (*pred = a <= b) ? a : b; }
inline unsigned __vibmin_u32(unsigned a, unsigned b, bool* pred) {
  return (*pred = a <= b) ? a : b;
}

// Two 16-bit lanes: of two operands, or of three.
#define CUDALAB_DPX_LANES2(name, is_signed, expr)                                                  \
  inline unsigned name(unsigned a, unsigned b) {                                                   \
    using cudalab::detail::dpx_max;                                                                \
    using cudalab::detail::dpx_min;                                                                \
    return cudalab::detail::dpx_lanes<is_signed>(a, b, 0, [](int x, int y, int) { return expr; }); \
  }
#define CUDALAB_DPX_LANES3(name, is_signed, expr)                                           \
  inline unsigned name(unsigned a, unsigned b, unsigned c) {                                \
    using cudalab::detail::dpx_max;                                                         \
    using cudalab::detail::dpx_min;                                                         \
    return cudalab::detail::dpx_lanes<is_signed>(a, b, c,                                   \
                                                 [](int x, int y, int z) { return expr; }); \
  }
CUDALAB_DPX_LANES2(__vimax_s16x2_relu, true, dpx_max(dpx_max(x, y), 0))
CUDALAB_DPX_LANES2(__vimin_s16x2_relu, true, dpx_max(dpx_min(x, y), 0))
CUDALAB_DPX_LANES3(__vimax3_s16x2, true, dpx_max(dpx_max(x, y), z))
CUDALAB_DPX_LANES3(__vimax3_u16x2, false, dpx_max(dpx_max(x, y), z))
CUDALAB_DPX_LANES3(__vimin3_s16x2, true, dpx_min(dpx_min(x, y), z))
CUDALAB_DPX_LANES3(__vimin3_u16x2, false, dpx_min(dpx_min(x, y), z))
CUDALAB_DPX_LANES3(__vimax3_s16x2_relu, true, dpx_max(dpx_max(dpx_max(x, y), z), 0))
CUDALAB_DPX_LANES3(__vimin3_s16x2_relu, true, dpx_max(dpx_min(dpx_min(x, y), z), 0))
// The lane sums wrap to 16 bits before the comparison.
CUDALAB_DPX_LANES3(__viaddmax_s16x2, true, dpx_max(int(short(x + y)), z))
CUDALAB_DPX_LANES3(__viaddmax_u16x2, false, dpx_max((x + y) & 0xffff, z))
CUDALAB_DPX_LANES3(__viaddmin_s16x2, true, dpx_min(int(short(x + y)), z))
CUDALAB_DPX_LANES3(__viaddmin_u16x2, false, dpx_min((x + y) & 0xffff, z))
CUDALAB_DPX_LANES3(__viaddmax_s16x2_relu, true, dpx_max(dpx_max(int(short(x + y)), z), 0))
CUDALAB_DPX_LANES3(__viaddmin_s16x2_relu, true, dpx_max(dpx_min(int(short(x + y)), z), 0))
#undef CUDALAB_DPX_LANES2
#undef CUDALAB_DPX_LANES3
// Lane by lane with the outcomes: pred_hi for the high lane, pred_lo for the low.
namespace cudalab::detail {
template <bool Signed, bool Max>
unsigned dpx_choose(unsigned a, unsigned b, bool* pred_hi, bool* pred_lo) {
  unsigned out = 0;
  for (int shift = 0; shift < 32; shift += 16) {
    const int x = simd_lane<16, Signed>(a, shift), y = simd_lane<16, Signed>(b, shift);
    const bool take_a = Max ? x >= y : x <= y;
    *(shift ? pred_hi : pred_lo) = take_a;
    out |= ((take_a ? unsigned(x) : unsigned(y)) & 0xffffu) << shift;
  }
  return out;
}
}  // namespace cudalab::detail
inline unsigned __vibmax_s16x2(unsigned a, unsigned b, bool* pred_hi, bool* pred_lo) {
  return cudalab::detail::dpx_choose<true, true>(a, b, pred_hi, pred_lo);
}
inline unsigned __vibmax_u16x2(unsigned a, unsigned b, bool* pred_hi, bool* pred_lo) {
  return cudalab::detail::dpx_choose<false, true>(a, b, pred_hi, pred_lo);
}
inline unsigned __vibmin_s16x2(unsigned a, unsigned b, bool* pred_hi, bool* pred_lo) {
  return cudalab::detail::dpx_choose<true, false>(a, b, pred_hi, pred_lo);
}
inline unsigned __vibmin_u16x2(unsigned a, unsigned b, bool* pred_hi, bool* pred_lo) {
  return cudalab::detail::dpx_choose<false, false>(a, b, pred_hi, pred_lo);
}
