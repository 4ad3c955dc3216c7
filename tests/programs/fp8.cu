// Prints what cuda_fp8.h's conversions give, in a kernel and on the host:
// every fp8 code of both formats (E4M3, E5M2) to half, float, double and the
// integers; floats, doubles, halves and bfloat16s to fp8 with and without
// saturation (a hash over each whole set of inputs, and the results of some
// of them in full); the x2 and x4 types. Built with nvcc on an H100 it gave
// tests/data/fp8_gpu.txt; the simulator's output must equal it line for line.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

// The inputs: bit patterns of each width (k spread over the whole range,
// with the low bits that make ties and just-past-ties), deterministic.
__host__ __device__ inline unsigned float_input(unsigned k) {
  return (k >> 1) << 16 | ((k & 1) ? 0x0001u : 0u);  // 2^17 of them
}
__host__ __device__ inline unsigned long long double_input(unsigned k) {
  return (unsigned long long)(k >> 1) << 45 | ((k & 1) ? 1ull : 0ull);  // 2^20
}
constexpr unsigned kFloats = 1u << 17, kDoubles = 1u << 20, kHalves = 1u << 16;

__host__ __device__ inline __nv_fp8_storage_t convert(int source, unsigned k, int sat, int interp) {
  const auto s = sat ? __NV_SATFINITE : __NV_NOSAT;
  const auto i = interp ? __NV_E5M2 : __NV_E4M3;
  switch (source) {
    case 0: {
      const unsigned bits = float_input(k);
      float f;
      memcpy(&f, &bits, 4);
      return __nv_cvt_float_to_fp8(f, s, i);
    }
    case 1: {
      const unsigned long long bits = double_input(k);
      double d;
      memcpy(&d, &bits, 8);
      return __nv_cvt_double_to_fp8(d, s, i);
    }
    case 2: {
      __half_raw h;
      h.x = (unsigned short)k;
      return __nv_cvt_halfraw_to_fp8(h, s, i);
    }
    default: {
      __nv_bfloat16_raw b;
      b.x = (unsigned short)k;
      return __nv_cvt_bfloat16raw_to_fp8(b, s, i);
    }
  }
}

__global__ void convert_all(int source, unsigned n, unsigned char* out) {
  const unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  for (int c = 0; c < 4; ++c) out[c * n + k] = convert(source, k, c & 1, c >> 1);
}

// Every code of both formats, read back.
struct Decoded {
  unsigned short half_bits;
  unsigned float_bits;
  unsigned long long double_bits;
  int as_int;
  unsigned as_unsigned;
  long long as_ll;
  short as_short;
  signed char as_schar;
  unsigned char as_uchar;
  bool as_bool;
  unsigned short bf16_bits;
};

template <class F>
__host__ __device__ Decoded decode(unsigned char code) {
  F v;
  v.__x = code;
  Decoded d;
  const __half h = __half(v);
  memcpy(&d.half_bits, &h, 2);
  const float f = float(v);
  memcpy(&d.float_bits, &f, 4);
  const double x = double(v);
  memcpy(&d.double_bits, &x, 8);
  d.as_int = int(v);
  d.as_unsigned = (unsigned)v;
  d.as_ll = (long long)v;
  d.as_short = short(v);
  d.as_schar = (signed char)v;
  d.as_uchar = (unsigned char)v;
  d.as_bool = bool(v);
  const __nv_bfloat16 b = __nv_bfloat16(v);
  memcpy(&d.bf16_bits, &b, 2);
  return d;
}

__global__ void decode_all(Decoded* out) {
  const unsigned code = threadIdx.x;
  out[code] = decode<__nv_fp8_e4m3>((unsigned char)code);
  out[256 + code] = decode<__nv_fp8_e5m2>((unsigned char)code);
}

// The class types' constructors and the x2 and x4 types.
struct Built {
  unsigned char from_int[6], from_double[4], from_half, from_bf16, from_ll, from_unsigned;
  unsigned short x2_from_float2, x2_from_half2, x2_cvt_float2, x2_cvt_double2, x2_cvt_bf162;
  unsigned x2_to_half2;
  float x2_to_float2[2];
  unsigned x4_from_float4, x4_from_half2s, x4_from_bf162s;
  float x4_to_float4[4];
};

