// CUDA's SIMD intrinsics (two 16-bit or four 8-bit lanes in a word:
// __vadd2, __vcmpgeu4, __vsads2, ...) and DPX intrinsics (CUDA 12's
// __vimax3_s16x2, __viaddmin_u32, __vibmax_s32, ...) on every pair (for
// three operands, every triple of the first seven) of words whose lanes
// hold the awkward values: 0, 1, -1, the largest and smallest of each
// width, and mixtures. One line per function, its results in hex, so that
// the simulator's lines can be compared with a GPU's
// (tests/data/simd_intrinsics_gpu.txt, taken on an H100).
#include <cstdio>

namespace {

constexpr int kWords = 12;
constexpr int kTriple = 7;  // words used as three operands
__constant__ unsigned kWord[kWords] = {
    0x00000000u, 0x00010001u, 0xffffffffu, 0x7fff7fffu, 0x80008000u, 0x7f807f80u,
    0x80017fffu, 0x01ff80feu, 0x12345678u, 0xfedcba98u, 0x7f7f8080u, 0x00ff7f01u};

unsigned* g_out;

void print(const char* name, int count, cudaError_t launched) {
  const cudaError_t e = launched != cudaSuccess ? launched : cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("%s: %s\n", name, cudaGetErrorString(e));
    return;
  }
  static unsigned host[2 * kWords * kWords * kWords];
  cudaMemcpy(host, g_out, sizeof(unsigned) * count, cudaMemcpyDeviceToHost);
  std::printf("%s:", name);
  for (int i = 0; i < count; ++i) std::printf(i && i % kWords == 0 ? "\n  %x" : " %x", host[i]);
  std::printf("\n");
}

}  // namespace

// A kernel per function: one thread computes it on every pair of words.
#define BINARY(f)                                                                       \
  __global__ void run_##f(unsigned* out) {                                              \
    for (int i = 0; i < kWords; ++i)                                                    \
      for (int j = 0; j < kWords; ++j) out[i * kWords + j] = f(kWord[i], kWord[j]);    \
  }
#define UNARY(f)                                                        \
  __global__ void run_##f(unsigned* out) {                              \
    for (int i = 0; i < kWords; ++i) out[i] = f(kWord[i]);              \
  }
#define BOTH_WIDTHS(BODY, name) BODY(name##2) BODY(name##4)
#define EACH_BINARY(X)                                                                          \
  X(__vadd) X(__vsub) X(__vaddss) X(__vsubss) X(__vaddus) X(__vsubus) X(__vabsdiffs)            \
  X(__vabsdiffu) X(__vavgs) X(__vavgu) X(__vhaddu) X(__vmaxs) X(__vmaxu) X(__vmins) X(__vminu)  \
  X(__vcmpeq) X(__vcmpne) X(__vcmpges) X(__vcmpgeu) X(__vcmpgts) X(__vcmpgtu) X(__vcmples)      \
  X(__vcmpleu) X(__vcmplts) X(__vcmpltu) X(__vseteq) X(__vsetne) X(__vsetges) X(__vsetgeu)      \
  X(__vsetgts) X(__vsetgtu) X(__vsetles) X(__vsetleu) X(__vsetlts) X(__vsetltu) X(__vsads)      \
  X(__vsadu)
#define EACH_UNARY(X) X(__vabs) X(__vabsss) X(__vneg) X(__vnegss)

#define TERNARY(f)                                                                      \
  __global__ void run_##f(unsigned* out) {                                              \
    for (int i = 0; i < kTriple; ++i)                                                   \
      for (int j = 0; j < kTriple; ++j)                                                 \
        for (int k = 0; k < kTriple; ++k)                                               \
          out[(i * kTriple + j) * kTriple + k] = f(kWord[i], kWord[j], kWord[k]);       \
  }
// The result, then the outcomes' bits (pred, or pred_hi * 2 + pred_lo).
#define CHOOSE32(f)                                                                     \
  __global__ void run_##f(unsigned* out) {                                              \
    for (int i = 0; i < kWords; ++i)                                                    \
      for (int j = 0; j < kWords; ++j) {                                                \
        bool pred = false;                                                              \
        out[2 * (i * kWords + j)] = f(kWord[i], kWord[j], &pred);                       \
        out[2 * (i * kWords + j) + 1] = pred;                                           \
      }                                                                                 \
  }
