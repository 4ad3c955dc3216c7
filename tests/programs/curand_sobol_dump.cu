// Prints what cuRAND's Sobol generators give: the direction vectors
// (Joe and Kuo's, 32 and 64 bits) of a few dimensions in full and a hash of
// the first 3667, the host API's SOBOL32 and SOBOL64 generators (three
// dimensions, offsets 0 and 7, integers and every distribution, calls that
// follow each other, bad lengths and dimension counts) and the device API's
// Sobol states (plain and scrambled with a constant of our own, skipahead).
// Built with nvcc (-lcurand) on an H100 it gave tests/data/curand_sobol_gpu.txt,
// the ground truth for the simulator; tests/unit/curand_host_compare.py
// compares the simulator's output with it. Built with
// CUDALAB_CURAND_HOST_SUPPORTED_ONLY it leaves out what the simulator does
// not reproduce: NVIDIA's scrambled direction vectors and scramble constants.
#include <cuda_runtime.h>
#include <curand.h>
#include <curand_kernel.h>

#include <cstdio>
#include <type_traits>
#include <vector>

#define CHECK(x)                                                                    \
  do {                                                                              \
    curandStatus_t s_ = (x);                                                        \
    if (s_ != CURAND_STATUS_SUCCESS) std::printf("status %d at %s\n", (int)s_, #x); \
  } while (0)

constexpr int kDims = 3667;  // the dimensions both the GPU and the simulator have

template <class T>
static void print_row(const char* what, const char* name, const T* v, size_t n) {
  std::printf("%s %s", what, name);
  for (size_t i = 0; i < n; ++i) {
    if constexpr (sizeof(T) == 8 && T(0.5) == 0)
      std::printf(" %016llx", (unsigned long long)v[i]);
    else if constexpr (T(0.5) == 0)
      std::printf(" %08x", (unsigned)v[i]);
    else if constexpr (sizeof(T) == 4)
      std::printf(" %.9g", (double)v[i]);
    else
      std::printf(" %.17g", (double)v[i]);
  }
  std::printf("\n");
}

template <class T>
static unsigned long long fnv(const T* v, size_t n) {
  unsigned long long h = 1469598103934665603ull;
  const unsigned char* p = reinterpret_cast<const unsigned char*>(v);
  for (size_t i = 0; i < n * sizeof(T); ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

static void direction_vectors() {
  curandDirectionVectors32_t* v32 = nullptr;
  curandDirectionVectors64_t* v64 = nullptr;
  CHECK(curandGetDirectionVectors32(&v32, CURAND_DIRECTION_VECTORS_32_JOEKUO6));
  CHECK(curandGetDirectionVectors64(&v64, CURAND_DIRECTION_VECTORS_64_JOEKUO6));
  if (v32 == nullptr || v64 == nullptr) return;
  const int shown[] = {0, 1, 2, 3, 9, 100, 1000, 2500, kDims - 1};
  for (int d : shown) {
    char name[16];
    std::snprintf(name, sizeof name, "%d", d);
    print_row("dv32", name, v32[d], 32);
    print_row("dv64", name, v64[d], 64);
  }
  std::printf("hash32 %d %016llx\n", kDims, fnv(v32[0], size_t{kDims} * 32));
  std::printf("hash64 %d %016llx\n", kDims, fnv(v64[0], size_t{kDims} * 64));
#ifndef CUDALAB_CURAND_HOST_SUPPORTED_ONLY
  curandDirectionVectors32_t* s32 = nullptr;
  unsigned int* c32 = nullptr;
  CHECK(curandGetDirectionVectors32(&s32, CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6));
  CHECK(curandGetScrambleConstants32(&c32));
  if (s32 != nullptr) std::printf("hash_scrambled32 %016llx\n", fnv(s32[0], size_t{kDims} * 32));
  if (c32 != nullptr) std::printf("hash_constants32 %016llx\n", fnv(c32, size_t{kDims}));
#endif
  // Bad arguments.
  std::printf("bad_set status %d\n",
              (int)curandGetDirectionVectors32(&v32, CURAND_DIRECTION_VECTORS_64_JOEKUO6));
}

template <class T>
static std::vector<T> fetch(const T* d, size_t n) {
  std::vector<T> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
  return h;
}

// One host generator: dims 3, the calls in a row, then a fresh one at
// offset 7, then the errors.
static void host_generator(const char* name, curandRngType_t type, bool is64) {
  const size_t n = 3 * 40;
  void* d = nullptr;
  cudaMalloc(&d, n * 8);
  curandGenerator_t g;
  if (curandCreateGenerator(&g, type) != CURAND_STATUS_SUCCESS) {
    std::printf("create %s failed\n", name);
    return;
  }
  CHECK(curandSetQuasiRandomGeneratorDimensions(g, 3));
  CHECK(curandSetGeneratorOrdering(g, CURAND_ORDERING_QUASI_DEFAULT));
  char key[64];
  auto tag = [&](const char* what) {
    std::snprintf(key, sizeof key, "%s_%s", name, what);
    return key;
  };
  if (is64) {
    CHECK(curandGenerateLongLong(g, (unsigned long long*)d, n));
    print_row("u64", tag("first"), fetch((unsigned long long*)d, n).data(), n);
    CHECK(curandGenerateLongLong(g, (unsigned long long*)d, n));
    print_row("u64", tag("next"), fetch((unsigned long long*)d, n).data(), n);
  } else {
    CHECK(curandGenerate(g, (unsigned*)d, n));
    print_row("u32v", tag("first"), fetch((unsigned*)d, n).data(), n);
    CHECK(curandGenerate(g, (unsigned*)d, n));
    print_row("u32v", tag("next"), fetch((unsigned*)d, n).data(), n);
  }
  CHECK(curandGenerateUniform(g, (float*)d, n));
  print_row("uniform", tag("a"), fetch((float*)d, n).data(), n);
  CHECK(curandGenerateUniformDouble(g, (double*)d, n));
  print_row("uniform_double", tag("a"), fetch((double*)d, n).data(), n);
  CHECK(curandGenerateNormal(g, (float*)d, n, 1.0f, 2.0f));
  print_row("normal", tag("a"), fetch((float*)d, n).data(), n);
  CHECK(curandGenerateNormalDouble(g, (double*)d, n, 0.0, 1.0));
  print_row("normal_double", tag("a"), fetch((double*)d, n).data(), n);
  CHECK(curandGenerateLogNormal(g, (float*)d, n, 0.5f, 0.25f));
  print_row("lognormal", tag("a"), fetch((float*)d, n).data(), n);
  CHECK(curandGenerateLogNormalDouble(g, (double*)d, n, 0.5, 0.25));
  print_row("lognormal", tag("double"), fetch((double*)d, n).data(), n);
  std::printf("status %s %d %d %d %d %d %d\n", tag("errors"),
              // a length that is not a multiple of the dimensions
              (int)curandGenerateUniform(g, (float*)d, 4),
              // the other width's integers
              is64 ? (int)curandGenerate(g, (unsigned*)d, 3)
                   : (int)curandGenerateLongLong(g, (unsigned long long*)d, 3),
              (int)curandSetQuasiRandomGeneratorDimensions(g, 0),
              (int)curandSetQuasiRandomGeneratorDimensions(g, 20001),
              (int)curandSetPseudoRandomGeneratorSeed(g, 5),
              (int)curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_DEFAULT));
  curandDestroyGenerator(g);

  CHECK(curandCreateGenerator(&g, type));
  CHECK(curandSetQuasiRandomGeneratorDimensions(g, 3));
  CHECK(curandSetGeneratorOffset(g, 7));
  CHECK(curandGenerateUniform(g, (float*)d, n));
  print_row("uniform", tag("offset7"), fetch((float*)d, n).data(), n);
  curandDestroyGenerator(g);

  // One dimension, a long run: where the points come from past the first.
  CHECK(curandCreateGenerator(&g, type));
  const size_t long_n = 4096;
  void* dl = nullptr;
  cudaMalloc(&dl, long_n * 8);
  if (is64) {
    CHECK(curandGenerateLongLong(g, (unsigned long long*)dl, long_n));
    std::printf("hash %s %016llx\n", tag("long"), fnv(fetch((unsigned long long*)dl, long_n).data(), long_n));
  } else {
    CHECK(curandGenerate(g, (unsigned*)dl, long_n));
    std::printf("hash %s %016llx\n", tag("long"), fnv(fetch((unsigned*)dl, long_n).data(), long_n));
  }
  cudaFree(dl);
  curandDestroyGenerator(g);
  cudaFree(d);
}

// Device API: thread t of 8 starts dimension t % 3 at offset 5 * t, draws 4
// integers, skips 11, then the distributions.
struct DeviceOut {
  unsigned long long raw[4];
  unsigned long long after_skip;
  float u, n, ln;
  double ud, nd, lnd;
};

template <class State, class Vectors>
__global__ void sobol_states(Vectors* dv, DeviceOut* out) {
  const int t = threadIdx.x;
  State s;
  if constexpr (std::is_same_v<State, curandStateScrambledSobol32_t>) {
    curand_init(dv[t % 3], 0x9e3779b9u * (t + 1), 5u * t, &s);
  } else if constexpr (std::is_same_v<State, curandStateScrambledSobol64_t>) {
    curand_init(dv[t % 3], 0x9e3779b97f4a7c15ull * (t + 1), 5ull * t, &s);
  } else {
    curand_init(dv[t % 3], 5u * t, &s);
  }
  DeviceOut o;
  for (int i = 0; i < 4; ++i) o.raw[i] = curand(&s);
  skipahead(11u, &s);
  o.after_skip = curand(&s);
  o.u = curand_uniform(&s);
  o.n = curand_normal(&s);
  o.ln = curand_log_normal(&s, 0.5f, 0.25f);
  o.ud = curand_uniform_double(&s);
  o.nd = curand_normal_double(&s);
  o.lnd = curand_log_normal_double(&s, 0.5, 0.25);
  out[t] = o;
}

template <class State, class Vectors>
static void device_states(const char* name, const Vectors* host_dv) {
  Vectors* dv = nullptr;
  DeviceOut* out = nullptr;
  cudaMalloc(&dv, 3 * sizeof(Vectors));
  cudaMalloc(&out, 8 * sizeof(DeviceOut));
  cudaMemcpy(dv, host_dv, 3 * sizeof(Vectors), cudaMemcpyHostToDevice);
  sobol_states<State, Vectors><<<1, 8>>>(dv, out);
  if (cudaDeviceSynchronize() != cudaSuccess) std::printf("%s: launch failed\n", name);
  const std::vector<DeviceOut> h = fetch(out, 8);
  for (int t = 0; t < 8; ++t) {
    char key[64];
    std::snprintf(key, sizeof key, "%s_%d", name, t);
    std::printf("dev_raw %s", key);
    for (unsigned long long r : h[t].raw) std::printf(" %016llx", r);
    std::printf(" %016llx\n", h[t].after_skip);
    std::printf("dev_uniform %s %.9g %.17g\n", key, (double)h[t].u, h[t].ud);
    std::printf("normal %s %.9g %.17g %.9g %.17g\n", key, (double)h[t].n, h[t].nd,
                (double)h[t].ln, h[t].lnd);
  }
  cudaFree(dv);
  cudaFree(out);
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device\n");
    return 77;
  }
  direction_vectors();
  host_generator("sobol32", CURAND_RNG_QUASI_SOBOL32, false);
  host_generator("sobol64", CURAND_RNG_QUASI_SOBOL64, true);
  host_generator("quasi_default", CURAND_RNG_QUASI_DEFAULT, false);
#ifndef CUDALAB_CURAND_HOST_SUPPORTED_ONLY
  host_generator("scrambled32", CURAND_RNG_QUASI_SCRAMBLED_SOBOL32, false);
  host_generator("scrambled64", CURAND_RNG_QUASI_SCRAMBLED_SOBOL64, true);
#endif
  // Host generators write host memory: the same values.
  curandGenerator_t hg;
  if (curandCreateGeneratorHost(&hg, CURAND_RNG_QUASI_SOBOL32) == CURAND_STATUS_SUCCESS) {
    CHECK(curandSetQuasiRandomGeneratorDimensions(hg, 2));
    std::vector<float> h(64);
    CHECK(curandGenerateUniform(hg, h.data(), 64));
    print_row("uniform", "host_sobol32", h.data(), h.size());
    curandDestroyGenerator(hg);
  }
  curandDirectionVectors32_t* v32 = nullptr;
  curandDirectionVectors64_t* v64 = nullptr;
  CHECK(curandGetDirectionVectors32(&v32, CURAND_DIRECTION_VECTORS_32_JOEKUO6));
  CHECK(curandGetDirectionVectors64(&v64, CURAND_DIRECTION_VECTORS_64_JOEKUO6));
  if (v32 && v64) {
    device_states<curandStateSobol32_t>("sobol32", v32);
    device_states<curandStateSobol64_t>("sobol64", v64);
    device_states<curandStateScrambledSobol32_t>("scrambled32", v32);
    device_states<curandStateScrambledSobol64_t>("scrambled64", v64);
  }
  return 0;
}

// The tests of this program (tests/lit/README.md): its output against an
// H100's (data/curand_sobol_gpu.txt). The simulator's build leaves out what
// it does not reproduce (tests/CMakeLists.txt defines
// CUDALAB_CURAND_HOST_SUPPORTED_ONLY for it), so at least 3000 values are
// compared; on a GPU the whole program runs.
// BUILD: GPU_LIBS CUDA::curand
// TEST: unit.curand_sobol_dump_matches_gpu
// LABELS: unit
// RUN: %bin | %python %project/tests/unit/curand_host_compare.py %data/curand_sobol_gpu.txt 3000
// CHECK: {{^}}compared
//
// TEST: gpu.curand_sobol_dump_matches_expected
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu | %python %project/tests/unit/curand_host_compare.py %data/curand_sobol_gpu.txt 3000
// CHECK: {{^}}compared
