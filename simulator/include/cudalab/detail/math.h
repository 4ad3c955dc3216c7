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
}  // namespace cudalab::detail
