// CUDA's math, integer intrinsics, conversions, half precision, vector types
// and atomics, checked against values CUDA documents (and, for rounding, the
// IEEE rules a GPU follows).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <cfenv>
#include <climits>
#include <cmath>
#include <vector>

namespace {

TEST(Language, IntegerIntrinsics) {
  EXPECT_EQ(__popc(0xF0F0u), 8);
  EXPECT_EQ(__popcll(~0ull), 64);
  EXPECT_EQ(__clz(1), 31);
  EXPECT_EQ(__clz(0), 32);
  EXPECT_EQ(__clzll(1), 63);
  EXPECT_EQ(__ffs(8), 4);
  EXPECT_EQ(__ffs(0), 0);
  EXPECT_EQ(__brev(1u), 0x80000000u);
  EXPECT_EQ(__brev(0x12345678u), 0x1e6a2c48u);
  EXPECT_EQ(__brevll(1ull), 1ull << 63);
  EXPECT_EQ(__byte_perm(0x33221100u, 0x77665544u, 0x5410u), 0x55441100u);
  EXPECT_EQ(__byte_perm(0x33221100u, 0x77665544u, 0x0123u), 0x00112233u);
  EXPECT_EQ(__umulhi(0xffffffffu, 2u), 1u);
  EXPECT_EQ(__mulhi(-2, 0x40000000), -1);
  EXPECT_EQ(__umul64hi(~0ull, 4ull), 3ull);
  EXPECT_EQ(__mul24(0x7fffff, 2), 16777214);
  EXPECT_EQ(__mul24(0xffffff, 3), -3) << "bit 23 is the sign of a 24-bit value";
  EXPECT_EQ(__umul24(0x1000001u, 5u), 5u) << "only the low 24 bits count";
  EXPECT_EQ(__funnelshift_l(0x80000000u, 1u, 1u), 3u);
  EXPECT_EQ(__funnelshift_r(0x1u, 0x1u, 1u), 0x80000000u);
  EXPECT_EQ(__funnelshift_lc(0u, 1u, 40u), 0u) << "clamped at 32: all of lo";
  EXPECT_EQ(__sad(3, 10, 5u), 12u);
  EXPECT_EQ(__hadd(-3, 0), -2);
  EXPECT_EQ(__rhadd(3, 0), 2);
  EXPECT_EQ(min(3, 7), 3);
  EXPECT_EQ(max(2.5f, -1.0f), 2.5f);
  EXPECT_EQ(min(-1, 2u), 2u) << "int and unsigned compare as unsigned, as in CUDA";
}

TEST(Language, ConversionsRoundAndSaturateAsTheGpu) {
  EXPECT_EQ(__float2int_rn(2.5f), 2);
  EXPECT_EQ(__float2int_rn(3.5f), 4);
  EXPECT_EQ(__float2int_rz(-2.7f), -2);
  EXPECT_EQ(__float2int_ru(2.1f), 3);
  EXPECT_EQ(__float2int_rd(-2.1f), -3);
  EXPECT_EQ(__float2int_rn(1e20f), INT_MAX);
  EXPECT_EQ(__float2int_rn(-1e20f), INT_MIN);
  EXPECT_EQ(__float2int_rn(NAN), 0);
  EXPECT_EQ(__float2uint_rn(-1.0f), 0u);
  EXPECT_EQ(__double2ll_rz(-1e300), LLONG_MIN);
  EXPECT_EQ(__int2float_rz(16777217), 16777216.0f);
  EXPECT_EQ(__int2float_ru(16777217), 16777218.0f);
  EXPECT_EQ(__int2float_rn(16777219), 16777220.0f);
  EXPECT_GT(__fadd_ru(1.0f, 1e-8f), 1.0f);
  EXPECT_EQ(__fadd_rd(1.0f, 1e-8f), 1.0f);
  EXPECT_EQ(__fadd_rn(1.0f, 1e-8f), 1.0f);
  EXPECT_LT(__fmul_rz(1.1f, 1.1f), __fmul_ru(1.1f, 1.1f));
  // Directed rounding brackets the exact result one step apart (what
  // interval arithmetic relies on), and the mode is the default again after.
  EXPECT_EQ(__ddiv_ru(1.0, 3.0), std::nextafter(__ddiv_rd(1.0, 3.0), 1.0));
  EXPECT_EQ(__dsqrt_ru(2.0), std::nextafter(__dsqrt_rd(2.0), 2.0));
  EXPECT_EQ(__dsqrt_rz(2.0), __dsqrt_rd(2.0));
  EXPECT_EQ(__dadd_ru(1.0, 1e-30), std::nextafter(1.0, 2.0));
  EXPECT_EQ(__dsub_rd(1.0, 1e-30), std::nextafter(1.0, 0.0));
  EXPECT_EQ(__fdiv_rd(-1.0f, 3.0f), std::nextafter(__fdiv_ru(-1.0f, 3.0f), -1.0f));
  volatile double one = 1.0, three = 3.0;
  EXPECT_EQ(one / three, __ddiv_rn(1.0, 3.0));
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
  EXPECT_EQ(__double2float_rd(0.1), std::nextafter(__double2float_ru(0.1), 0.0f));
  EXPECT_EQ(__float_as_int(1.0f), 0x3f800000);
  EXPECT_EQ(__uint_as_float(0x40490fdbu), 3.14159274f);
  EXPECT_EQ(__double2hiint(1.0), 0x3ff00000);
  EXPECT_EQ(__hiloint2double(0x3ff00000, 0), 1.0);
  EXPECT_FLOAT_EQ(rsqrtf(4.0f), 0.5f);
  EXPECT_NEAR(normcdff(0.0f), 0.5f, 1e-7);
  EXPECT_NEAR(normcdfinvf(0.975f), 1.959964f, 1e-5);
  EXPECT_NEAR(erfinvf(0.5f), 0.4769362762f, 1e-6);
  EXPECT_FLOAT_EQ(sinpif(0.5f), 1.0f);
  float s, c;
  sincosf(0.0f, &s, &c);
  EXPECT_EQ(c, 1.0f);
  EXPECT_EQ(__saturatef(1.5f), 1.0f);
}

TEST(Language, HalfPrecisionIsIeeeBinary16) {
  EXPECT_EQ(__half_as_ushort(__float2half(1.0f)), 0x3c00);
  EXPECT_EQ(__half_as_ushort(__float2half(0.1f)), 0x2e66);
  EXPECT_EQ(__half_as_ushort(__float2half(65504.0f)), 0x7bff);
  EXPECT_EQ(__half_as_ushort(__float2half(65520.0f)), 0x7c00) << "rounds to infinity";
  EXPECT_EQ(__half_as_ushort(__float2half_rz(65520.0f)), 0x7bff);
  EXPECT_EQ(__half_as_ushort(__float2half(5.9604645e-8f)), 0x0001) << "the smallest subnormal";
  EXPECT_EQ(__half_as_ushort(__float2half(-2.0f)), 0xc000);
  EXPECT_EQ(__half_as_ushort(__float2half(1.0f + 1.0f / 2048)), 0x3c00) << "a tie: to even";
  EXPECT_EQ(__half_as_ushort(__float2half(1.0f + 3.0f / 2048)), 0x3c02);
  EXPECT_EQ(__half2float(__ushort_as_half(0x0001)), 5.9604645e-8f);
  EXPECT_TRUE(__hisnan(__float2half(NAN)));
  EXPECT_EQ(__hisinf(__float2half(-INFINITY)), -1);
  const __half a = __float2half(0.1f), b = __float2half(0.2f);
  EXPECT_EQ(__half_as_ushort(a + b), 0x34cc) << "0.2999267578125 is a tie: to even";
  const __half2 v = __floats2half2_rn(1.5f, -2.0f);
  const float2 f = __half22float2(__hmul2(v, v));
  EXPECT_EQ(f.x, 2.25f);
  EXPECT_EQ(f.y, 4.0f);
}

// Every integer type converts to half and bfloat16, as CUDA's constructors
// allow (a size_t included), rounded once.
TEST(Language, IntegersConvertToSixteenBitFloats) {
  const __half h = size_t(3), k = 70000u;
  const __nv_bfloat16 b = size_t(3), c = (1 << 24) + (1 << 16) + 1;
  EXPECT_EQ(__half2float(h), 3.0f);
  EXPECT_TRUE(__hisinf(k));
  EXPECT_EQ(__bfloat162float(b), 3.0f);
  EXPECT_EQ(__bfloat162float(c), float((1 << 24) + (1 << 17))) << "rounded once, not twice";
}

TEST(Language, VectorTypesHaveCudasSizesAndAlignments) {
  EXPECT_EQ(sizeof(float4), 16u);
  EXPECT_EQ(alignof(float4), 16u);
  EXPECT_EQ(sizeof(float3), 12u);
  EXPECT_EQ(alignof(float2), 8u);
  EXPECT_EQ(alignof(char4), 4u);
  EXPECT_EQ(alignof(short2), 4u);
  EXPECT_EQ(sizeof(double2), 16u);
  EXPECT_EQ(alignof(int4), 16u);
  const float4 v = make_float4(1, 2, 3, 4);
  EXPECT_EQ(v.w, 4.0f);
  const uint3 u = make_uint3(1, 2, 3);
  EXPECT_EQ(dim3(u).z, 3u);
}

__global__ void atomics(int* counters, unsigned* wrap, double* dsum, unsigned short* cas,
                        __half2* hsum, unsigned long long* bits) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&counters[0], 1);
  atomicMax(&counters[1], t);
  atomicMin(&counters[2], -t);
  atomicSub(&counters[3], 2);
  atomicInc(&wrap[0], 9u);  // counts 0..9 and wraps
  atomicDec(&wrap[1], 9u);
  atomicAdd(dsum, 0.5);
  atomicCAS(cas, (unsigned short)0, (unsigned short)7);
  atomicAdd(hsum, __floats2half2_rn(1.0f, 2.0f));
  atomicOr(bits, 1ull << (t % 64));
  atomicAdd_block(&counters[4], 1);
  atomicExch(&counters[5], 42);
}

