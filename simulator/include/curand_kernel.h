// cudalab's CPU simulator: cuRAND's device API, written for the simulator
// (no CUDA toolkit needed). XORWOW (curandState), Philox4_32_10 and MRG32k3a
// give the same integers and uniforms as a GPU, bit for bit, for the same
// seed, subsequence and offset. Normals use the same Box-Muller transform; a
// GPU computes its sine and cosine with fast intrinsics, so they agree to a
// few units in the last place, not bit for bit. Poisson values match for
// lambda below 64 and above 4000; in between the simulator draws from the
// same distribution by its own rejection method (docs/simulator.md).
#pragma once

#include <cmath>
#include <cstdint>

#include "cuda_runtime.h"

#define CURAND_2POW32_INV (2.3283064e-10f)
#define CURAND_2POW53_INV_DOUBLE (1.1102230246251565e-16)
#define CURAND_PI_DOUBLE (3.1415926535897932)

namespace cudalab::curand {
// Jumps, in the runtime (simulator/src/curand.cpp).
void xorwow_skip_subsequences(uint32_t v[5], unsigned long long n);  // n * 2^67 steps
void xorwow_skip(uint32_t v[5], unsigned long long n);               // n steps
void mrg_skip(uint32_t s1[3], uint32_t s2[3], unsigned long long n,
              int kind);  // 0 steps,
                          // 1 subsequences (2^76),
                          // 2 sequences (2^127)
}  // namespace cudalab::curand

