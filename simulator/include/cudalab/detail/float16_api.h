// What cuda_fp16.h and cuda_bf16.h share: CUDA gives half and bfloat16 the
// same functions under the same names (__hadd, __hfma2, hexp, __hbgt2, ...),
// so each header defines its types and conversions and then expands these
// two macros for them. A 16-bit type T has its bits in `__x`, converts to
// and from float, and rounds a float to nearest even; T2 holds two in x, y.
// Arithmetic is done in float (or double, for a fused multiply-add) and
// rounded once. Not for programs to use.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace cudalab::detail {
template <class T>
T float16_of_bits(unsigned short bits) {
  T t;
  t.__x = bits;
  return t;
}
// A double rounded to float toward odd: rounding that float to 16 bits then
// gives what rounding the double directly would (float has more than twice
// the 16-bit formats' precision, plus two bits).
inline float rounded_to_odd(double exact) {
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
// p + c rounded to float toward odd, for a fused multiply-add whose product
// p is exact in double: the sum's rounding error in double is kept too, so
// a tiny c still breaks a tie as it does on a GPU.
inline float sum_rounded_to_odd(double p, double c) {
  const double s = p + c;
  if (!std::isfinite(s)) return float(s);
  const double back = s - p, error = (p - (s - back)) + (c - back);  // s + error == p + c
  float f = float(s);
  const double over = (double(f) - s) - error;  // f - (p + c), its sign exact
  if (over != 0 && std::isfinite(f)) {
    // Toward zero from the exact sum, then odd.
    if ((over > 0) == (f > 0)) f = std::nextafter(f, 0.0f);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits |= 1u;
    std::memcpy(&f, &bits, 4);
  }
  return f;
}
// A NaN gives the other, two give the format's NaN, and +0 is greater than
// -0, as on a GPU.
template <class T>
T float16_max_min(T a, T b, bool max, unsigned short nan_bits) {
  const bool a_nan = std::isnan(float(a)), b_nan = std::isnan(float(b));
  if (a_nan || b_nan) return a_nan && b_nan ? float16_of_bits<T>(nan_bits) : a_nan ? b : a;
  if (((a.__x | b.__x) & 0x7fffu) == 0)  // two zeros: the sign bits decide
    return float16_of_bits<T>(
        (a.__x & b.__x) == 0x8000u || (!max && (a.__x | b.__x) == 0x8000u) ? 0x8000 : 0);
  return (float(a) < float(b)) == max ? b : a;
}
// Atomic adds, through a compare-and-swap of the word that holds them.
template <class T>
T float16_atomic_add(T* address, T value) {
  unsigned short* bits = reinterpret_cast<unsigned short*>(address);
  unsigned short old = *bits, assumed;
  do {
    assumed = old;
    const T sum = T(float(float16_of_bits<T>(assumed)) + float(value));
    old = atomicCAS(bits, assumed, sum.__x);
  } while (old != assumed);
  return float16_of_bits<T>(old);
}
template <class T2>
T2 float16_pair_atomic_add(T2* address, T2 value) {
  unsigned int* word = reinterpret_cast<unsigned int*>(address);
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    T2 cur;
    std::memcpy(static_cast<void*>(&cur), &assumed, 4);
    cur.x = float(cur.x) + float(value.x);
    cur.y = float(cur.y) + float(value.y);
    unsigned int next;
    std::memcpy(&next, &cur, 4);
    old = atomicCAS(word, assumed, next);
  } while (old != assumed);
  T2 result;
  std::memcpy(static_cast<void*>(&result), &old, 4);
  return result;
}
}  // namespace cudalab::detail

