// cuRAND's host API (curand.h) on the simulator: a generator fills a buffer
// with what an H100 writes there. XORWOW and MRG32k3a run 4096 states, state
// t on subsequence t: output unit g (one value, a normal pair, ...) comes from
// state g mod 4096, its (g / 4096)-th unit. Philox4_32_10 fills slots of 4
// outputs: slot s from subsequence s mod 4096, at counter s / 4096 (two
// counters for doubles). The offset counts units (XORWOW, MRG32k3a) or
// outputs (Philox), and each call moves it past what it used. Laid out from
// tests/data/curand_host_gpu.txt; what it does not cover answers an error.
// The Sobol generators fill n / dimensions points of each dimension in turn,
// dimension after dimension, from point `offset` on (Gray-code order, as the
// device API's states; tests/data/curand_sobol_gpu.txt).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "curand.h"
#include "curand_kernel.h"
#include "runtime/sobol.h"

namespace cudalab::detail::curand_host {
namespace {

constexpr uint64_t kStates = 4096;
constexpr size_t kChunkUnits = size_t{1} << 18;

enum class Kind { xorwow, philox, mrg, sobol32, sobol64 };

curandStatus_t unsupported(const char* what) {
  std::fprintf(stderr, "cudalab: cuRAND host API: %s is not supported on the simulator\n", what);
  return CURAND_STATUS_TYPE_ERROR;
}

}  // namespace
}  // namespace cudalab::detail::curand_host

struct curandGenerator_st {
  cudalab::detail::curand_host::Kind kind;
  bool host = false;
  unsigned long long seed = 0;
  unsigned long long offset = 0;
  unsigned int dimensions = 1;  // Sobol's
  cudaStream_t stream = nullptr;
  // XORWOW's and MRG32k3a's states, made when first needed, and how many
  // raw values each has given since its curand_init.
  std::vector<curandStateXORWOW_t> xorwow;
  std::vector<curandStateMRG32k3a_t> mrg;
  std::vector<uint64_t> position;
  std::vector<bool> ready;
  void forget() {
    xorwow.clear();
    mrg.clear();
    position.clear();
    ready.clear();
  }
};