TEST(Language, AtomicsFromManyBlocks) {
  int* c;
  unsigned* w;
  double* d;
  unsigned short* s;
  __half2* h;
  unsigned long long* b;
  cudaMalloc(&c, 6 * sizeof(int));
  cudaMalloc(&w, 2 * sizeof(unsigned));
  cudaMalloc(&d, sizeof(double));
  cudaMalloc(&s, sizeof(unsigned short));
  cudaMalloc(&h, sizeof(__half2));
  cudaMalloc(&b, sizeof(unsigned long long));
  cudaMemset(c, 0, 6 * sizeof(int));
  cudaMemset(w, 0, 2 * sizeof(unsigned));
  cudaMemset(d, 0, sizeof(double));
  cudaMemset(s, 0, sizeof(unsigned short));
  cudaMemset(h, 0, sizeof(__half2));
  cudaMemset(b, 0, sizeof(unsigned long long));
  atomics<<<50, 64>>>(c, w, d, s, h, b);  // 3200 threads
  int hc[6];
  unsigned hw[2];
  double hd;
  unsigned short hs;
  __half2 hh;
  unsigned long long hb;
  cudaMemcpy(hc, c, sizeof(hc), cudaMemcpyDeviceToHost);
  cudaMemcpy(hw, w, sizeof(hw), cudaMemcpyDeviceToHost);
  cudaMemcpy(&hd, d, sizeof(hd), cudaMemcpyDeviceToHost);
  cudaMemcpy(&hs, s, sizeof(hs), cudaMemcpyDeviceToHost);
  cudaMemcpy(&hh, h, sizeof(hh), cudaMemcpyDeviceToHost);
  ASSERT_EQ(cudaMemcpy(&hb, b, sizeof(hb), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(hc[0], 3200);
  EXPECT_EQ(hc[1], 3199);
  EXPECT_EQ(hc[2], -3199);
  EXPECT_EQ(hc[3], -6400);
  EXPECT_EQ(hc[4], 3200);
  EXPECT_EQ(hc[5], 42);
  EXPECT_EQ(hw[0], 3200u % 10);
  EXPECT_EQ(hw[1], (10u - 3200u % 10) % 10) << "0 -> 9 -> 8 ...";
  EXPECT_EQ(hd, 1600.0);
  EXPECT_EQ(hs, 7);
  EXPECT_EQ(__low2float(hh), 2048.0f) << "half stops counting by 1 at 2048";
  EXPECT_EQ(hb, ~0ull);
  for (void* p : {(void*)c, (void*)w, (void*)d, (void*)s, (void*)h, (void*)b}) cudaFree(p);
}

__global__ void vectors(const float4* in, float4* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 v = __ldg(&in[i]);
  out[i] = make_float4(v.w, v.z, v.y, v.x);
}

TEST(Language, Float4LoadsAndStores) {
  std::vector<float4> h(100);
  for (int i = 0; i < 100; ++i) h[i] = make_float4(i, i + 0.25f, i + 0.5f, i + 0.75f);
  float4 *in, *out;
  cudaMalloc(&in, 100 * sizeof(float4));
  cudaMalloc(&out, 100 * sizeof(float4));
  cudaMemcpy(in, h.data(), 100 * sizeof(float4), cudaMemcpyHostToDevice);
  vectors<<<4, 32>>>(in, out, 100);
  cudaMemcpy(h.data(), out, 100 * sizeof(float4), cudaMemcpyDeviceToHost);
  EXPECT_EQ(h[7].x, 7.75f);
  EXPECT_EQ(h[7].w, 7.0f);
  cudaFree(in);
  cudaFree(out);
}

// A kernel template whose pointers are `T* __restrict__` (HeCBench's
// perplexity): the parameters' types keep the qualifier, which a launch's
// copy of its arguments must take the address of.
template <typename T>
__global__ void scaled(const T* __restrict__ in, T* __restrict__ out, const T by) {
  out[threadIdx.x] = in[threadIdx.x] * by;
}

// Its launch from a function template whose own pointers are restrict
// (perplexity's perplexity_search): the launch's arguments are then
// restrict pointers themselves.
template <typename I, typename T>
void scale_by_two(const T* __restrict__ in, T* __restrict__ out) {
  scaled<T><<<1, 32>>>(in, out, T(2));
}

TEST(Language, KernelTemplatesTakeRestrictPointers) {
  float *in, *out;
  cudaMalloc(&in, 32 * sizeof(float));
  cudaMalloc(&out, 32 * sizeof(float));
  std::vector<float> h(32, 1.5f);
  cudaMemcpy(in, h.data(), 32 * sizeof(float), cudaMemcpyHostToDevice);
  scaled<float><<<1, 32>>>(in, out, 2.0f);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaMemcpy(h.data(), out, 32 * sizeof(float), cudaMemcpyDeviceToHost);
  EXPECT_EQ(h[31], 3.0f);
  cudaMemset(out, 0, 32 * sizeof(float));
  scale_by_two<int, float>(in, out);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaMemcpy(h.data(), out, 32 * sizeof(float), cudaMemcpyDeviceToHost);
  EXPECT_EQ(h[0], 3.0f);
  cudaFree(in);
  cudaFree(out);
}

// The largest parameters CUDA 12.1 and later take (32,764 bytes; NVIDIA's
// LargeKernelParameter sample): each thread's call copies them onto its
// stack, which must hold them (it ran out at 64 KiB).
struct LargeParam {
  int value[8190];
};
__global__ void sum_large(__grid_constant__ const LargeParam p, int* out) {
  int sum = 0;
  for (int i = 0; i < 8190; ++i) sum += p.value[i];
  if (threadIdx.x == 31) *out = sum;
}

TEST(Language, ThirtyTwoKilobyteParametersFit) {
  static LargeParam p;
  for (int i = 0; i < 8190; ++i) p.value[i] = i % 7;
  int* out;
  cudaMalloc(&out, sizeof(int));
  sum_large<<<2, 32>>>(p, out);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  int sum = 0;
  cudaMemcpy(&sum, out, sizeof(int), cudaMemcpyDeviceToHost);
  int want = 0;
  for (int i = 0; i < 8190; ++i) want += i % 7;
  EXPECT_EQ(sum, want);
  cudaFree(out);
}

// A .cu file is compiled as nvcc would: code that asks which compiler it is
// (`#ifdef __NVCC__`, HeCBench's ssim and lr) takes the CUDA path.
TEST(Language, ACuFileIsCompiledAsNvccWould) {
#if !defined(__NVCC__) || !defined(__CUDACC__) || __CUDA_ARCH__ != 900
  FAIL() << "__NVCC__, __CUDACC__ or __CUDA_ARCH__ is not what nvcc for an H100 defines";
#endif
  EXPECT_EQ(__CUDACC_VER_MAJOR__ * 1000 + __CUDACC_VER_MINOR__ * 10, CUDART_VERSION);
}

// CUDA's math API has the classification functions in the global namespace
// (HeCBench's hellinger calls signbit so).
__global__ void classify(const float* in, int* out) {
  const float x = in[threadIdx.x];
  out[threadIdx.x] = signbit(x) | isnan(x) << 1 | isinf(x) << 2 | isfinite(x) << 3;
}

TEST(Language, ClassificationFunctionsAreGlobal) {
  const std::vector<float> h = {-1.0f, 0.0f, NAN, -INFINITY};
  float* in;
  int* out;
  cudaMalloc(&in, 4 * sizeof(float));
  cudaMalloc(&out, 4 * sizeof(int));
  cudaMemcpy(in, h.data(), 4 * sizeof(float), cudaMemcpyHostToDevice);
  classify<<<1, 4>>>(in, out);
  std::vector<int> r(4);
  cudaMemcpy(r.data(), out, 4 * sizeof(int), cudaMemcpyDeviceToHost);
  EXPECT_EQ(r, (std::vector<int>{9, 8, 2, 5}));
  cudaFree(in);
  cudaFree(out);
}

}  // namespace

// Inline PTX (simulator/rewriter/inline_ptx.cpp): what a GPU refuses at run time
// stops the kernel with the GPU's error and a message naming the instruction.
__global__ void misaligned_vector_store(unsigned* p) {
  asm volatile("st.global.v2.u32 [%0+4], {%1, %2};" ::"l"(p), "r"(1u), "r"(2u) : "memory");
}
// A packing of shfl.sync's c that CUDA's __shfl_*_sync never make (segment
// mask 0x07, clamp 3) runs as the PTX ISA says (the H100 agreed on three
// such packings in tests/programs/inline_ptx.cu): lane i reads lane i & 7.
__global__ void odd_shuffle_packing(unsigned* out) {
  unsigned v;
  asm volatile("shfl.sync.idx.b32 %0, %1, 0, 0x0703, 0xffffffff;" : "=r"(v) : "r"(threadIdx.x));
  out[threadIdx.x] = v;
}
__global__ void guarded_ptx(const int* in, int* out) {
  int r;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
  // Not translated, but dropped by the preprocessor: the file still builds.
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(0u), "l"(in));
#endif
  asm("{ .reg .pred neg; setp.lt.s32 neg, %1, 0; mov.s32 %0, %1; @neg neg.s32 %0, %0; }"
      : "=r"(r)
      : "r"(in[threadIdx.x]));
  out[threadIdx.x] = r;
}