template <class F, class F2, class F4>
__host__ __device__ Built build(__nv_fp8_interpretation_t interp) {
  Built b;
  const int ints[6] = {0, 1, -3, 17, 500, -100000};
  for (int i = 0; i < 6; ++i) b.from_int[i] = F(ints[i]).__x;
  const double doubles[4] = {0.1, -2.5e-3, 1e300, 3.0e-5};
  for (int i = 0; i < 4; ++i) b.from_double[i] = F(doubles[i]).__x;
  b.from_half = F(__float2half(-0.3f)).__x;
  b.from_bf16 = F(__float2bfloat16(12.7f)).__x;
  b.from_ll = F(123456789012ll).__x;
  b.from_unsigned = F(7u).__x;
  b.x2_from_float2 = F2(make_float2(1.3f, -7.9f)).__x;
  b.x2_from_half2 = F2(__floats2half2_rn(0.2f, 300.0f)).__x;
  b.x2_cvt_float2 = __nv_cvt_float2_to_fp8x2(make_float2(-0.01f, 1000.0f), __NV_SATFINITE, interp);
  b.x2_cvt_double2 = __nv_cvt_double2_to_fp8x2(make_double2(5.5, -0.75), __NV_NOSAT, interp);
  __nv_bfloat162_raw br;
  br.x = 0x3f80;
  br.y = 0xc2c8;
  b.x2_cvt_bf162 = __nv_cvt_bfloat16raw2_to_fp8x2(br, __NV_SATFINITE, interp);
  const __half2_raw h2 = __nv_cvt_fp8x2_to_halfraw2(b.x2_from_float2, interp);
  b.x2_to_half2 = (unsigned)h2.x | (unsigned)h2.y << 16;
  F2 two;
  two.__x = b.x2_from_float2;
  const float2 f2 = float2(two);
  b.x2_to_float2[0] = f2.x;
  b.x2_to_float2[1] = f2.y;
  b.x4_from_float4 = F4(make_float4(0.5f, -1.75f, 20.0f, 1e-3f)).__x;
  b.x4_from_half2s = F4(__floats2half2_rn(1.0f, 2.0f), __floats2half2_rn(-3.0f, 0.0625f)).__x;
  b.x4_from_bf162s =
      F4(__floats2bfloat162_rn(9.0f, -0.5f), __floats2bfloat162_rn(100.0f, 0.002f)).__x;
  F4 four;
  four.__x = b.x4_from_float4;
  const float4 f4 = float4(four);
  b.x4_to_float4[0] = f4.x;
  b.x4_to_float4[1] = f4.y;
  b.x4_to_float4[2] = f4.z;
  b.x4_to_float4[3] = f4.w;
  return b;
}

__global__ void build_all(Built* out) {
  out[0] = build<__nv_fp8_e4m3, __nv_fp8x2_e4m3, __nv_fp8x4_e4m3>(__NV_E4M3);
  out[1] = build<__nv_fp8_e5m2, __nv_fp8x2_e5m2, __nv_fp8x4_e5m2>(__NV_E5M2);
}