#define CHOOSE16(f)                                                                     \
  __global__ void run_##f(unsigned* out) {                                              \
    for (int i = 0; i < kWords; ++i)                                                    \
      for (int j = 0; j < kWords; ++j) {                                                \
        bool hi = false, lo = false;                                                    \
        out[2 * (i * kWords + j)] = f(kWord[i], kWord[j], &hi, &lo);                    \
        out[2 * (i * kWords + j) + 1] = hi * 2 + lo;                                    \
      }                                                                                 \
  }
#define EACH_DPX_BINARY(X) \
  X(__vimax_s32_relu) X(__vimin_s32_relu) X(__vimax_s16x2_relu) X(__vimin_s16x2_relu)
#define EACH_DPX_TERNARY(X)                                                             \
  X(__vimax3_s32) X(__vimax3_u32) X(__vimax3_s16x2) X(__vimax3_u16x2)                   \
  X(__vimax3_s32_relu) X(__vimax3_s16x2_relu) X(__vimin3_s32) X(__vimin3_u32)           \
  X(__vimin3_s16x2) X(__vimin3_u16x2) X(__vimin3_s32_relu) X(__vimin3_s16x2_relu)       \
  X(__viaddmax_s32) X(__viaddmax_u32) X(__viaddmax_s16x2) X(__viaddmax_u16x2)           \
  X(__viaddmax_s32_relu) X(__viaddmax_s16x2_relu) X(__viaddmin_s32) X(__viaddmin_u32)   \
  X(__viaddmin_s16x2) X(__viaddmin_u16x2) X(__viaddmin_s32_relu) X(__viaddmin_s16x2_relu)
#define EACH_DPX_CHOOSE32(X) X(__vibmax_s32) X(__vibmax_u32) X(__vibmin_s32) X(__vibmin_u32)
#define EACH_DPX_CHOOSE16(X) \
  X(__vibmax_s16x2) X(__vibmax_u16x2) X(__vibmin_s16x2) X(__vibmin_u16x2)
EACH_DPX_BINARY(BINARY)
EACH_DPX_TERNARY(TERNARY)
EACH_DPX_CHOOSE32(CHOOSE32)
EACH_DPX_CHOOSE16(CHOOSE16)

#define DEFINE_BINARY(name) BOTH_WIDTHS(BINARY, name)
#define DEFINE_UNARY(name) BOTH_WIDTHS(UNARY, name)
EACH_BINARY(DEFINE_BINARY)
EACH_UNARY(DEFINE_UNARY)

#define RUN(f, count)          \
  run_##f<<<1, 1>>>(g_out);    \
  print(#f, count, cudaGetLastError());
#define RUN_BINARY(name) RUN(name##2, kWords * kWords) RUN(name##4, kWords * kWords)
#define RUN_UNARY(name) RUN(name##2, kWords) RUN(name##4, kWords)

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device\n");
    return 77;
  }
  cudaMalloc(&g_out, sizeof(unsigned) * 2 * kWords * kWords * kWords);
  EACH_BINARY(RUN_BINARY)
  EACH_UNARY(RUN_UNARY)
#define RUN_PAIRS(f) RUN(f, kWords* kWords)
#define RUN_TRIPLES(f) RUN(f, kTriple* kTriple* kTriple)
#define RUN_CHOICES(f) RUN(f, 2 * kWords * kWords)
  EACH_DPX_BINARY(RUN_PAIRS)
  EACH_DPX_TERNARY(RUN_TRIPLES)
  EACH_DPX_CHOOSE32(RUN_CHOICES)
  EACH_DPX_CHOOSE16(RUN_CHOICES)
  return 0;
}

// The tests of this program (tests/lit/README.md): both builds print what
// an H100 printed (data/simd_intrinsics_gpu.txt).
// BUILD:
// TEST: unit.simd_intrinsics_match_gpu
// LABELS: unit
// RUN: %bin > simd_intrinsics_sim.txt
// RUN: diff simd_intrinsics_sim.txt %data/simd_intrinsics_gpu.txt
//
// TEST: gpu.simd_intrinsics_match_expected
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu > simd_intrinsics_gpu_now.txt
// RUN: diff simd_intrinsics_gpu_now.txt %data/simd_intrinsics_gpu.txt