TEST(Language, InlinePtxRunsAndStopsWhereAGpuWould) {
  int *in, *out;
  ASSERT_EQ(cudaMallocManaged(&in, 4 * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMallocManaged(&out, 4 * sizeof(int)), cudaSuccess);
  const int values[4] = {-5, 7, INT_MIN + 1, 0};
  for (int i = 0; i < 4; ++i) in[i] = values[i];
  guarded_ptx<<<1, 4>>>(in, out);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(out[0], 5);
  EXPECT_EQ(out[1], 7);
  EXPECT_EQ(out[2], INT_MAX);
  EXPECT_EQ(out[3], 0);

  unsigned* p;
  ASSERT_EQ(cudaMalloc(&p, 64), cudaSuccess);
  testing::internal::CaptureStderr();
  misaligned_vector_store<<<1, 1>>>(p);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorMisalignedAddress);
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("st.global.v2.u32"), std::string::npos) << said;
  EXPECT_NE(said.find("not a multiple of 8"), std::string::npos) << said;
  cudaDeviceReset();

  unsigned* lanes;
  ASSERT_EQ(cudaMallocManaged(&lanes, 32 * sizeof(unsigned)), cudaSuccess);
  odd_shuffle_packing<<<1, 32>>>(lanes);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (unsigned i = 0; i < 32; ++i) EXPECT_EQ(lanes[i], i & 7) << "lane " << i;
  cudaDeviceReset();
}
