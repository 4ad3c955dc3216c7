// Half precision (cuda_fp16.h), bfloat16 (cuda_bf16.h) and complex numbers
// (cuComplex.h) on awkward inputs: zeros of both signs, subnormals, the largest half, infinities,
// NaN, ties. Every function runs in a kernel and prints its results' bits,
// one line per function, so that the simulator's lines can be compared
// with a GPU's (tests/data/half_complex_gpu.txt, taken on an H100).
// Values marked `~h` (half) or `~b` (bfloat16) are of functions a GPU
// computes with an approximation: printed as decimals, they are compared
// within one unit in the last place of their format. (On a GPU it needs nvcc's --extended-lambda.)
#include <cuComplex.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <climits>
#include <cstdio>
#include <cstring>

namespace {

constexpr int kHalves = 20;
// The inputs' bits: 0, -0, 1, -1, 0.5, 1.5, 2.5, -2.5, 3.140625, 1 + 2^-10,
// the smallest subnormal, the largest subnormal, the smallest normal,
// 65504, -65504, 1000, 0.0999755859375, +inf, -inf, NaN.
__constant__ unsigned short kHalfBits[kHalves] = {
    0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x3e00, 0x4100, 0xc100, 0x4248, 0x3c01,
    0x0001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x63d0, 0x2e66, 0x7c00, 0xfc00, 0x7e00};
// The same values as bfloat16 (1 + 2^-7 for 1 + 2^-10, 3.140625 as
// 3.140625, the largest finite bfloat16 for 65504).
__constant__ unsigned short kBfloat16Bits[kHalves] = {
    0x0000, 0x8000, 0x3f80, 0xbf80, 0x3f00, 0x3fc0, 0x4020, 0xc020, 0x4049, 0x3f81,
    0x0001, 0x007f, 0x0080, 0x7f7f, 0xff7f, 0x447a, 0x3dcd, 0x7f80, 0xff80, 0x7fc0};
// Floats to round to bfloat16: ties, just past them, the largest, NaN.
constexpr int kFloats = 10;
__constant__ float kFloatsToRound[kFloats] = {
    1.00390625f, 1.01171875f, 1.0039063f, -1.00390625f, 3.3895314e38f,
    3.4028235e38f, 1e-40f, -2.5f,      0.1f,           NAN};
// Doubles whose rounding to 16 bits a rounding to float first would change
// (just past a tie of either format), and plain ones.
constexpr int kDoubles = 8;
__constant__ double kDoublesToRound[kDoubles] = {
    1.0 + 0x1p-8 + 0x1p-40,  1.0 + 0x1p-11 + 0x1p-40, -(1.0 + 0x1p-8 + 0x1p-40),
    1.0 + 0x1p-8,            65519.999999,           3.5e38,
    1e-300,                  -2.75};
// Fused multiply-adds (bits of a, b, c) whose product is a tie that only a
// tiny c breaks, as half and as bfloat16.
constexpr int kFmas = 4;
__constant__ unsigned short kHalfFmas[kFmas][3] = {
    {0x4200, 0x3c01, 0x0001}, {0x4200, 0x3c01, 0x8001}, {0x4200, 0x3c01, 0x0000}, {0x7bff, 0x7bff, 0xfc00}};
__constant__ unsigned short kBfloat16Fmas[kFmas][3] = {
    {0x4040, 0x3f81, 0x2180}, {0x4040, 0x3f81, 0xa180}, {0x4040, 0x3f81, 0x0000}, {0x7f7f, 0x7f7f, 0xff80}};
constexpr int kInts = 12;
__constant__ long long kInts64[kInts] = {0,     1,     -1,     2049,          2051,      65519,
                                         65520, 70000, -70000, 1ll << 40, INT_MIN, -3};
constexpr int kComplex = 8;
// Pairs (re, im): ordinary, tiny and huge parts (where squares overflow or
// underflow), zero, infinity and NaN.
__constant__ float kComplexParts[kComplex][2] = {
    {3.0f, 4.0f},   {-1.5f, 0.25f},  {1e30f, 1e30f},        {3e-30f, -4e-30f},
    {0.0f, 0.0f},   {1.0f, -1e-20f}, {INFINITY, 1.0f},      {NAN, 2.0f}};

template <class T>
__device__ T value_at(int i);
template <>
__device__ __half value_at<__half>(int i) {
  return __ushort_as_half(kHalfBits[i]);
}
template <>
__device__ __nv_bfloat16 value_at<__nv_bfloat16>(int i) {
  return __ushort_as_bfloat16(kBfloat16Bits[i]);
}

// The bits of float and double results, any NaN as one value: the
// simulator's float arithmetic gives the host's NaNs, not a GPU's.
__device__ unsigned* put(unsigned* o, float f) {
  if (f != f) f = __int_as_float(0x7fffffff);
  memcpy(o, &f, 4);
  return o + 1;
}
__device__ unsigned* put(unsigned* o, double d) {
  const unsigned long long bits = d != d ? 0x7fffffffffffffffull : __double_as_longlong(d);
  memcpy(o, &bits, 8);
  return o + 2;
}
__device__ unsigned* put(unsigned* o, cuFloatComplex z) { return put(put(o, z.x), z.y); }
__device__ unsigned* put(unsigned* o, cuDoubleComplex z) { return put(put(o, z.x), z.y); }

// One function of one value, on every input.
template <class T, class F>
__global__ void unary(F f, unsigned* out) {
  for (int i = 0; i < kHalves; ++i) out[i] = f(value_at<T>(i));
}
// Of two, on every pair.
template <class T, class F>
__global__ void binary(F f, unsigned* out) {
  for (int i = 0; i < kHalves; ++i)
    for (int j = 0; j < kHalves; ++j) out[i * kHalves + j] = f(value_at<T>(i), value_at<T>(j));
}
__global__ void from_double(unsigned* out) {
  for (int i = 0; i < kDoubles; ++i)
    out[i] = __half_as_ushort(__double2half(kDoublesToRound[i])) |
             unsigned(__bfloat16_as_ushort(__double2bfloat16(kDoublesToRound[i]))) << 16;
}
__global__ void fmas(unsigned* out) {
  for (int i = 0; i < kFmas; ++i) {
    const __half a = __ushort_as_half(kHalfFmas[i][0]), b = __ushort_as_half(kHalfFmas[i][1]),
                 c = __ushort_as_half(kHalfFmas[i][2]);
    const __nv_bfloat16 x = __ushort_as_bfloat16(kBfloat16Fmas[i][0]),
                        y = __ushort_as_bfloat16(kBfloat16Fmas[i][1]),
                        z = __ushort_as_bfloat16(kBfloat16Fmas[i][2]);
    out[i] = __half_as_ushort(__hfma(a, b, c)) | unsigned(__bfloat16_as_ushort(__hfma(x, y, z))) << 16;
  }
}
template <class F>
__global__ void from_float(F f, unsigned* out) {
  for (int i = 0; i < kFloats; ++i) out[i] = f(kFloatsToRound[i]);
}
template <class F>
__global__ void from_int(F f, unsigned* out) {
  for (int i = 0; i < kInts; ++i) out[i] = f(kInts64[i]);
}
template <int kWords, class F>
__global__ void complex_pairs(F f, unsigned* out) {
  for (int i = 0; i < kComplex; ++i)
    for (int j = 0; j < kComplex; ++j) {
      const cuFloatComplex a = make_cuFloatComplex(kComplexParts[i][0], kComplexParts[i][1]);
      const cuFloatComplex b = make_cuFloatComplex(kComplexParts[j][0], kComplexParts[j][1]);
      f(a, b, &out[(i * kComplex + j) * kWords]);
    }
}

unsigned* g_out;

enum class Shown { kBits, kHalf, kBfloat16 };
// Runs the kernel and prints `count` words of results: bits in hex, or the
// halves or bfloat16 values as decimals marked `~h` or `~b`.
void print(const char* name, int count, Shown shown = Shown::kBits) {
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("%s: %s\n", name, cudaGetErrorString(e));
    return;
  }
  static unsigned host[4096];
  cudaMemcpy(host, g_out, sizeof(unsigned) * count, cudaMemcpyDeviceToHost);
  std::printf("%s:", name);
  for (int i = 0; i < count; ++i) {
    if (i && i % 20 == 0) std::printf("\n ");
    const unsigned short bits = (unsigned short)host[i];
    if (shown == Shown::kHalf) {
      __half h;
      std::memcpy(&h, &bits, 2);
      std::printf(" ~h %.9g", double(__half2float(h)));
    } else if (shown == Shown::kBfloat16) {
      __nv_bfloat16 b;
      std::memcpy(&b, &bits, 2);
      std::printf(" ~b %.9g", double(__bfloat162float(b)));
    } else {
      std::printf(" %x", host[i]);
    }
  }
  std::printf("\n");
}

}  // namespace

