// Prints what cuRAND's host API generates (curand.h): for each generator
// and ordering, seed 1234, the first 32768 32-bit outputs (offset 0; 256
// at offset 5), then the distributions' first values. Built with nvcc
// (-lcurand) on an H100 it gave tests/data/curand_host_gpu.txt (the first
// 512 outputs of each kept), the ground truth for a host API on the
// simulator. Built with CUDALAB_CURAND_HOST_SUPPORTED_ONLY it leaves out
// what the simulator does not reproduce (MTGP32, XORWOW's seeded ordering,
// Poisson draws); tests/unit/curand_host_compare.py compares the rest.
#include <cuda_runtime.h>
#include <curand.h>

#include <cstdio>
#include <vector>

#define CHECK(x)                                                          \
  do {                                                                    \
    curandStatus_t s_ = (x);                                              \
    if (s_ != CURAND_STATUS_SUCCESS) std::printf("status %d at %s\n", (int)s_, #x); \
  } while (0)

static void dump_u32(const char* name, curandRngType_t type, curandOrdering_t order,
                     unsigned long long offset, size_t n) {
  curandGenerator_t g;
  if (curandCreateGenerator(&g, type) != CURAND_STATUS_SUCCESS) {
    std::printf("%s: create failed\n", name);
    return;
  }
  CHECK(curandSetPseudoRandomGeneratorSeed(g, 1234));
  if (order != CURAND_ORDERING_PSEUDO_DEFAULT) {
    curandStatus_t s = curandSetGeneratorOrdering(g, order);
    if (s != CURAND_STATUS_SUCCESS) {
      std::printf("%s order %d offset %llu: status %d\n", name, (int)order, offset, (int)s);
      curandDestroyGenerator(g);
      return;
    }
  }
  CHECK(curandSetGeneratorOffset(g, offset));
  unsigned int* d;
  cudaMalloc(&d, n * sizeof(unsigned));
  CHECK(curandGenerate(g, d, n));
  std::vector<unsigned> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  std::printf("u32 %s order %d offset %llu n %zu\n", name, (int)order, offset, n);
  for (size_t i = 0; i < n; ++i) std::printf("%08x%c", h[i], i % 16 == 15 ? '\n' : ' ');
  cudaFree(d);
  curandDestroyGenerator(g);
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device\n");
    return 77;
  }
  int version = 0;
  curandGetVersion(&version);
  std::printf("version %d\n", version);
  struct {
    const char* name;
    curandRngType_t type;
  } gens[] = {{"xorwow", CURAND_RNG_PSEUDO_XORWOW},
              {"philox", CURAND_RNG_PSEUDO_PHILOX4_32_10},
              {"mrg32k3a", CURAND_RNG_PSEUDO_MRG32K3A},
              {"mtgp32", CURAND_RNG_PSEUDO_MTGP32}};
  curandOrdering_t orders[] = {CURAND_ORDERING_PSEUDO_DEFAULT, CURAND_ORDERING_PSEUDO_LEGACY,
                               CURAND_ORDERING_PSEUDO_BEST, CURAND_ORDERING_PSEUDO_SEEDED,
                               CURAND_ORDERING_PSEUDO_DYNAMIC};
  for (auto& g : gens)
    for (auto o : orders) {
#ifdef CUDALAB_CURAND_HOST_SUPPORTED_ONLY
      if (g.type == CURAND_RNG_PSEUDO_MTGP32 ||
          (g.type == CURAND_RNG_PSEUDO_XORWOW && o == CURAND_ORDERING_PSEUDO_SEEDED))
        continue;
#endif
      dump_u32(g.name, g.type, o, 0, 32768);
      dump_u32(g.name, g.type, o, 5, 256);
    }
  // Distributions, XORWOW and Philox with the default ordering.
  for (auto& g : gens) {
#ifdef CUDALAB_CURAND_HOST_SUPPORTED_ONLY
    if (g.type == CURAND_RNG_PSEUDO_MTGP32) continue;
#endif
    curandGenerator_t gen;
    if (curandCreateGenerator(&gen, g.type) != CURAND_STATUS_SUCCESS) continue;
    CHECK(curandSetPseudoRandomGeneratorSeed(gen, 1234));
    const size_t n = 64;
    float* f;
    double* dd;
    unsigned* u;
    cudaMalloc(&f, n * sizeof(float));
    cudaMalloc(&dd, n * sizeof(double));
    cudaMalloc(&u, n * sizeof(unsigned));
    std::vector<float> hf(n);
    std::vector<double> hd(n);
    std::vector<unsigned> hu(n);
    CHECK(curandGenerateUniform(gen, f, n));
    cudaMemcpy(hf.data(), f, n * 4, cudaMemcpyDeviceToHost);
    std::printf("uniform %s", g.name);
    for (float x : hf) std::printf(" %.9g", x);
    std::printf("\n");
    CHECK(curandGenerateNormal(gen, f, n, 1.0f, 2.0f));
    cudaMemcpy(hf.data(), f, n * 4, cudaMemcpyDeviceToHost);
    std::printf("normal %s", g.name);
    for (float x : hf) std::printf(" %.9g", x);
    std::printf("\n");
    CHECK(curandGenerateUniformDouble(gen, dd, n));
    cudaMemcpy(hd.data(), dd, n * 8, cudaMemcpyDeviceToHost);
    std::printf("uniform_double %s", g.name);
    for (double x : hd) std::printf(" %.17g", x);
    std::printf("\n");
    CHECK(curandGenerateNormalDouble(gen, dd, n, 0.0, 1.0));
    cudaMemcpy(hd.data(), dd, n * 8, cudaMemcpyDeviceToHost);
    std::printf("normal_double %s", g.name);
    for (double x : hd) std::printf(" %.17g", x);
    std::printf("\n");
    CHECK(curandGenerateLogNormal(gen, f, n, 0.5f, 0.25f));
    cudaMemcpy(hf.data(), f, n * 4, cudaMemcpyDeviceToHost);
    std::printf("lognormal %s", g.name);
    for (float x : hf) std::printf(" %.9g", x);
    std::printf("\n");
#ifndef CUDALAB_CURAND_HOST_SUPPORTED_ONLY
    CHECK(curandGeneratePoisson(gen, u, n, 4.5));
    cudaMemcpy(hu.data(), u, n * 4, cudaMemcpyDeviceToHost);
    std::printf("poisson %s", g.name);
    for (unsigned x : hu) std::printf(" %u", x);
    std::printf("\n");
#endif
    // Odd sizes: what Normal does with an odd count.
    std::printf("normal_odd %s status %d\n", g.name, (int)curandGenerateNormal(gen, f, 3, 0, 1));
    cudaFree(f);
    cudaFree(dd);
    cudaFree(u);
    curandDestroyGenerator(gen);
  }
  // Host generators: the same sequence in host memory?
  curandGenerator_t hg;
  if (curandCreateGeneratorHost(&hg, CURAND_RNG_PSEUDO_XORWOW) == CURAND_STATUS_SUCCESS) {
    CHECK(curandSetPseudoRandomGeneratorSeed(hg, 1234));
    std::vector<unsigned> h(64);
    CHECK(curandGenerate(hg, h.data(), 64));
    std::printf("host_u32 xorwow");
    for (unsigned x : h) std::printf(" %08x", x);
    std::printf("\n");
    curandDestroyGenerator(hg);
  }
  return 0;
}

// The tests of this program (tests/lit/README.md): its output against an
// H100's (data/curand_host_gpu.txt). The simulator's build leaves out what
// it does not reproduce (tests/CMakeLists.txt defines
// CUDALAB_CURAND_HOST_SUPPORTED_ONLY for it), so at least 9000 values are
// compared; on a GPU the whole program runs.
// BUILD: GPU_LIBS CUDA::curand
// TEST: unit.curand_host_dump_matches_gpu
// LABELS: unit
// RUN: %bin | %python %project/tests/unit/curand_host_compare.py %data/curand_host_gpu.txt 9000
// CHECK: {{^}}compared
//
// TEST: gpu.curand_host_dump_matches_expected
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu | %python %project/tests/unit/curand_host_compare.py %data/curand_host_gpu.txt 9000
// CHECK: {{^}}compared
