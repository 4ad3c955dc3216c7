// Conversions between float and the bits of an IEEE binary16 value, in each
// of the GPU's rounding modes: what __half (cuda_fp16.h) is built on. Not for
// programs to call. A NaN becomes the one NaN a GPU's conversions give
// (0x7fff as a half, 0x7fffffff as a float), so every half operation that
// results in NaN gives 0x7fff, as on an H100.
#pragma once

#include <cstdint>
#include <cstring>

namespace cudalab::detail {

inline unsigned short float_to_half_bits(float f, int mode = 0 /* 0 rn, 1 rz, 2 ru, 3 rd */) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return 0x7fffu;  // a NaN: the GPU's one half NaN
  if (abs == 0x7f800000u) return static_cast<unsigned short>(sign | 0x7c00u);
  const bool negative = sign != 0;
  auto round_up = [&](uint32_t kept, uint32_t rest, uint32_t half) {
    switch (mode) {
      case 1:
        return false;
      case 2:
        return !negative && rest != 0;
      case 3:
        return negative && rest != 0;
      default:
        return rest > half || (rest == half && (kept & 1u));
    }
  };
  const int exp = int(abs >> 23) - 127;
  if (exp > 15) {  // too large: infinity, or the largest finite for rz and the other sign
    const bool to_inf = mode == 0 || (mode == 2 && !negative) || (mode == 3 && negative);
    return static_cast<unsigned short>(sign | (to_inf ? 0x7c00u : 0x7bffu));
  }
  uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
  if (exp < -14) {  // subnormal half (or zero)
    const int shift = -14 - exp + 13;
    if (shift > 24) {
      const uint32_t r = round_up(0, abs ? 1 : 0, 1u << 30) ? 1u : 0u;
      return static_cast<unsigned short>(sign | r);
    }
    const uint32_t kept = mantissa >> shift, rest = mantissa & ((1u << shift) - 1);
    const uint32_t h = kept + (round_up(kept, rest, 1u << (shift - 1)) ? 1 : 0);
    return static_cast<unsigned short>(sign | h);
  }
  const uint32_t kept = mantissa >> 13, rest = mantissa & 0x1fffu;
  uint32_t h = (uint32_t(exp + 15) << 10) | (kept & 0x3ffu);
  if (round_up(kept, rest, 0x1000u)) ++h;  // may carry into the exponent, even to infinity
  return static_cast<unsigned short>(sign | h);
}

inline float half_bits_to_float(unsigned short h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {  // subnormal: normalize
      int e = -1;
      uint32_t m = mant;
      do {
        ++e;
        m <<= 1;
      } while (!(m & 0x400u));
      x = sign | (uint32_t(127 - 15 - e) << 23) | ((m & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    x = mant ? 0x7fffffffu : sign | 0x7f800000u;  // a NaN: the GPU's one float NaN
  } else {
    x = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

}  // namespace cudalab::detail