namespace cudalab::detail::curand_host {
namespace {

// Raw values of a stateful generator, unit-major: raw[k * per_unit + j] is
// the j-th value of unit first + k (state (first + k) mod 4096).
template <class State, class Raw, class Next>
void stateful_raw(curandGenerator_st* g, std::vector<State>& states, uint64_t first, uint64_t units,
                  int per_unit, Raw* raw, Next next) {
  if (states.empty()) {
    states.resize(kStates);
    g->position.assign(kStates, 0);
    g->ready.assign(kStates, false);
  }
  const uint64_t lanes = units < kStates ? units : kStates;
  for (uint64_t k = 0; k < lanes; ++k) {
    const uint64_t unit = first + k, t = unit % kStates;
    const uint64_t want = unit / kStates * per_unit;
    State& s = states[t];
    if (!g->ready[t] || g->position[t] > want) {
      curand_init(g->seed, t, 0, &s);
      g->position[t] = 0;
      g->ready[t] = true;
    }
    if (want > g->position[t]) skipahead(want - g->position[t], &s);
    uint64_t at = want;
    for (uint64_t u = k; u < units; u += kStates) {
      for (int j = 0; j < per_unit; ++j) raw[u * per_unit + j] = next(&s);
      at += per_unit;
    }
    g->position[t] = at;
  }
}

// Philox's words for output slot `slot` (4 outputs): `count` words, from
// counters slot / 4096 * count / 4 on, of subsequence slot mod 4096.
void philox_words(const curandGenerator_st* g, uint64_t slot, int count, uint32_t* words) {
  const uint2 key{static_cast<unsigned int>(g->seed), static_cast<unsigned int>(g->seed >> 32)};
  const uint64_t t = slot % kStates, first = slot / kStates * (count / 4);
  for (int j = 0; j < count / 4; ++j) {
    const uint64_t c = first + j;
    const uint4 ctr{static_cast<unsigned int>(c), static_cast<unsigned int>(c >> 32),
                    static_cast<unsigned int>(t), 0u};
    const uint4 o = cudalab::detail::curand::philox(ctr, key);
    words[4 * j] = o.x;
    words[4 * j + 1] = o.y;
    words[4 * j + 2] = o.z;
    words[4 * j + 3] = o.w;
  }
}

curandStatus_t copy_out(curandGenerator_st* g, void* dst, const void* src, size_t bytes) {
  if (g->host) {
    std::memcpy(dst, src, bytes);
    return CURAND_STATUS_SUCCESS;
  }
  if (cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, g->stream) != cudaSuccess ||
      cudaStreamSynchronize(g->stream) != cudaSuccess)
    return CURAND_STATUS_LAUNCH_FAILURE;
  return CURAND_STATUS_SUCCESS;
}

// Fills out[0 .. n) with units of per_unit outputs, each made from raw
// values (per_raw of them for XORWOW, per_raw_mrg for MRG32k3a, which gives
// doubles in (0, 1) before scaling). Philox fills slots of 4 outputs from
// philox_count words each: from_philox makes output w of a slot.
template <class Out, class FromU32, class FromMrg, class FromPhilox>
curandStatus_t generate(curandGenerator_t g, Out* out, size_t n, int per_unit, int per_raw,
                        int per_raw_mrg, FromU32 from_u32, FromMrg from_mrg, int philox_count,
                        FromPhilox from_philox) {
  if (g == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  if (n == 0) return CURAND_STATUS_SUCCESS;
  if (out == nullptr) return CURAND_STATUS_LAUNCH_FAILURE;
  if (per_unit > 1 && n % per_unit != 0 && g->kind != Kind::philox)
    return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
  if (g->kind == Kind::philox) {
    std::vector<Out> staged;
    uint32_t words[8];
    uint64_t cached = ~uint64_t{0};
    for (size_t done = 0; done < n; done += kChunkUnits) {
      const size_t count = n - done < kChunkUnits ? n - done : kChunkUnits;
      staged.resize(count);
      for (size_t k = 0; k < count; ++k) {
        const uint64_t m = g->offset + done + k;
        if (m / 4 != cached) philox_words(g, cached = m / 4, philox_count, words);
        staged[k] = from_philox(words, static_cast<int>(m % 4));
      }
      const curandStatus_t s = copy_out(g, out + done, staged.data(), count * sizeof(Out));
      if (s != CURAND_STATUS_SUCCESS) return s;
    }
    g->offset += n;
    return CURAND_STATUS_SUCCESS;
  }
  const uint64_t units = (n + per_unit - 1) / per_unit;
  const int raw_per_unit = g->kind == Kind::mrg ? per_raw_mrg : per_raw;
  std::vector<uint32_t> raw32;
  std::vector<double> rawd;
  std::vector<Out> staged;
  for (uint64_t done = 0; done < units; done += kChunkUnits) {
    const uint64_t count = units - done < kChunkUnits ? units - done : kChunkUnits;
    staged.assign(count * per_unit, Out{});
    if (g->kind == Kind::mrg) {
      rawd.resize(count * raw_per_unit);
      stateful_raw(
          g, g->mrg, g->offset + done, count, raw_per_unit, rawd.data(),
          [](curandStateMRG32k3a_t* s) { return cudalab::detail::curand::mrg_next(s->s1, s->s2); });
      for (uint64_t k = 0; k < count; ++k) from_mrg(&rawd[k * raw_per_unit], &staged[k * per_unit]);
    } else {
      raw32.resize(count * raw_per_unit);
      stateful_raw(g, g->xorwow, g->offset + done, count, raw_per_unit, raw32.data(),
                   [](curandStateXORWOW_t* s) { return ::curand(s); });
      for (uint64_t k = 0; k < count; ++k)
        from_u32(&raw32[k * raw_per_unit], &staged[k * per_unit]);
    }
    const size_t first = done * per_unit;
    const size_t take = n - first < staged.size() ? n - first : staged.size();
    const curandStatus_t s = copy_out(g, out + first, staged.data(), take * sizeof(Out));
    if (s != CURAND_STATUS_SUCCESS) return s;
  }
  g->offset += units;
  return CURAND_STATUS_SUCCESS;
}

bool quasi(const curandGenerator_st* g) {
  return g != nullptr && (g->kind == Kind::sobol32 || g->kind == Kind::sobol64);
}

// A Sobol generator's output: from32 makes an output from a 32-bit point,
// from64 from a 64-bit one; a null one means the generator's width has no
// such output (curandGenerate on SOBOL64, for one).
template <class Out, class From32, class From64>
curandStatus_t quasi_generate(curandGenerator_st* g, Out* out, size_t n, From32 from32,
                              From64 from64) {
  const bool wide = g->kind == Kind::sobol64;
  if constexpr (std::is_null_pointer_v<From32>) {
    if (!wide) return CURAND_STATUS_TYPE_ERROR;
  }
  if constexpr (std::is_null_pointer_v<From64>) {
    if (wide) return CURAND_STATUS_TYPE_ERROR;
  }
  if (n == 0) return CURAND_STATUS_SUCCESS;
  if (out == nullptr) return CURAND_STATUS_LAUNCH_FAILURE;
  if (n % g->dimensions != 0) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
  const size_t points = n / g->dimensions;
  std::vector<Out> staged;
  for (unsigned d = 0; d < g->dimensions; ++d) {
    // The state of the device API, walked on the host.
    curandStateSobol64_t s64{};
    curandStateSobol32_t s32{};
    if (wide)
      curand_init(&cudalab::detail::curand::sobol_vectors64()[size_t{d} * 64], g->offset, &s64);
    else
      curand_init(&cudalab::detail::curand::sobol_vectors32()[size_t{d} * 32],
                  static_cast<unsigned>(g->offset), &s32);
    for (size_t done = 0; done < points; done += kChunkUnits) {
      const size_t count = points - done < kChunkUnits ? points - done : kChunkUnits;
      staged.resize(count);
      for (size_t k = 0; k < count; ++k) {
        if constexpr (!std::is_null_pointer_v<From64>) {
          if (wide) {
            staged[k] = from64(::curand(&s64));
            continue;
          }
        }
        if constexpr (!std::is_null_pointer_v<From32>) staged[k] = from32(::curand(&s32));
      }
      const curandStatus_t s =
          copy_out(g, out + size_t{d} * points + done, staged.data(), count * sizeof(Out));
      if (s != CURAND_STATUS_SUCCESS) return s;
    }
  }
  g->offset += points;
  return CURAND_STATUS_SUCCESS;
}

constexpr double kMrgScale = 2.3283065498378288e-10;

curandStatus_t create(curandGenerator_t* out, curandRngType_t type, bool host) {
  if (out == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  Kind kind;
  switch (type) {
    case CURAND_RNG_PSEUDO_DEFAULT:
    case CURAND_RNG_PSEUDO_XORWOW:
      kind = Kind::xorwow;
      break;
    case CURAND_RNG_PSEUDO_PHILOX4_32_10:
      kind = Kind::philox;
      break;
    case CURAND_RNG_PSEUDO_MRG32K3A:
      kind = Kind::mrg;
      break;
    case CURAND_RNG_PSEUDO_MTGP32:
      return unsupported("the MTGP32 generator");
    case CURAND_RNG_PSEUDO_MT19937:
      return unsupported("the MT19937 generator");
    case CURAND_RNG_QUASI_DEFAULT:
    case CURAND_RNG_QUASI_SOBOL32:
      kind = Kind::sobol32;
      break;
    case CURAND_RNG_QUASI_SOBOL64:
      kind = Kind::sobol64;
      break;
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL32:
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL64:
      return unsupported(
          "a scrambled Sobol generator (its scramble constants and direction vectors are "
          "NVIDIA's own)");
    default:
      return CURAND_STATUS_TYPE_ERROR;
  }
  auto* g = new curandGenerator_st;
  g->kind = kind;
  g->host = host;
  *out = g;
  return CURAND_STATUS_SUCCESS;
}

}  // namespace
}  // namespace cudalab::detail::curand_host

using cudalab::detail::curand_host::generate;
using cudalab::detail::curand_host::Kind;
using cudalab::detail::curand_host::kMrgScale;
using cudalab::detail::curand_host::quasi;
using cudalab::detail::curand_host::quasi_generate;
namespace cuc = cudalab::detail::curand;

curandStatus_t curandCreateGenerator(curandGenerator_t* generator, curandRngType_t rng_type) {
  return cudalab::detail::curand_host::create(generator, rng_type, false);
}
curandStatus_t curandCreateGeneratorHost(curandGenerator_t* generator, curandRngType_t rng_type) {
  return cudalab::detail::curand_host::create(generator, rng_type, true);
}
curandStatus_t curandDestroyGenerator(curandGenerator_t generator) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  delete generator;
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandGetVersion(int* version) {
  if (version == nullptr) return CURAND_STATUS_OUT_OF_RANGE;
  *version = CURAND_VERSION;
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  generator->stream = stream;
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator,
                                                  unsigned long long seed) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  if (quasi(generator)) return CURAND_STATUS_TYPE_ERROR;
  generator->seed = seed;
  generator->offset = 0;
  generator->forget();
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  generator->offset = offset;
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandSetGeneratorOrdering(curandGenerator_t generator, curandOrdering_t order) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  if (quasi(generator))
    return order == CURAND_ORDERING_QUASI_DEFAULT ? CURAND_STATUS_SUCCESS
                                                  : CURAND_STATUS_OUT_OF_RANGE;
  switch (order) {
    case CURAND_ORDERING_PSEUDO_BEST:
    case CURAND_ORDERING_PSEUDO_DEFAULT:
    case CURAND_ORDERING_PSEUDO_LEGACY:
    case CURAND_ORDERING_PSEUDO_DYNAMIC:
      // All four give the same values on an H100 for these generators.
      return CURAND_STATUS_SUCCESS;
    case CURAND_ORDERING_PSEUDO_SEEDED:
      if (generator->kind != Kind::xorwow) return CURAND_STATUS_OUT_OF_RANGE;
      std::fprintf(stderr,
                   "cudalab: cuRAND host API: XORWOW's seeded ordering is not supported on the "
                   "simulator\n");
      return CURAND_STATUS_OUT_OF_RANGE;
    default:
      return CURAND_STATUS_OUT_OF_RANGE;
  }
}