// The functions of one value of 16-bit type T whose NaN is `nan_bits` and
// whose infinity's magnitude is `inf_bits`.
#define CUDALAB_FLOAT16_SCALAR_API(T, nan_bits, inf_bits)                                       \
  inline T __hadd(T a, T b) { return T(float(a) + float(b)); }                                  \
  inline T __hsub(T a, T b) { return T(float(a) - float(b)); }                                  \
  inline T __hmul(T a, T b) { return T(float(a) * float(b)); }                                  \
  inline T __hdiv(T a, T b) { return T(float(a) / float(b)); }                                  \
  /* Rounded once, as a GPU's fused multiply-add: the product is exact in double. */            \
  inline T __hfma(T a, T b, T c) {                                                              \
    return T(cudalab::detail::sum_rounded_to_odd(double(float(a)) * double(float(b)),           \
                                                 double(float(c))));                            \
  }                                                                                             \
  /* A GPU's neg and abs give a NaN as its one NaN. */                                          \
  inline T __hneg(T a) {                                                                        \
    return cudalab::detail::float16_of_bits<T>(                                                 \
        (a.__x & 0x7fffu) > inf_bits ? nan_bits : (unsigned short)(a.__x ^ 0x8000u));           \
  }                                                                                             \
  inline T __habs(T a) {                                                                        \
    return cudalab::detail::float16_of_bits<T>(                                                 \
        (a.__x & 0x7fffu) > inf_bits ? nan_bits : (unsigned short)(a.__x & 0x7fffu));           \
  }                                                                                             \
  inline T __hmax(T a, T b) { return cudalab::detail::float16_max_min(a, b, true, nan_bits); }  \
  inline T __hmin(T a, T b) { return cudalab::detail::float16_max_min(a, b, false, nan_bits); } \
  inline bool __hisnan(T a) { return std::isnan(float(a)); }                                    \
  inline int __hisinf(T a) { return std::isinf(float(a)) ? (float(a) > 0 ? 1 : -1) : 0; }       \
  /* The canonical NaN when either is one (the plain ones give the other). */                   \
  inline T __hmax_nan(T a, T b) {                                                               \
    return __hisnan(a) || __hisnan(b) ? cudalab::detail::float16_of_bits<T>(nan_bits)           \
                                      : __hmax(a, b);                                           \
  }                                                                                             \
  inline T __hmin_nan(T a, T b) {                                                               \
    return __hisnan(a) || __hisnan(b) ? cudalab::detail::float16_of_bits<T>(nan_bits)           \
                                      : __hmin(a, b);                                           \
  }                                                                                             \
  /* _sat: clamped to [0, 1] (NaN gives 0). */                                                  \
  inline T __hadd_sat(T a, T b) { return T(fminf(fmaxf(float(__hadd(a, b)), 0.0f), 1.0f)); }    \
  inline T __hsub_sat(T a, T b) { return T(fminf(fmaxf(float(__hsub(a, b)), 0.0f), 1.0f)); }    \
  inline T __hmul_sat(T a, T b) { return T(fminf(fmaxf(float(__hmul(a, b)), 0.0f), 1.0f)); }    \
  inline T __hfma_sat(T a, T b, T c) {                                                          \
    return T(fminf(fmaxf(float(__hfma(a, b, c)), 0.0f), 1.0f));                                 \
  }                                                                                             \
  /* _rn: the same, never contracted with another operation. */                                 \
  inline T __hadd_rn(T a, T b) { return __hadd(a, b); }                                         \
  inline T __hsub_rn(T a, T b) { return __hsub(a, b); }                                         \
  inline T __hmul_rn(T a, T b) { return __hmul(a, b); }                                         \
  /* Ordered (false when either is NaN, as a GPU's setp); u: unordered. */                      \
  inline bool __heq(T a, T b) { return float(a) == float(b); }                                  \
  inline bool __hne(T a, T b) { return float(a) < float(b) || float(a) > float(b); }            \
  inline bool __hlt(T a, T b) { return float(a) < float(b); }                                   \
  inline bool __hle(T a, T b) { return float(a) <= float(b); }                                  \
  inline bool __hgt(T a, T b) { return float(a) > float(b); }                                   \
  inline bool __hge(T a, T b) { return float(a) >= float(b); }                                  \
  inline bool __hequ(T a, T b) { return !__hne(a, b); }                                         \
  inline bool __hneu(T a, T b) { return !__heq(a, b); }                                         \
  inline bool __hltu(T a, T b) { return !__hge(a, b); }                                         \
  inline bool __hleu(T a, T b) { return !__hgt(a, b); }                                         \
  inline bool __hgtu(T a, T b) { return !__hle(a, b); }                                         \
  inline bool __hgeu(T a, T b) { return !__hlt(a, b); }                                         \
  /* Math functions, computed in float and rounded. */                                          \
  inline T hsqrt(T a) { return T(std::sqrt(float(a))); }                                        \
  inline T hrsqrt(T a) { return T(1.0f / std::sqrt(float(a))); }                                \
  inline T hrcp(T a) { return T(1.0f / float(a)); }                                             \
  inline T hexp(T a) { return T(std::exp(float(a))); }                                          \
  inline T hexp2(T a) { return T(std::exp2(float(a))); }                                        \
  inline T hexp10(T a) { return T(std::pow(10.0f, float(a))); }                                 \
  inline T hlog(T a) { return T(std::log(float(a))); }                                          \
  inline T hlog2(T a) { return T(std::log2(float(a))); }                                        \
  inline T hlog10(T a) { return T(std::log10(float(a))); }                                      \
  inline T hsin(T a) { return T(std::sin(float(a))); }                                          \
  inline T hcos(T a) { return T(std::cos(float(a))); }                                          \
  inline T htanh(T a) { return T(std::tanh(float(a))); }                                        \
  /* Correctly rounded: within the error a GPU's approximation may have. */                     \
  inline T htanh_approx(T a) { return htanh(a); }                                               \
  inline T hfloor(T a) { return T(std::floor(float(a))); }                                      \
  inline T hceil(T a) { return T(std::ceil(float(a))); }                                        \
  inline T htrunc(T a) { return T(std::trunc(float(a))); }                                      \
  inline T hrint(T a) { return T(std::nearbyint(float(a))); }                                   \
  inline T operator+(T a, T b) { return __hadd(a, b); }                                         \
  inline T operator-(T a, T b) { return __hsub(a, b); }                                         \
  inline T operator*(T a, T b) { return __hmul(a, b); }                                         \
  inline T operator/(T a, T b) { return __hdiv(a, b); }                                         \
  inline T operator-(T a) { return __hneg(a); }                                                 \
  inline T operator+(T a) { return a; }                                                         \
  inline T& operator++(T& a) { return a += T(1.0f); }                                           \
  inline T& operator--(T& a) { return a -= T(1.0f); }                                           \
  inline T operator++(T& a, int) {                                                              \
    const T old = a;                                                                            \
    a += T(1.0f);                                                                               \
    return old;                                                                                 \
  }                                                                                             \
  inline T operator--(T& a, int) {                                                              \
    const T old = a;                                                                            \
    a -= T(1.0f);                                                                               \
    return old;                                                                                 \
  }                                                                                             \
  inline bool operator==(T a, T b) { return __heq(a, b); }                                      \
  inline bool operator!=(T a, T b) { return __hneu(a, b); }                                     \
  inline bool operator<(T a, T b) { return __hlt(a, b); }                                       \
  inline bool operator<=(T a, T b) { return __hle(a, b); }                                      \
  inline bool operator>(T a, T b) { return __hgt(a, b); }                                       \
  inline bool operator>=(T a, T b) { return __hge(a, b); }                                      \
  inline T atomicAdd(T* address, T value) {                                                     \
    return cudalab::detail::float16_atomic_add(address, value);                                 \
  }

