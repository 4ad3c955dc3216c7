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
#include "curand.h"

#define CURAND_2POW32_INV (2.3283064e-10f)
#define CURAND_2POW53_INV_DOUBLE (1.1102230246251565e-16)
#define CURAND_PI_DOUBLE (3.1415926535897932)

// The generators' arithmetic (after the constants above, which it uses).
#include "cudalab/detail/curand.h"

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
  cudalab::detail::curand::xorwow_skip(s->v, n);
  s->d += static_cast<unsigned int>(n) * 362437u;
}
inline void skipahead_sequence(unsigned long long n, curandStateXORWOW_t* s) {
  // 2^67 steps each: the Weyl counter d comes back to where it was.
  cudalab::detail::curand::xorwow_skip_subsequences(s->v, n);
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
  cudalab::detail::curand::forget_normals(s);
}

// ---- Philox4_32_10 ----------------------------------------------------------------------------
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
    cudalab::detail::curand::philox_next(s->ctr);
    s->output = cudalab::detail::curand::philox(s->ctr, s->key);
    s->STATE = 0;
  }
  return r;
}
inline uint4 curand4(curandStatePhilox4_32_10_t* s) {
  const uint4 old = s->output;
  cudalab::detail::curand::philox_next(s->ctr);
  s->output = cudalab::detail::curand::philox(s->ctr, s->key);
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
  cudalab::detail::curand::philox_add(s->ctr, n);
  s->output = cudalab::detail::curand::philox(s->ctr, s->key);
}
inline void skipahead_sequence(unsigned long long n, curandStatePhilox4_32_10_t* s) {
  const unsigned int lo = static_cast<unsigned int>(n);
  unsigned int hi = static_cast<unsigned int>(n >> 32);
  s->ctr.z += lo;
  if (s->ctr.z < lo) ++hi;
  s->ctr.w += hi;
  s->output = cudalab::detail::curand::philox(s->ctr, s->key);
}
inline void curand_init(unsigned long long seed, unsigned long long subsequence,
                        unsigned long long offset, curandStatePhilox4_32_10_t* s) {
  s->ctr = uint4{0, 0, 0, 0};
  s->key = uint2{static_cast<unsigned int>(seed), static_cast<unsigned int>(seed >> 32)};
  s->STATE = 0;
  cudalab::detail::curand::forget_normals(s);
  skipahead_sequence(subsequence, s);
  skipahead(offset, s);
}

// ---- MRG32k3a -----------------------------------------------------------------------------------
inline unsigned int curand(curandStateMRG32k3a_t* s) {
  return static_cast<unsigned int>(cudalab::detail::curand::mrg_next(s->s1, s->s2) *
                                   1.000000048662);
}
inline void skipahead(unsigned long long n, curandStateMRG32k3a_t* s) {
  cudalab::detail::curand::mrg_skip(s->s1, s->s2, n, 0);
}
inline void skipahead_subsequence(unsigned long long n, curandStateMRG32k3a_t* s) {
  cudalab::detail::curand::mrg_skip(s->s1, s->s2, n, 1);
}
inline void skipahead_sequence(unsigned long long n, curandStateMRG32k3a_t* s) {
  cudalab::detail::curand::mrg_skip(s->s1, s->s2, n, 2);
}
inline void curand_init(unsigned long long seed, unsigned long long subsequence,
                        unsigned long long offset, curandStateMRG32k3a_t* s) {
  using cudalab::detail::curand::kMrgM1;
  using cudalab::detail::curand::kMrgM2;
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
  cudalab::detail::curand::forget_normals(s);
}

// ---- Sobol (quasirandom) ---------------------------------------------------------------------
// A state walks the points of one dimension in Gray-code order: point i is
// the XOR of the direction vectors whose bit is set in i ^ (i >> 1), then
// XORed with the scramble constant (zero unscrambled). curand() gives point
// i and steps to i + 1 by one XOR. Vectors come from
// curandGetDirectionVectors32/64.
struct curandStateSobol32 {
  unsigned int i, x, c;
  unsigned int direction_vectors[32];
};
struct curandStateScrambledSobol32 {
  unsigned int i, x, c;
  unsigned int direction_vectors[32];
};
struct curandStateSobol64 {
  unsigned long long i, x, c;
  unsigned long long direction_vectors[64];
};
struct curandStateScrambledSobol64 {
  unsigned long long i, x, c;
  unsigned long long direction_vectors[64];
};
using curandStateSobol32_t = curandStateSobol32;
using curandStateScrambledSobol32_t = curandStateScrambledSobol32;
using curandStateSobol64_t = curandStateSobol64;
using curandStateScrambledSobol64_t = curandStateScrambledSobol64;