curandStatus_t curandSetQuasiRandomGeneratorDimensions(curandGenerator_t generator,
                                                       unsigned int num_dimensions) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  if (!quasi(generator)) return CURAND_STATUS_TYPE_ERROR;
  if (num_dimensions == 0 || num_dimensions > 20000) return CURAND_STATUS_OUT_OF_RANGE;
  if (num_dimensions > cuc::kSobolDimensions) {
    std::fprintf(stderr,
                 "cudalab: cuRAND host API: %u Sobol dimensions asked for; the simulator has "
                 "direction vectors for %u (cuRAND has 20,000)\n",
                 num_dimensions, cuc::kSobolDimensions);
    return CURAND_STATUS_OUT_OF_RANGE;
  }
  generator->dimensions = num_dimensions;
  return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGenerate(curandGenerator_t generator, unsigned int* output_ptr, size_t num) {
  if (quasi(generator))
    return quasi_generate(
        generator, output_ptr, num, [](unsigned int x) { return x; }, nullptr);
  return generate(
      generator, output_ptr, num, 1, 1, 1, [](const uint32_t* r, unsigned int* o) { o[0] = r[0]; },
      [](const double* r, unsigned int* o) {
        o[0] = static_cast<unsigned int>(r[0] * 1.000000048662);
      },
      4, [](const uint32_t* w, int i) { return w[i]; });
}
curandStatus_t curandGenerateLongLong(curandGenerator_t generator, unsigned long long* output_ptr,
                                      size_t num) {
  // 64-bit values come from the 64-bit Sobol generators only, as in cuRAND.
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  if (!quasi(generator)) return CURAND_STATUS_TYPE_ERROR;
  return quasi_generate(generator, output_ptr, num, nullptr,
                        [](unsigned long long x) { return x; });
}
curandStatus_t curandGenerateUniform(curandGenerator_t generator, float* output_ptr, size_t num) {
  if (quasi(generator))
    return quasi_generate(
        generator, output_ptr, num, [](unsigned int x) { return cuc::uniform(x); },
        [](unsigned long long x) { return cuc::uniform(static_cast<unsigned int>(x >> 32)); });
  return generate(
      generator, output_ptr, num, 1, 1, 1,
      [](const uint32_t* r, float* o) { o[0] = cudalab::detail::curand::uniform(r[0]); },
      [](const double* r, float* o) { o[0] = static_cast<float>(r[0] * kMrgScale); }, 4,
      [](const uint32_t* w, int i) { return cudalab::detail::curand::uniform(w[i]); });
}
curandStatus_t curandGenerateUniformDouble(curandGenerator_t generator, double* output_ptr,
                                           size_t num) {
  if (quasi(generator))
    return quasi_generate(
        generator, output_ptr, num, [](unsigned int x) { return cuc::uniform_double(x); },
        [](unsigned long long x) { return cuc::uniform_double64(x); });
  return generate(
      generator, output_ptr, num, 1, 2, 1,
      [](const uint32_t* r, double* o) {
        o[0] = cudalab::detail::curand::uniform_double_hq(r[0], r[1]);
      },
      [](const double* r, double* o) { o[0] = r[0] * kMrgScale; }, 8,
      [](const uint32_t* w, int i) {
        return cudalab::detail::curand::uniform_double_hq(w[2 * i], w[2 * i + 1]);
      });
}