// The functions of pairs T2 of T, lane by lane: arithmetic, math functions,
// comparisons giving 1.0 or 0.0 per lane (the __hb ones: whether both hold).
#define CUDALAB_FLOAT16_PAIR_API(T2, T)                                                          \
  inline T2 __hadd2(T2 a, T2 b) { return {__hadd(a.x, b.x), __hadd(a.y, b.y)}; }                 \
  inline T2 __hsub2(T2 a, T2 b) { return {__hsub(a.x, b.x), __hsub(a.y, b.y)}; }                 \
  inline T2 __hmul2(T2 a, T2 b) { return {__hmul(a.x, b.x), __hmul(a.y, b.y)}; }                 \
  inline T2 __h2div(T2 a, T2 b) { return {__hdiv(a.x, b.x), __hdiv(a.y, b.y)}; }                 \
  inline T2 __hmax2(T2 a, T2 b) { return {__hmax(a.x, b.x), __hmax(a.y, b.y)}; }                 \
  inline T2 __hmin2(T2 a, T2 b) { return {__hmin(a.x, b.x), __hmin(a.y, b.y)}; }                 \
  inline T2 __hfma2(T2 a, T2 b, T2 c) { return {__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)}; } \
  inline T2 __hadd2_sat(T2 a, T2 b) { return {__hadd_sat(a.x, b.x), __hadd_sat(a.y, b.y)}; }     \
  inline T2 __hsub2_sat(T2 a, T2 b) { return {__hsub_sat(a.x, b.x), __hsub_sat(a.y, b.y)}; }     \
  inline T2 __hmul2_sat(T2 a, T2 b) { return {__hmul_sat(a.x, b.x), __hmul_sat(a.y, b.y)}; }     \
  inline T2 __hfma2_sat(T2 a, T2 b, T2 c) {                                                      \
    return {__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y)};                               \
  }                                                                                              \
  inline T2 __hmax2_nan(T2 a, T2 b) { return {__hmax_nan(a.x, b.x), __hmax_nan(a.y, b.y)}; }     \
  inline T2 __hmin2_nan(T2 a, T2 b) { return {__hmin_nan(a.x, b.x), __hmin_nan(a.y, b.y)}; }     \
  CUDALAB_FLOAT16_PAIR_MAP(T2, __hneg2, __hneg)                                                  \
  CUDALAB_FLOAT16_PAIR_MAP(T2, __habs2, __habs)                                                  \
  CUDALAB_FLOAT16_PAIR_MAP(T2, h2sqrt, hsqrt)                                                    \
  CUDALAB_FLOAT16_PAIR_MAP(T2, h2rsqrt, hrsqrt)                                                  \
  CUDALAB_FLOAT16_PAIR_MAP(T2, h2rcp, hrcp)                                                      \
  CUDALAB_FLOAT16_PAIR_MAP(T2, h2exp, hexp)                                                      \
  CUDALAB_FLOAT16_PAIR_MAP(T2, h2exp2, hexp2)                                                    \
  CUDALAB_FLOAT16_PAIR_MAP(T2, h2exp10, hexp10)                                                  \
  CUDALAB_FLOAT16_PAIR_MAP(T2, h2log, hlog)                                                      \
  CUDALAB_FLOAT16_PAIR_MAP(T2, h2log2, hlog2)                                                    \
  CUDALAB_FLOAT16_PAIR_MAP(T2, h2log10, hlog10)                                                  \
  CUDALAB_FLOAT16_PAIR_MAP(T2, h2sin, hsin)                                                      \
  CUDALAB_FLOAT16_PAIR_MAP(T2, h2cos, hcos)                                                      \
  CUDALAB_FLOAT16_PAIR_MAP(T2, h2tanh, htanh)                                                    \
  CUDALAB_FLOAT16_PAIR_MAP(T2, h2tanh_approx, htanh_approx)                                      \
  CUDALAB_FLOAT16_PAIR_MAP(T2, h2floor, hfloor)                                                  \
  CUDALAB_FLOAT16_PAIR_MAP(T2, h2ceil, hceil)                                                    \
  CUDALAB_FLOAT16_PAIR_MAP(T2, h2trunc, htrunc)                                                  \
  CUDALAB_FLOAT16_PAIR_MAP(T2, h2rint, hrint)                                                    \
  CUDALAB_FLOAT16_PAIR_COMPARE(T2, T, __heq2, __hbeq2, __heq)                                    \
  CUDALAB_FLOAT16_PAIR_COMPARE(T2, T, __hne2, __hbne2, __hne)                                    \
  CUDALAB_FLOAT16_PAIR_COMPARE(T2, T, __hlt2, __hblt2, __hlt)                                    \
  CUDALAB_FLOAT16_PAIR_COMPARE(T2, T, __hle2, __hble2, __hle)                                    \
  CUDALAB_FLOAT16_PAIR_COMPARE(T2, T, __hgt2, __hbgt2, __hgt)                                    \
  CUDALAB_FLOAT16_PAIR_COMPARE(T2, T, __hge2, __hbge2, __hge)                                    \
  CUDALAB_FLOAT16_PAIR_COMPARE(T2, T, __hequ2, __hbequ2, __hequ)                                 \
  CUDALAB_FLOAT16_PAIR_COMPARE(T2, T, __hneu2, __hbneu2, __hneu)                                 \
  CUDALAB_FLOAT16_PAIR_COMPARE(T2, T, __hltu2, __hbltu2, __hltu)                                 \
  CUDALAB_FLOAT16_PAIR_COMPARE(T2, T, __hleu2, __hbleu2, __hleu)                                 \
  CUDALAB_FLOAT16_PAIR_COMPARE(T2, T, __hgtu2, __hbgtu2, __hgtu)                                 \
  CUDALAB_FLOAT16_PAIR_COMPARE(T2, T, __hgeu2, __hbgeu2, __hgeu)                                 \
  inline T2 __hisnan2(T2 a) {                                                                    \
    return {T(__hisnan(a.x) ? 1.0f : 0.0f), T(__hisnan(a.y) ? 1.0f : 0.0f)};                     \
  }                                                                                              \
  inline T2 operator+(T2 a, T2 b) { return __hadd2(a, b); }                                      \
  inline T2 operator-(T2 a, T2 b) { return __hsub2(a, b); }                                      \
  inline T2 operator*(T2 a, T2 b) { return __hmul2(a, b); }                                      \
  inline T2 operator/(T2 a, T2 b) { return __h2div(a, b); }                                      \
  inline T2 operator-(T2 a) { return __hneg2(a); }                                               \
  inline T2 operator+(T2 a) { return a; }                                                        \
  inline bool operator==(T2 a, T2 b) { return __hbeq2(a, b); }                                   \
  inline bool operator!=(T2 a, T2 b) { return __hbneu2(a, b); }                                  \
  inline bool operator<(T2 a, T2 b) { return __hblt2(a, b); }                                    \
  inline bool operator<=(T2 a, T2 b) { return __hble2(a, b); }                                   \
  inline bool operator>(T2 a, T2 b) { return __hbgt2(a, b); }                                    \
  inline bool operator>=(T2 a, T2 b) { return __hbge2(a, b); }                                   \
  inline T2 atomicAdd(T2* address, T2 value) {                                                   \
    return cudalab::detail::float16_pair_atomic_add(address, value);                             \
  }
#define CUDALAB_FLOAT16_PAIR_MAP(T2, name, f) \
  inline T2 name(T2 a) { return {f(a.x), f(a.y)}; }
#define CUDALAB_FLOAT16_PAIR_COMPARE(T2, T, name, both, f)               \
  inline T2 name(T2 a, T2 b) {                                           \
    return {T(f(a.x, b.x) ? 1.0f : 0.0f), T(f(a.y, b.y) ? 1.0f : 0.0f)}; \
  }                                                                      \
  inline bool both(T2 a, T2 b) { return f(a.x, b.x) && f(a.y, b.y); }