static unsigned long long fnv(const unsigned char* p, size_t n) {
  unsigned long long h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

static void print_decoded(const char* where, const Decoded* d) {
  for (int f = 0; f < 2; ++f)
    for (int code = 0; code < 256; ++code) {
      const Decoded& x = d[f * 256 + code];
      std::printf("%s %s %02x: half %04x float %08x double %016llx int %d unsigned %u ll %lld "
                  "short %d schar %d uchar %u bool %d bf16 %04x\n",
                  where, f ? "e5m2" : "e4m3", code, x.half_bits, x.float_bits, x.double_bits,
                  x.as_int, x.as_unsigned, x.as_ll, x.as_short, x.as_schar, x.as_uchar,
                  (int)x.as_bool, x.bf16_bits);
    }
}

static void print_built(const char* where, const Built* b) {
  for (int f = 0; f < 2; ++f) {
    const Built& x = b[f];
    std::printf("%s %s built: int", where, f ? "e5m2" : "e4m3");
    for (unsigned char v : x.from_int) std::printf(" %02x", v);
    std::printf(" double");
    for (unsigned char v : x.from_double) std::printf(" %02x", v);
    std::printf(" half %02x bf16 %02x ll %02x unsigned %02x\n", x.from_half, x.from_bf16,
                x.from_ll, x.from_unsigned);
    std::printf("%s %s x2: %04x %04x %04x %04x %04x half2 %08x float2 %.9g %.9g\n", where,
                f ? "e5m2" : "e4m3", x.x2_from_float2, x.x2_from_half2, x.x2_cvt_float2,
                x.x2_cvt_double2, x.x2_cvt_bf162, x.x2_to_half2, (double)x.x2_to_float2[0],
                (double)x.x2_to_float2[1]);
    std::printf("%s %s x4: %08x %08x %08x float4 %.9g %.9g %.9g %.9g\n", where,
                f ? "e5m2" : "e4m3", x.x4_from_float4, x.x4_from_half2s,
                x.x4_from_bf162s, (double)x.x4_to_float4[0], (double)x.x4_to_float4[1],
                (double)x.x4_to_float4[2], (double)x.x4_to_float4[3]);
  }
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device\n");
    return 77;
  }
  const char* sources[] = {"float", "double", "half", "bf16"};
  const unsigned counts[] = {kFloats, kDoubles, kHalves, kHalves};
  const char* combos[] = {"e4m3 nosat", "e4m3 satfinite", "e5m2 nosat", "e5m2 satfinite"};
  for (int s = 0; s < 4; ++s) {
    const unsigned n = counts[s];
    unsigned char* d;
    cudaMalloc(&d, 4 * n);
    convert_all<<<(n + 255) / 256, 256>>>(s, n, d);
    std::vector<unsigned char> gpu(4 * n), host(4 * n);
    cudaMemcpy(gpu.data(), d, 4 * n, cudaMemcpyDeviceToHost);
    cudaFree(d);
    for (unsigned k = 0; k < n; ++k)
      for (int c = 0; c < 4; ++c) host[c * n + k] = convert(s, k, c & 1, c >> 1);
    for (int c = 0; c < 4; ++c) {
      const unsigned char* g = &gpu[c * n];
      unsigned host_differs = 0;
      for (unsigned k = 0; k < n; ++k) host_differs += g[k] != host[c * n + k];
      std::printf("%s -> %s: hash %016llx, host differs at %u\n", sources[s], combos[c],
                  fnv(g, n), host_differs);
      // Some in full: every 509th input.
      std::printf("%s -> %s:", sources[s], combos[c]);
      for (unsigned k = 0; k < n; k += 509) std::printf(" %02x", g[k]);
      std::printf("\n");
    }
  }
  Decoded* dd;
  cudaMalloc(&dd, 512 * sizeof(Decoded));
  decode_all<<<1, 256>>>(dd);
  std::vector<Decoded> decoded(512);
  cudaMemcpy(decoded.data(), dd, 512 * sizeof(Decoded), cudaMemcpyDeviceToHost);
  cudaFree(dd);
  print_decoded("device", decoded.data());
  for (int code = 0; code < 256; ++code) {
    decoded[code] = decode<__nv_fp8_e4m3>((unsigned char)code);
    decoded[256 + code] = decode<__nv_fp8_e5m2>((unsigned char)code);
  }
  print_decoded("host", decoded.data());
  Built* db;
  cudaMalloc(&db, 2 * sizeof(Built));
  build_all<<<1, 1>>>(db);
  Built built[2];
  cudaMemcpy(built, db, sizeof built, cudaMemcpyDeviceToHost);
  cudaFree(db);
  print_built("device", built);
  built[0] = build<__nv_fp8_e4m3, __nv_fp8x2_e4m3, __nv_fp8x4_e4m3>(__NV_E4M3);
  built[1] = build<__nv_fp8_e5m2, __nv_fp8x2_e5m2, __nv_fp8x4_e5m2>(__NV_E5M2);
  print_built("host", built);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

// The tests of this program (tests/lit/README.md): both builds print what
// an H100 printed (data/fp8_gpu.txt; nvcc -arch=sm_90, CUDA 13.0).
// BUILD:
// TEST: unit.fp8_matches_gpu
// LABELS: unit
// RUN: %bin > fp8_sim.txt
// RUN: diff %data/fp8_gpu.txt fp8_sim.txt
//
// TEST: gpu.fp8_matches_expected
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu > fp8_gpu_now.txt
// RUN: diff %data/fp8_gpu.txt fp8_gpu_now.txt