namespace cudalab::detail::curand {
// Says once on stderr that a Sobol state was started from zero vectors
// (dimensions past the simulator's table, or vectors never copied).
void zero_direction_vectors();
template <class State>
inline constexpr bool is_sobol = std::is_same_v<State, curandStateSobol32_t> ||
                                 std::is_same_v<State, curandStateScrambledSobol32_t> ||
                                 std::is_same_v<State, curandStateSobol64_t> ||
                                 std::is_same_v<State, curandStateScrambledSobol64_t>;
template <class S>
using if_sobol = std::enable_if_t<is_sobol<S>, int>;
template <class S>
using if_not_sobol = std::enable_if_t<!is_sobol<S>, int>;
// A point's upper 32 bits (all of a 32-bit one).
inline unsigned int upper_word(unsigned int x) { return x; }
inline unsigned int upper_word(unsigned long long x) { return static_cast<unsigned int>(x >> 32); }
template <class State>
void sobol_seek(State* s) {
  const auto gray = s->i ^ (s->i >> 1);
  auto x = s->c;
  for (unsigned k = 0; k < sizeof(gray) * 8; ++k)
    if ((gray >> k) & 1) x ^= s->direction_vectors[k];
  s->x = x;
}
template <class State, class Word, class Offset>
void sobol_init(const Word* vectors, Word scramble, Offset offset, State* s) {
  for (unsigned k = 0; k < sizeof(Word) * 8; ++k) s->direction_vectors[k] = vectors[k];
  if (vectors[0] == 0) zero_direction_vectors();
  s->c = scramble;
  s->i = offset;
  sobol_seek(s);
}
template <class State>
auto sobol_next(State* s) {
  const auto point = s->x;
  s->x ^= s->direction_vectors[__builtin_ctzll(~static_cast<unsigned long long>(s->i))];
  ++s->i;
  return point;
}
// The inverse of the normal distribution's CDF at the point's uniform
// (cuRAND's normals from Sobol points: one point, one normal).
inline float normal_icdf(unsigned int x) {
  float sign = -1.4142135f;
  if (x >= 0x80000000u) {
    x = 0xffffffffu - x;
    sign = -sign;
  }
  const float p = x * CURAND_2POW32_INV + (CURAND_2POW32_INV / 2.0f);
  return sign * erfcinvf(2.0f * p);
}
// The same in double, from a 32- or a 64-bit point.
template <class U>
double normal_icdf_double(U x) {
  constexpr double step = sizeof(U) == 8 ? 0x1p-64 : 0x1p-32;
  double sign = -1.4142135623730951;
  if (x >= U(1) << (sizeof(U) * 8 - 1)) {
    x = U(~U(0) - x);
    sign = -sign;
  }
  const double p = x * step + step / 2;
  return sign * erfcinv(2.0 * p);
}
inline double uniform_double64(unsigned long long x) {
  return (x >> 11) * CURAND_2POW53_INV_DOUBLE + (CURAND_2POW53_INV_DOUBLE / 2.0);
}
}  // namespace cudalab::detail::curand

inline void curand_init(curandDirectionVectors32_t direction_vectors, unsigned int offset,
                        curandStateSobol32_t* s) {
  cudalab::detail::curand::sobol_init(direction_vectors, 0u, offset, s);
}
inline void curand_init(curandDirectionVectors32_t direction_vectors, unsigned int scramble_c,
                        unsigned int offset, curandStateScrambledSobol32_t* s) {
  cudalab::detail::curand::sobol_init(direction_vectors, scramble_c, offset, s);
}
inline void curand_init(curandDirectionVectors64_t direction_vectors, unsigned long long offset,
                        curandStateSobol64_t* s) {
  cudalab::detail::curand::sobol_init(direction_vectors, 0ull, offset, s);
}
inline void curand_init(curandDirectionVectors64_t direction_vectors, unsigned long long scramble_c,
                        unsigned long long offset, curandStateScrambledSobol64_t* s) {
  cudalab::detail::curand::sobol_init(direction_vectors, scramble_c, offset, s);
}
// The Sobol states' draws and jumps (a 64-bit state gives 64-bit points).
template <class S, cudalab::detail::curand::if_sobol<S> = 0>
auto curand(S* s) {
  return cudalab::detail::curand::sobol_next(s);
}
template <class S, cudalab::detail::curand::if_sobol<S> = 0>
void skipahead(unsigned long long n, S* s) {
  s->i += static_cast<decltype(s->i)>(n);
  cudalab::detail::curand::sobol_seek(s);
}

