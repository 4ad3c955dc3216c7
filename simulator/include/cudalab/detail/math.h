// Helpers of CUDA's math functions and conversions (cudalab/device_functions.h):
// arithmetic in a given rounding mode, reinterpretation of bits and the GPU's
// saturating float-to-integer conversion. Not for programs to call.
#pragma once

#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#if defined(__x86_64__) && defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace cudalab::detail {
// Runs f(args...) with the rounding mode `mode` (FE_TOWARDZERO, FE_UPWARD,
// ...). The arguments pass through volatile copies read after the mode is
// set, so the compiler can neither fold the arithmetic at compile time nor
// move it outside the change of mode.
template <class F, class... A>
auto with_rounding(int mode, F f, A... args) {
  const int saved = std::fegetround();
  std::fesetround(mode);
  volatile auto r = [&](auto... v) {
    return f(v...);
  }(static_cast<A>(*static_cast<volatile A*>(&args))...);
  std::fesetround(saved);
  return r;
}
// The same for one addition, subtraction, multiplication, division or
// square root. On x86-64 these are SSE instructions, whose rounding mode is
// MXCSR's: set there alone (a few cycles) rather than with fesetround, which
// also sets the x87 unit's and costs far more (interval arithmetic rounds
// every operation both ways). Library functions (fma) keep with_rounding.
#if defined(__x86_64__) && defined(__SSE2__)
template <class F, class... A>
auto with_sse_rounding(int mode, F f, A... args) {
  // FE_TONEAREST, FE_DOWNWARD, FE_UPWARD and FE_TOWARDZERO are the x87
  // control word's bits 10-11; MXCSR has the same two bits at 13-14.
  const unsigned saved = _mm_getcsr();
  _mm_setcsr((saved & ~0x6000u) | ((unsigned(mode) & 0xc00u) << 3));
  volatile auto r = [&](auto... v) {
    return f(v...);
  }(static_cast<A>(*static_cast<volatile A*>(&args))...);
  _mm_setcsr(saved);
  return r;
}
#else
template <class F, class... A>
auto with_sse_rounding(int mode, F f, A... args) {
  return with_rounding(mode, f, args...);
}
#endif

template <class To, class From>
To bit_cast(From v) {
  static_assert(sizeof(To) == sizeof(From));
  To t;
  std::memcpy(&t, &v, sizeof(t));
  return t;
}
// Float to integer as the GPU converts: NaN gives 0, values out of range
// saturate.
template <class I, class F>
I saturate_to(F x) {
  if (std::isnan(x)) return 0;
  if (x <= F(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (x >= F(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return I(x);
}
// The SIMD intrinsics' lanes (__vadd2, __vcmpgeu4, ...): a word as 32 / Bits
// lanes of Bits bits; the value of the lane at `shift`, signed or not.
template <int Bits, bool Signed>
int simd_lane(unsigned word, int shift) {
  const unsigned u = (word >> shift) & ((1u << Bits) - 1u);
  return Signed ? int(u << (32 - Bits)) >> (32 - Bits) : int(u);
}
// Each lane's result f(x, y) of a's and b's lanes, kept to Bits bits in its place.
template <int Bits, bool Signed, class F>
unsigned simd_lanes(unsigned a, unsigned b, F f) {
  unsigned out = 0;
  for (int shift = 0; shift < 32; shift += Bits)
    out |= (unsigned(f(simd_lane<Bits, Signed>(a, shift), simd_lane<Bits, Signed>(b, shift))) &
            ((1u << Bits) - 1u))
           << shift;
  return out;
}
// The sum over the lanes of f(x, y) (the sums of absolute differences).
template <int Bits, bool Signed, class F>
unsigned simd_sum(unsigned a, unsigned b, F f) {
  unsigned sum = 0;
  for (int shift = 0; shift < 32; shift += Bits)
    sum += unsigned(f(simd_lane<Bits, Signed>(a, shift), simd_lane<Bits, Signed>(b, shift)));
  return sum;
}
template <int Bits>
int simd_clamp_signed(int v) {
  constexpr int high = (1 << (Bits - 1)) - 1, low = -(1 << (Bits - 1));
  return v < low ? low : (v > high ? high : v);
}
template <int Bits>
int simd_clamp_unsigned(int v) {
  constexpr int high = (1 << Bits) - 1;
  return v < 0 ? 0 : (v > high ? high : v);
}
}  // namespace cudalab::detail
