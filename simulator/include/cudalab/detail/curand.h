// The generators' arithmetic behind cuRAND's device API (curand_kernel.h):
// the Philox and MRG32k3a steps, the jumps ahead (simulator/src/runtime/curand.cpp),
// and the conversions of raw draws to uniforms and normals. Uses cuRAND's
// constants (CURAND_2POW32_INV, ...), which curand_kernel.h defines before it
// includes this header. Not for programs to call.
#pragma once

#include <cmath>
#include <cstdint>

#include "cudalab/vector_types.h"

namespace cudalab::detail::curand {

// Jumps, in the runtime (simulator/src/runtime/curand.cpp).
void xorwow_skip_subsequences(uint32_t v[5], unsigned long long n);  // n * 2^67 steps
void xorwow_skip(uint32_t v[5], unsigned long long n);               // n steps
void mrg_skip(uint32_t s1[3], uint32_t s2[3], unsigned long long n,
              int kind);  // 0 steps,
                          // 1 subsequences (2^76),
                          // 2 sequences (2^127)

// Every generator keeps the second normal of a Box-Muller pair for the next
// call; a fresh state has none.
template <class State>
void forget_normals(State* s) {
  s->boxmuller_flag = s->boxmuller_flag_double = 0;
  s->boxmuller_extra = 0.f;
  s->boxmuller_extra_double = 0.;
}

// ---- Philox4_32_10 ----------------------------------------------------------------------------
inline uint4 philox_round(uint4 c, uint2 k) {
  const uint64_t p0 = uint64_t(0xD2511F53u) * c.x, p1 = uint64_t(0xCD9E8D57u) * c.z;
  return uint4{uint32_t(p1 >> 32) ^ c.y ^ k.x, uint32_t(p1), uint32_t(p0 >> 32) ^ c.w ^ k.y,
               uint32_t(p0)};
}
inline uint4 philox(uint4 c, uint2 k) {
  for (int round = 0; round < 10; ++round) {
    if (round) k.x += 0x9E3779B9u, k.y += 0xBB67AE85u;
    c = philox_round(c, k);
  }
  return c;
}
// Advances the 128-bit counter by n, carrying as cuRAND does.
inline void philox_add(uint4& ctr, unsigned long long n) {
  const unsigned int lo = static_cast<unsigned int>(n);
  unsigned int hi = static_cast<unsigned int>(n >> 32);
  ctr.x += lo;
  if (ctr.x < lo) ++hi;
  ctr.y += hi;
  if (hi <= ctr.y) return;
  if (++ctr.z) return;
  ++ctr.w;
}
inline void philox_next(uint4& ctr) {
  if (++ctr.x) return;
  if (++ctr.y) return;
  if (++ctr.z) return;
  ++ctr.w;
}

// ---- MRG32k3a -----------------------------------------------------------------------------------
constexpr uint64_t kMrgM1 = 4294967087u, kMrgM2 = 4294944443u;
// One step of the two components; returns the raw output in (0, m1].
inline double mrg_next(unsigned int s1[3], unsigned int s2[3]) {
  const uint64_t p1 = (1403580u * uint64_t(s1[1]) + 810728u * (kMrgM1 - s1[0])) % kMrgM1;
  s1[0] = s1[1];
  s1[1] = s1[2];
  s1[2] = uint32_t(p1);
  const uint64_t p2 = (527612u * uint64_t(s2[2]) + 1370589u * (kMrgM2 - s2[0])) % kMrgM2;
  s2[0] = s2[1];
  s2[1] = s2[2];
  s2[2] = uint32_t(p2);
  return p1 > p2 ? double(p1 - p2) : double(p1 + kMrgM1 - p2);
}

// ---- uniforms and normals
inline float uniform(unsigned int x) { return x * CURAND_2POW32_INV + (CURAND_2POW32_INV / 2.0f); }
inline double uniform_double_hq(unsigned int x, unsigned int y) {
  const unsigned long long z = uint64_t(x) ^ (uint64_t(y) << (53 - 32));
  return z * CURAND_2POW53_INV_DOUBLE + (CURAND_2POW53_INV_DOUBLE / 2.0);
}
// One 32-bit draw to a double in (0, 1]: cuRAND adds a whole 2^-32 here.
inline double uniform_double(unsigned int x) {
  return x * 2.3283064365386963e-10 + 2.3283064365386963e-10;
}
inline float2 box_muller(unsigned int x, unsigned int y) {
  const float u = x * CURAND_2POW32_INV + (CURAND_2POW32_INV / 2);
  const float v = y * (CURAND_2POW32_INV * 6.2831855f) + ((CURAND_2POW32_INV * 6.2831855f) / 2);
  const float s = std::sqrt(-2.0f * std::log(u));
  return float2{std::sin(v) * s, std::cos(v) * s};
}
inline double2 box_muller_double(unsigned int x0, unsigned int x1, unsigned int y0,
                                 unsigned int y1) {
  const double u = uniform_double_hq(x0, x1);
  const unsigned long long zy = uint64_t(y0) ^ (uint64_t(y1) << (53 - 32));
  const double v = zy * (CURAND_2POW53_INV_DOUBLE * 2.0) + CURAND_2POW53_INV_DOUBLE;
  const double s = std::sqrt(-2.0 * std::log(u));
  return double2{std::sin(v * CURAND_PI_DOUBLE) * s, std::cos(v * CURAND_PI_DOUBLE) * s};
}

// ---- Poisson
// A rejection method (Hoermann's PTRS) for the middle range of lambda.
template <class State>
unsigned int poisson_ptrs(State* s, double lambda) {
  const double slam = std::sqrt(lambda), loglam = std::log(lambda);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  while (true) {
    const double u = curand_uniform_double(s) - 0.5, v = curand_uniform_double(s);
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + lambda + 0.43);
    if (us >= 0.07 && v <= vr) return static_cast<unsigned int>(k);
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(invalpha) - std::log(a / (us * us) + b) <=
        -lambda + k * loglam - std::lgamma(k + 1))
      return static_cast<unsigned int>(k);
  }
}

}  // namespace cudalab::detail::curand