// ---- uniforms
inline float curand_uniform(curandStateXORWOW_t* s) {
  return cudalab::detail::curand::uniform(curand(s));
}
inline float curand_uniform(curandStatePhilox4_32_10_t* s) {
  return cudalab::detail::curand::uniform(curand(s));
}
inline float curand_uniform(curandStateMRG32k3a_t* s) {
  return static_cast<float>(cudalab::detail::curand::mrg_next(s->s1, s->s2) *
                            2.3283065498378288e-10);
}
inline double curand_uniform_double(curandStateXORWOW_t* s) {
  const unsigned int x = curand(s), y = curand(s);
  return cudalab::detail::curand::uniform_double_hq(x, y);
}
inline double curand_uniform_double(curandStatePhilox4_32_10_t* s) {
  return cudalab::detail::curand::uniform_double(curand(s));
}
inline double curand_uniform_double(curandStateMRG32k3a_t* s) {
  return cudalab::detail::curand::mrg_next(s->s1, s->s2) * 2.3283065498378288e-10;
}
inline float4 curand_uniform4(curandStatePhilox4_32_10_t* s) {
  const uint4 x = curand4(s);
  using cudalab::detail::curand::uniform;
  return float4{uniform(x.x), uniform(x.y), uniform(x.z), uniform(x.w)};
}
inline double2 curand_uniform2_double(curandStatePhilox4_32_10_t* s) {
  const uint4 x = curand4(s);
  return double2{cudalab::detail::curand::uniform_double_hq(x.x, x.y),
                 cudalab::detail::curand::uniform_double_hq(x.z, x.w)};
}

// Sobol: 32-bit points as the other generators' words; 64-bit ones give a
// float from their upper half and a double from their upper 53 bits.
template <class S, cudalab::detail::curand::if_sobol<S> = 0>
float curand_uniform(S* s) {
  return cudalab::detail::curand::uniform(cudalab::detail::curand::upper_word(curand(s)));
}
template <class S, cudalab::detail::curand::if_sobol<S> = 0>
double curand_uniform_double(S* s) {
  const auto x = curand(s);
  if constexpr (sizeof(x) == 8)
    return cudalab::detail::curand::uniform_double64(x);
  else
    return cudalab::detail::curand::uniform_double(x);
}

// ---- normals (Box-Muller; the second value of each pair is kept for the next call)
template <class State, cudalab::detail::curand::if_not_sobol<State> = 0>
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
      v = cudalab::detail::curand::box_muller(x, y);
    }
    s->boxmuller_extra = v.y;
    s->boxmuller_flag = 1;
    return v.x;
  }
  s->boxmuller_flag = 0;
  return s->boxmuller_extra;
}
template <class State, cudalab::detail::curand::if_not_sobol<State> = 0>
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
      v = cudalab::detail::curand::box_muller_double(x.x, x.y, x.z, x.w);
    } else {
      const unsigned int x0 = curand(s), x1 = curand(s), y0 = curand(s), y1 = curand(s);
      v = cudalab::detail::curand::box_muller_double(x0, x1, y0, y1);
    }
    s->boxmuller_extra_double = v.y;
    s->boxmuller_flag_double = 1;
    return v.x;
  }
  s->boxmuller_flag_double = 0;
  return s->boxmuller_extra_double;
}
// Sobol: one point, one normal, through the inverse CDF (no pairs kept).
template <class S, cudalab::detail::curand::if_sobol<S> = 0>
float curand_normal(S* s) {
  return cudalab::detail::curand::normal_icdf(cudalab::detail::curand::upper_word(curand(s)));
}
template <class S, cudalab::detail::curand::if_sobol<S> = 0>
double curand_normal_double(S* s) {
  return cudalab::detail::curand::normal_icdf_double(curand(s));
}
inline float2 curand_normal2(curandStateXORWOW_t* s) {
  const unsigned int x = curand(s), y = curand(s);
  return cudalab::detail::curand::box_muller(x, y);
}
inline float2 curand_normal2(curandStatePhilox4_32_10_t* s) {
  const unsigned int x = curand(s), y = curand(s);
  return cudalab::detail::curand::box_muller(x, y);
}
inline float4 curand_normal4(curandStatePhilox4_32_10_t* s) {
  const uint4 x = curand4(s);
  const float2 a = cudalab::detail::curand::box_muller(x.x, x.y),
               b = cudalab::detail::curand::box_muller(x.z, x.w);
  return float4{a.x, a.y, b.x, b.y};
}
inline double2 curand_normal2_double(curandStateXORWOW_t* s) {
  const unsigned int x0 = curand(s), x1 = curand(s), y0 = curand(s), y1 = curand(s);
  return cudalab::detail::curand::box_muller_double(x0, x1, y0, y1);
}
inline double2 curand_normal2_double(curandStatePhilox4_32_10_t* s) {
  const uint4 x = curand4(s);
  return cudalab::detail::curand::box_muller_double(x.x, x.y, x.z, x.w);
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
template <class State>
unsigned int curand_poisson(State* s, double lambda) {
  static_assert(!cudalab::detail::curand::is_sobol<State>,
                "cudalab: curand_poisson on a Sobol state is not supported on the simulator");
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
  return cudalab::detail::curand::poisson_ptrs(s, lambda);
}