#define BITS(expr) __half_as_ushort(expr)
#define UNARY(name, expr)                                                               \
  unary<__half><<<1, 1>>>([] __device__(__half a) -> unsigned { return expr; }, g_out); \
  print(name, kHalves)
#define UNARY_APPROX(name, expr)                                                        \
  unary<__half><<<1, 1>>>([] __device__(__half a) -> unsigned { return expr; }, g_out); \
  print(name, kHalves, Shown::kHalf)
#define BINARY(name, expr)                                                                \
  binary<__half><<<1, 1>>>([] __device__(__half a, __half b) -> unsigned { return expr; }, \
                           g_out);                                                        \
  print(name, kHalves * kHalves)
#define FROM_INT(name, expr)                                                            \
  from_int<<<1, 1>>>([] __device__(long long i) -> unsigned { return expr; }, g_out); \
  print(name, kInts)
#define BF_BITS(expr) __bfloat16_as_ushort(expr)
#define BF_UNARY(name, expr)                                                                 \
  unary<__nv_bfloat16><<<1, 1>>>([] __device__(__nv_bfloat16 a) -> unsigned { return expr; }, \
                                 g_out);                                                     \
  print(name, kHalves)
#define BF_UNARY_APPROX(name, expr)                                                          \
  unary<__nv_bfloat16><<<1, 1>>>([] __device__(__nv_bfloat16 a) -> unsigned { return expr; }, \
                                 g_out);                                                     \
  print(name, kHalves, Shown::kBfloat16)