namespace {

float2 mrg_box_muller(const double* r) {
  const float x = static_cast<float>(r[0] * kMrgScale);
  const float y = static_cast<float>(r[1] * kMrgScale) * 6.2831855f;
  const float s = std::sqrt(-2.0f * std::log(x));
  return float2{std::sin(y) * s, std::cos(y) * s};
}
double2 mrg_box_muller_double(const double* r) {
  const double x = r[0] * kMrgScale, y = r[1] * kMrgScale * 2.0;
  const double s = std::sqrt(-2.0 * std::log(x));
  return double2{std::sin(y * CURAND_PI_DOUBLE) * s, std::cos(y * CURAND_PI_DOUBLE) * s};
}

template <class Out, class Map>
curandStatus_t normal_float(curandGenerator_t g, Out* out, size_t n, Map map) {
  if (quasi(g))
    return quasi_generate(
        g, out, n, [map](unsigned int x) { return map(cuc::normal_icdf(x)); },
        [map](unsigned long long x) {
          return map(cuc::normal_icdf(static_cast<unsigned int>(x >> 32)));
        });
  return generate(
      g, out, n, 2, 2, 2,
      [map](const uint32_t* r, Out* o) {
        const float2 v = cudalab::detail::curand::box_muller(r[0], r[1]);
        o[0] = map(v.x);
        o[1] = map(v.y);
      },
      [map](const double* r, Out* o) {
        const float2 v = mrg_box_muller(r);
        o[0] = map(v.x);
        o[1] = map(v.y);
      },
      4,
      [map](const uint32_t* w, int i) {
        const int p = i & ~1;
        const float2 v = cudalab::detail::curand::box_muller(w[p], w[p + 1]);
        return map(i & 1 ? v.y : v.x);
      });
}
template <class Out, class Map>
curandStatus_t normal_double(curandGenerator_t g, Out* out, size_t n, Map map) {
  if (quasi(g))
    return quasi_generate(
        g, out, n, [map](unsigned int x) { return map(cuc::normal_icdf_double(x)); },
        [map](unsigned long long x) { return map(cuc::normal_icdf_double(x)); });
  return generate(
      g, out, n, 2, 4, 2,
      [map](const uint32_t* r, Out* o) {
        const double2 v = cudalab::detail::curand::box_muller_double(r[0], r[1], r[2], r[3]);
        o[0] = map(v.x);
        o[1] = map(v.y);
      },
      [map](const double* r, Out* o) {
        const double2 v = mrg_box_muller_double(r);
        o[0] = map(v.x);
        o[1] = map(v.y);
      },
      8,
      [map](const uint32_t* w, int i) {
        const uint32_t* q = w + 4 * (i / 2);
        const double2 v = cudalab::detail::curand::box_muller_double(q[0], q[1], q[2], q[3]);
        return map(i & 1 ? v.y : v.x);
      });
}

}  // namespace