struct curandStateXORWOW {
  unsigned int d, v[5];
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
struct curandStatePhilox4_32_10 {
  uint4 ctr;
  uint4 output;
  uint2 key;
  unsigned int STATE;
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
struct curandStateMRG32k3a {
  unsigned int s1[3];
  unsigned int s2[3];
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
using curandStateXORWOW_t = curandStateXORWOW;
using curandState_t = curandStateXORWOW;
using curandState = curandStateXORWOW;
using curandStatePhilox4_32_10_t = curandStatePhilox4_32_10;
using curandStateMRG32k3a_t = curandStateMRG32k3a;

namespace cudalab::curand {
// Every generator keeps the second normal of a Box-Muller pair for the next
// call; a fresh state has none.
template <class State>
void forget_normals(State* s) {
  s->boxmuller_flag = s->boxmuller_flag_double = 0;
  s->boxmuller_extra = 0.f;
  s->boxmuller_extra_double = 0.;
}
}  // namespace cudalab::curand

// ---- XORWOW ---------------------------------------------------------------------------------
inline unsigned int curand(curandStateXORWOW_t* s) {
  const unsigned int t = s->v[0] ^ (s->v[0] >> 2);
  s->v[0] = s->v[1];
  s->v[1] = s->v[2];
  s->v[2] = s->v[3];
  s->v[3] = s->v[4];
  s->v[4] = (s->v[4] ^ (s->v[4] << 4)) ^ (t ^ (t << 1));
  s->d += 362437;
  return s->v[4] + s->d;
}
inline void skipahead(unsigned long long n, curandStateXORWOW_t* s) {
  cudalab::curand::xorwow_skip(s->v, n);
  s->d += static_cast<unsigned int>(n) * 362437u;
}
inline void skipahead_sequence(unsigned long long n, curandStateXORWOW_t* s) {
  // 2^67 steps each: the Weyl counter d comes back to where it was.
  cudalab::curand::xorwow_skip_subsequences(s->v, n);
}
inline void curand_init(unsigned long long seed, unsigned long long subsequence,
                        unsigned long long offset, curandStateXORWOW_t* s) {
  const unsigned int s0 = static_cast<unsigned int>(seed) ^ 0xaad26b49u;
  const unsigned int s1 = static_cast<unsigned int>(seed >> 32) ^ 0xf7dcefddu;
  const unsigned int t0 = 1099087573u * s0, t1 = 2591861531u * s1;
  s->d = 6615241u + t1 + t0;
  s->v[0] = 123456789u + t0;
  s->v[1] = 362436069u ^ t0;
  s->v[2] = 521288629u + t1;
  s->v[3] = 88675123u ^ t1;
  s->v[4] = 5783321u + t0;
  skipahead_sequence(subsequence, s);
  skipahead(offset, s);
  cudalab::curand::forget_normals(s);
}

// ---- Philox4_32_10 ----------------------------------------------------------------------------
namespace cudalab::curand {
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
inline void philox_add(curandStatePhilox4_32_10_t* s, unsigned long long n) {
  const unsigned int lo = static_cast<unsigned int>(n);
  unsigned int hi = static_cast<unsigned int>(n >> 32);
  s->ctr.x += lo;
  if (s->ctr.x < lo) ++hi;
  s->ctr.y += hi;
  if (hi <= s->ctr.y) return;
  if (++s->ctr.z) return;
  ++s->ctr.w;
}
inline void philox_next(curandStatePhilox4_32_10_t* s) {
  if (++s->ctr.x) return;
  if (++s->ctr.y) return;
  if (++s->ctr.z) return;
  ++s->ctr.w;
}
}  // namespace cudalab::curand

inline unsigned int curand(curandStatePhilox4_32_10_t* s) {
  unsigned int r;
  switch (s->STATE++) {
    case 1:
      r = s->output.y;
      break;
    case 2:
      r = s->output.z;
      break;
    case 3:
      r = s->output.w;
      break;
    default:
      r = s->output.x;
      break;
  }
  if (s->STATE == 4) {
    cudalab::curand::philox_next(s);
    s->output = cudalab::curand::philox(s->ctr, s->key);
    s->STATE = 0;
  }
  return r;
}
inline uint4 curand4(curandStatePhilox4_32_10_t* s) {
  const uint4 old = s->output;
  cudalab::curand::philox_next(s);
  s->output = cudalab::curand::philox(s->ctr, s->key);
  const uint4 o = s->output;
  switch (s->STATE) {
    case 1:
      return uint4{old.y, old.z, old.w, o.x};
    case 2:
      return uint4{old.z, old.w, o.x, o.y};
    case 3:
      return uint4{old.w, o.x, o.y, o.z};
    default:
      return old;
  }
}
inline void skipahead(unsigned long long n, curandStatePhilox4_32_10_t* s) {
  s->STATE += static_cast<unsigned int>(n & 3);
  n /= 4;
  if (s->STATE > 3) {
    n += 1;
    s->STATE -= 4;
  }
  cudalab::curand::philox_add(s, n);
  s->output = cudalab::curand::philox(s->ctr, s->key);
}
inline void skipahead_sequence(unsigned long long n, curandStatePhilox4_32_10_t* s) {
  const unsigned int lo = static_cast<unsigned int>(n);
  unsigned int hi = static_cast<unsigned int>(n >> 32);
  s->ctr.z += lo;
  if (s->ctr.z < lo) ++hi;
  s->ctr.w += hi;
  s->output = cudalab::curand::philox(s->ctr, s->key);
}
inline void curand_init(unsigned long long seed, unsigned long long subsequence,
                        unsigned long long offset, curandStatePhilox4_32_10_t* s) {
  s->ctr = uint4{0, 0, 0, 0};
  s->key = uint2{static_cast<unsigned int>(seed), static_cast<unsigned int>(seed >> 32)};
  s->STATE = 0;
  cudalab::curand::forget_normals(s);
  skipahead_sequence(subsequence, s);
  skipahead(offset, s);
}

// ---- MRG32k3a -----------------------------------------------------------------------------------
namespace cudalab::curand {
constexpr uint64_t kMrgM1 = 4294967087u, kMrgM2 = 4294944443u;
// One step; returns the raw output in (0, m1].
inline double mrg_next(curandStateMRG32k3a_t* s) {
  const uint64_t p1 = (1403580u * uint64_t(s->s1[1]) + 810728u * (kMrgM1 - s->s1[0])) % kMrgM1;
  s->s1[0] = s->s1[1];
  s->s1[1] = s->s1[2];
  s->s1[2] = uint32_t(p1);
  const uint64_t p2 = (527612u * uint64_t(s->s2[2]) + 1370589u * (kMrgM2 - s->s2[0])) % kMrgM2;
  s->s2[0] = s->s2[1];
  s->s2[1] = s->s2[2];
  s->s2[2] = uint32_t(p2);
  return p1 > p2 ? double(p1 - p2) : double(p1 + kMrgM1 - p2);
}
}  // namespace cudalab::curand

inline unsigned int curand(curandStateMRG32k3a_t* s) {
  return static_cast<unsigned int>(cudalab::curand::mrg_next(s) * 1.000000048662);
}
inline void skipahead(unsigned long long n, curandStateMRG32k3a_t* s) {
  cudalab::curand::mrg_skip(s->s1, s->s2, n, 0);
}
inline void skipahead_subsequence(unsigned long long n, curandStateMRG32k3a_t* s) {
  cudalab::curand::mrg_skip(s->s1, s->s2, n, 1);
}
inline void skipahead_sequence(unsigned long long n, curandStateMRG32k3a_t* s) {
  cudalab::curand::mrg_skip(s->s1, s->s2, n, 2);
}
inline void curand_init(unsigned long long seed, unsigned long long subsequence,
                        unsigned long long offset, curandStateMRG32k3a_t* s) {
  using cudalab::curand::kMrgM1;
  using cudalab::curand::kMrgM2;
  for (int i = 0; i < 3; ++i) s->s1[i] = s->s2[i] = 12345u;
  if (seed != 0) {
    const uint64_t x1 = static_cast<unsigned int>(seed) ^ 0x55555555u;
    const uint64_t x2 = static_cast<unsigned int>((seed >> 32) ^ 0xAAAAAAAAu);
    s->s1[0] = uint32_t(x1 * s->s1[0] % kMrgM1);
    s->s1[1] = uint32_t(x2 * s->s1[1] % kMrgM1);
    s->s1[2] = uint32_t(x1 * s->s1[2] % kMrgM1);
    s->s2[0] = uint32_t(x2 * s->s2[0] % kMrgM2);
    s->s2[1] = uint32_t(x1 * s->s2[1] % kMrgM2);
    s->s2[2] = uint32_t(x2 * s->s2[2] % kMrgM2);
  }
  skipahead_subsequence(subsequence, s);
  skipahead(offset, s);
  cudalab::curand::forget_normals(s);
}

// ---- uniforms
namespace cudalab::curand {
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
}  // namespace cudalab::curand

inline float curand_uniform(curandStateXORWOW_t* s) { return cudalab::curand::uniform(curand(s)); }
inline float curand_uniform(curandStatePhilox4_32_10_t* s) {
  return cudalab::curand::uniform(curand(s));
}
inline float curand_uniform(curandStateMRG32k3a_t* s) {
  return static_cast<float>(cudalab::curand::mrg_next(s) * 2.3283065498378288e-10);
}
inline double curand_uniform_double(curandStateXORWOW_t* s) {
  const unsigned int x = curand(s), y = curand(s);
  return cudalab::curand::uniform_double_hq(x, y);
}
inline double curand_uniform_double(curandStatePhilox4_32_10_t* s) {
  return cudalab::curand::uniform_double(curand(s));
}
inline double curand_uniform_double(curandStateMRG32k3a_t* s) {
  return cudalab::curand::mrg_next(s) * 2.3283065498378288e-10;
}
inline float4 curand_uniform4(curandStatePhilox4_32_10_t* s) {
  const uint4 x = curand4(s);
  using cudalab::curand::uniform;
  return float4{uniform(x.x), uniform(x.y), uniform(x.z), uniform(x.w)};
}
inline double2 curand_uniform2_double(curandStatePhilox4_32_10_t* s) {
  const uint4 x = curand4(s);
  return double2{cudalab::curand::uniform_double_hq(x.x, x.y),
                 cudalab::curand::uniform_double_hq(x.z, x.w)};
}

// ---- normals (Box-Muller; the second value of each pair is kept for the next call)
template <class State>
float curand_normal(State* s) {
  if (s->boxmuller_flag != 1) {
    float2 v;
    if constexpr (std::is_same_v<State, curandStateMRG32k3a_t>) {
      const float x = curand_uniform(s);
      const float y = curand_uniform(s) * 6.2831855f;
      const float r = std::sqrt(-2.0f * std::log(x));
      v = float2{std::sin(y) * r, std::cos(y) * r};
    } else {
      const unsigned int x = curand(s), y = curand(s);
      v = cudalab::curand::box_muller(x, y);
    }
    s->boxmuller_extra = v.y;
    s->boxmuller_flag = 1;
    return v.x;
  }
  s->boxmuller_flag = 0;
  return s->boxmuller_extra;
}
template <class State>
double curand_normal_double(State* s) {
  if (s->boxmuller_flag_double != 1) {
    double2 v;
    if constexpr (std::is_same_v<State, curandStateMRG32k3a_t>) {
      const double x = curand_uniform_double(s);
      const double y = curand_uniform_double(s) * 2.0;
      const double r = std::sqrt(-2.0 * std::log(x));
      v = double2{std::sin(y * CURAND_PI_DOUBLE) * r, std::cos(y * CURAND_PI_DOUBLE) * r};
    } else if constexpr (std::is_same_v<State, curandStatePhilox4_32_10_t>) {
      const uint4 x = curand4(s);
      v = cudalab::curand::box_muller_double(x.x, x.y, x.z, x.w);
    } else {
      const unsigned int x0 = curand(s), x1 = curand(s), y0 = curand(s), y1 = curand(s);
      v = cudalab::curand::box_muller_double(x0, x1, y0, y1);
    }
    s->boxmuller_extra_double = v.y;
    s->boxmuller_flag_double = 1;
    return v.x;
  }
  s->boxmuller_flag_double = 0;
  return s->boxmuller_extra_double;
}
inline float2 curand_normal2(curandStateXORWOW_t* s) {
  const unsigned int x = curand(s), y = curand(s);
  return cudalab::curand::box_muller(x, y);
}
inline float2 curand_normal2(curandStatePhilox4_32_10_t* s) {
  const unsigned int x = curand(s), y = curand(s);
  return cudalab::curand::box_muller(x, y);
}
inline float4 curand_normal4(curandStatePhilox4_32_10_t* s) {
  const uint4 x = curand4(s);
  const float2 a = cudalab::curand::box_muller(x.x, x.y), b = cudalab::curand::box_muller(x.z, x.w);
  return float4{a.x, a.y, b.x, b.y};
}
inline double2 curand_normal2_double(curandStateXORWOW_t* s) {
  const unsigned int x0 = curand(s), x1 = curand(s), y0 = curand(s), y1 = curand(s);
  return cudalab::curand::box_muller_double(x0, x1, y0, y1);
}
inline double2 curand_normal2_double(curandStatePhilox4_32_10_t* s) {
  const uint4 x = curand4(s);
  return cudalab::curand::box_muller_double(x.x, x.y, x.z, x.w);
}
template <class State>
float curand_log_normal(State* s, float mean, float stddev) {
  return std::exp(mean + stddev * curand_normal(s));
}
template <class State>
double curand_log_normal_double(State* s, double mean, double stddev) {
  return std::exp(mean + stddev * curand_normal_double(s));
}
inline float2 curand_log_normal2(curandStateXORWOW_t* s, float mean, float stddev) {
  const float2 v = curand_normal2(s);
  return float2{std::exp(mean + stddev * v.x), std::exp(mean + stddev * v.y)};
}

// ---- Poisson -----------------------------------------------------------------------------------
namespace cudalab::curand {
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
}  // namespace cudalab::curand

template <class State>
unsigned int curand_poisson(State* s, double lambda) {
  if (lambda < 64) {
    // Knuth's method, in float as cuRAND computes it.
    unsigned int k = 0;
    float p = std::exp(static_cast<float>(lambda));
    do {
      ++k;
      p *= curand_uniform(s);
    } while (p > 1.0);
    return k - 1;
  }
  if (lambda > 4000)
    return static_cast<unsigned int>(std::sqrt(lambda) * curand_normal_double(s) + lambda + 0.5);
  return cudalab::curand::poisson_ptrs(s, lambda);
}