#define BF_BINARY(name, expr)                                                         \
  binary<__nv_bfloat16><<<1, 1>>>(                                                    \
      [] __device__(__nv_bfloat16 a, __nv_bfloat16 b) -> unsigned { return expr; }, g_out); \
  print(name, kHalves * kHalves)
#define FROM_FLOAT(name, expr)                                                        \
  from_float<<<1, 1>>>([] __device__(float f) -> unsigned { return expr; }, g_out); \
  print(name, kFloats)

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device\n");
    return 77;
  }
  cudaMalloc(&g_out, sizeof(unsigned) * 4096);

  // Conversions.
  UNARY("half2float", [](float f) {
    unsigned u;
    memcpy(&u, &f, 4);
    return u;
  }(__half2float(a)));
  UNARY("half2int_rz", unsigned(__half2int_rz(a)));
  UNARY("half2int_rn", unsigned(__half2int_rn(a)));
  UNARY("half2uint_rz", __half2uint_rz(a));
  UNARY("half2short_rz", unsigned((unsigned short)__half2short_rz(a)));
  UNARY("half2ushort_rz", unsigned(__half2ushort_rz(a)));
  UNARY("half2ll_rz", unsigned(__half2ll_rz(a) >> 32) ^ unsigned(__half2ll_rz(a)));
  UNARY("half2ull_rz", unsigned(__half2ull_rz(a) >> 32) ^ unsigned(__half2ull_rz(a)));
  FROM_INT("int2half_rn", BITS(__int2half_rn(int(i))));
  FROM_INT("uint2half_rn", BITS(__uint2half_rn(unsigned(i))));
  FROM_INT("short2half_rn", BITS(__short2half_rn(short(i))));
  FROM_INT("ushort2half_rn", BITS(__ushort2half_rn((unsigned short)(i))));
  FROM_INT("ll2half_rn", BITS(__ll2half_rn(i)));
  FROM_INT("ull2half_rn", BITS(__ull2half_rn((unsigned long long)(i))));

  // Exact arithmetic, comparisons, minimum and maximum.
  UNARY("neg", BITS(-a));
  UNARY("habs", BITS(__habs(a)));
  UNARY("increment", [](__half x) { ++x; return BITS(x); }(a));
  UNARY("htrunc", BITS(htrunc(a)));
  UNARY("hrint", BITS(hrint(a)));
  UNARY("hfloor", BITS(hfloor(a)));
  UNARY("hceil", BITS(hceil(a)));
  UNARY("hsqrt", BITS(hsqrt(a)));
  BINARY("hadd", BITS(__hadd(a, b)));
  BINARY("hsub", BITS(__hsub(a, b)));
  BINARY("hmul", BITS(__hmul(a, b)));
  BINARY("hdiv", BITS(__hdiv(a, b)));
  BINARY("hfma_a_b_a", BITS(__hfma(a, b, a)));
  BINARY("hfma_a_a_b", BITS(__hfma(a, a, b)));
  BINARY("hadd_sat", BITS(__hadd_sat(a, b)));
  BINARY("hmul_sat", BITS(__hmul_sat(a, b)));
  BINARY("hmax", BITS(__hmax(a, b)));
  BINARY("hmin", BITS(__hmin(a, b)));
  BINARY("hmax_nan", BITS(__hmax_nan(a, b)));
  BINARY("hmin_nan", BITS(__hmin_nan(a, b)));
  BINARY("compare", unsigned(__heq(a, b)) | __hne(a, b) << 1 | __hlt(a, b) << 2 |
                        __hle(a, b) << 3 | __hgt(a, b) << 4 | __hge(a, b) << 5 |
                        __hequ(a, b) << 6 | __hneu(a, b) << 7 | __hltu(a, b) << 8 |
                        __hleu(a, b) << 9 | __hgtu(a, b) << 10 | __hgeu(a, b) << 11);
  BINARY("operators", unsigned(a == b) | (a != b) << 1 | (a < b) << 2 | (a <= b) << 3 |
                          (a > b) << 4 | (a >= b) << 5);
  BINARY("half2_lanes", ([](__half2 x, __half2 y) {
    const __half2 lt = __hlt2(x, y), ne = __hneu2(x, y), m = __hmax2(x, y), s = x - y;
    return unsigned(BITS(__low2half(lt))) ^ unsigned(BITS(__high2half(ne))) << 16 ^
           unsigned(BITS(__high2half(m))) ^ unsigned(BITS(__low2half(s))) << 16 ^
           unsigned(__hbgt2(x, y)) << 31 ^ unsigned(x != y) << 30;
  }(__halves2half2(a, b), __halves2half2(b, a))));

  // Functions a GPU approximates (compared within a bound).
  UNARY_APPROX("hrsqrt", BITS(hrsqrt(a)));
  UNARY_APPROX("hrcp", BITS(hrcp(a)));
  UNARY_APPROX("hexp", BITS(hexp(a)));
  UNARY_APPROX("hexp2", BITS(hexp2(a)));
  UNARY_APPROX("hexp10", BITS(hexp10(a)));
  UNARY_APPROX("hlog", BITS(hlog(a)));
  UNARY_APPROX("hlog2", BITS(hlog2(a)));
  UNARY_APPROX("hlog10", BITS(hlog10(a)));
  UNARY_APPROX("hsin", BITS(hsin(a)));
  UNARY_APPROX("hcos", BITS(hcos(a)));
  UNARY_APPROX("htanh", BITS(htanh(a)));

  // bfloat16.
  BF_UNARY("bf16_to_float", __float_as_uint(__bfloat162float(a)));
  BF_UNARY("bf16_to_int_rz", unsigned(__bfloat162int_rz(a)));
  BF_UNARY("bf16_to_int_rn", unsigned(__bfloat162int_rn(a)));
  BF_UNARY("bf16_to_ll_rz", unsigned(__bfloat162ll_rz(a) >> 32) ^ unsigned(__bfloat162ll_rz(a)));
  BF_UNARY("bf16_to_ushort_rz", unsigned(__bfloat162ushort_rz(a)));
  FROM_INT("int2bfloat16_rn", BF_BITS(__int2bfloat16_rn(int(i))));
  FROM_INT("ll2bfloat16_rn", BF_BITS(__ll2bfloat16_rn(i)));
  FROM_INT("ull2bfloat16_rn", BF_BITS(__ull2bfloat16_rn((unsigned long long)(i))));
  FROM_FLOAT("float2bfloat16_rn", BF_BITS(__float2bfloat16_rn(f)));
  FROM_FLOAT("float2bfloat16_rz", BF_BITS(__float2bfloat16_rz(f)));
  FROM_FLOAT("float2bfloat16_ru", BF_BITS(__float2bfloat16_ru(f)));
  FROM_FLOAT("float2bfloat16_rd", BF_BITS(__float2bfloat16_rd(f)));
  BF_UNARY("bf16_neg", BF_BITS(-a));
  BF_UNARY("bf16_habs", BF_BITS(__habs(a)));
  BF_UNARY("bf16_htrunc", BF_BITS(htrunc(a)));
  BF_UNARY("bf16_hfloor", BF_BITS(hfloor(a)));
  BF_UNARY("bf16_hrint", BF_BITS(hrint(a)));
  BF_UNARY("bf16_hsqrt", BF_BITS(hsqrt(a)));
  BF_BINARY("bf16_hadd", BF_BITS(__hadd(a, b)));
  BF_BINARY("bf16_hsub", BF_BITS(__hsub(a, b)));
  BF_BINARY("bf16_hmul", BF_BITS(__hmul(a, b)));
  BF_BINARY("bf16_hdiv", BF_BITS(__hdiv(a, b)));
  BF_BINARY("bf16_hfma_a_b_a", BF_BITS(__hfma(a, b, a)));
  BF_BINARY("bf16_hfma_a_a_b", BF_BITS(__hfma(a, a, b)));
  BF_BINARY("bf16_hmax", BF_BITS(__hmax(a, b)));
  BF_BINARY("bf16_hmin", BF_BITS(__hmin(a, b)));
  BF_BINARY("bf16_hmax_nan", BF_BITS(__hmax_nan(a, b)));
  BF_BINARY("bf16_compare", unsigned(__heq(a, b)) | __hne(a, b) << 1 | __hlt(a, b) << 2 |
                                __hle(a, b) << 3 | __hgt(a, b) << 4 | __hge(a, b) << 5 |
                                __hequ(a, b) << 6 | __hneu(a, b) << 7 | __hltu(a, b) << 8 |
                                __hgeu(a, b) << 9 | (a != b) << 10 | (a < b) << 11);
  BF_BINARY("bf16_lanes", ([](__nv_bfloat162 x, __nv_bfloat162 y) {
              const __nv_bfloat162 lt = __hlt2(x, y), m = __hmin2(x, y), s = x * y;
              return unsigned(BF_BITS(__low2bfloat16(lt))) ^
                     unsigned(BF_BITS(__high2bfloat16(m))) << 16 ^
                     unsigned(BF_BITS(__low2bfloat16(s))) ^ unsigned(__hbge2(x, y)) << 31;
            }(__halves2bfloat162(a, b), __halves2bfloat162(b, a))));
  BF_UNARY_APPROX("bf16_hrsqrt", BF_BITS(hrsqrt(a)));
  BF_UNARY_APPROX("bf16_hrcp", BF_BITS(hrcp(a)));
  BF_UNARY_APPROX("bf16_hexp", BF_BITS(hexp(a)));
  BF_UNARY_APPROX("bf16_hexp2", BF_BITS(hexp2(a)));
  BF_UNARY_APPROX("bf16_hlog", BF_BITS(hlog(a)));
  BF_UNARY_APPROX("bf16_hlog2", BF_BITS(hlog2(a)));
  BF_UNARY_APPROX("bf16_hsin", BF_BITS(hsin(a)));
  BF_UNARY_APPROX("bf16_hcos", BF_BITS(hcos(a)));

  // Rounded once: doubles to both formats, and fused multiply-adds.
  from_double<<<1, 1>>>(g_out);
  print("double2half_double2bfloat16", kDoubles);
  fmas<<<1, 1>>>(g_out);
  print("hfma_ties", kFmas);

  // Complex numbers: the words of each pair are results' parts' bits.
  complex_pairs<4><<<1, 1>>>(
      [] __device__(cuFloatComplex a, cuFloatComplex b, unsigned* o) {
        put(put(o, cuCmulf(a, b)), cuCdivf(a, b));
      },
      g_out);
  print("cuCmulf_cuCdivf", kComplex * kComplex * 4);
  complex_pairs<4><<<1, 1>>>(
      [] __device__(cuFloatComplex a, cuFloatComplex b, unsigned* o) {
        put(put(put(o, cuCfmaf(a, b, cuConjf(a))), cuCabsf(a)), cuCrealf(cuCsubf(a, b)));
      },
      g_out);
  print("cuCfmaf_cuCabsf_cuCsubf", kComplex * kComplex * 4);
  complex_pairs<16><<<1, 1>>>(
      [] __device__(cuFloatComplex a, cuFloatComplex b, unsigned* o) {
        const cuDoubleComplex x = cuComplexFloatToDouble(a), y = cuComplexFloatToDouble(b);
        const cuDoubleComplex q = cuCdiv(x, y);
        o = put(put(put(o, q), cuCmul(x, y)), cuCfma(x, y, cuConj(x)));
        put(put(o, cuCabs(y)), cuComplexDoubleToFloat(q));
      },
      g_out);
  print("cuCdiv_cuCmul_cuCfma_cuCabs", kComplex * kComplex * 16);
  return 0;
}

// The tests of this program (tests/lit/README.md): its results against an
// H100's (data/half_complex_gpu.txt). (Its GPU build needs nvcc's
// --extended-lambda: tests/CMakeLists.txt adds it.)
// BUILD:
// TEST: unit.half_complex_match_gpu
// LABELS: unit
// RUN: %bin > half_complex_sim.txt
// RUN: %python %S/compare_with_gpu.py half_complex_sim.txt %data/half_complex_gpu.txt
//
// TEST: gpu.half_complex_match_expected
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu > half_complex_gpu_now.txt
// RUN: %python %S/compare_with_gpu.py half_complex_gpu_now.txt %data/half_complex_gpu.txt