curandStatus_t curandGenerateNormal(curandGenerator_t generator, float* output_ptr, size_t n,
                                    float mean, float stddev) {
  return normal_float(generator, output_ptr, n,
                      [mean, stddev](float z) { return mean + stddev * z; });
}
curandStatus_t curandGenerateNormalDouble(curandGenerator_t generator, double* output_ptr, size_t n,
                                          double mean, double stddev) {
  return normal_double(generator, output_ptr, n,
                       [mean, stddev](double z) { return mean + stddev * z; });
}
curandStatus_t curandGenerateLogNormal(curandGenerator_t generator, float* output_ptr, size_t n,
                                       float mean, float stddev) {
  return normal_float(generator, output_ptr, n,
                      [mean, stddev](float z) { return std::exp(mean + stddev * z); });
}
curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t generator, double* output_ptr,
                                             size_t n, double mean, double stddev) {
  return normal_double(generator, output_ptr, n,
                       [mean, stddev](double z) { return std::exp(mean + stddev * z); });
}
curandStatus_t curandGeneratePoisson(curandGenerator_t generator, unsigned int* output_ptr,
                                     size_t n, double lambda) {
  (void)output_ptr;
  (void)n;
  (void)lambda;
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  return cudalab::detail::curand_host::unsupported("curandGeneratePoisson");
}
