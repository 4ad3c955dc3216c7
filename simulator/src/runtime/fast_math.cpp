// The fast intrinsics (__sinf, __expf, ..., and rsqrtf, __fdividef;
// cudalab/device_functions.h),
// computed at full precision as the simulator's other math is, but out of
// line under names of their own: the estimate of a block's GPU
// instructions (traces/float_ops.cpp) counts a call of one as the special
// function unit's couple of instructions, where sinf takes tens.
#include <cmath>

extern "C" {
float cudalab_fast_expf(float x) noexcept { return std::exp(x); }
float cudalab_fast_exp10f(float x) noexcept { return std::pow(10.0f, x); }
float cudalab_fast_logf(float x) noexcept { return std::log(x); }
float cudalab_fast_log2f(float x) noexcept { return std::log2(x); }
float cudalab_fast_log10f(float x) noexcept { return std::log10(x); }
float cudalab_fast_powf(float a, float b) noexcept { return std::pow(a, b); }
float cudalab_fast_sinf(float x) noexcept { return std::sin(x); }
float cudalab_fast_cosf(float x) noexcept { return std::cos(x); }
float cudalab_fast_tanf(float x) noexcept { return std::tan(x); }
// A reciprocal square root and a fast division: the special function
// unit's reciprocal (and a multiply), where 1 / sqrtf or a / b would count
// a GPU's full division and root.
float cudalab_fast_rsqrtf(float x) noexcept { return 1.0f / std::sqrt(x); }
float cudalab_fast_fdividef(float a, float b) noexcept { return a / b; }
}
