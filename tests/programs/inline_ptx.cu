// Inline PTX as a GPU runs it: each PTX instruction below runs in one warp,
// lane i on the i-th of 32 awkward inputs (0, -1, INT_MIN, subnormals,
// infinities, NaN, ...), and every result is printed as its bits in hex, so
// that the simulator's output can be compared with an H100's
// (tests/data/inline_ptx_gpu.txt) line by line. Where the PTX ISA leaves a
// NaN's bits unspecified (abs, neg, f64 arithmetic) the program prints every
// NaN as one value. Approximate instructions
// (rcp.approx, ex2.approx, ...) run on moderate inputs and print decimal
// values on lines marked `~`, compared with a tolerance (a GPU's
// approximations are not IEEE-rounded).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CK(call) check((call), #call, __LINE__)
static void check(cudaError_t e, const char* what, int line) {
  if (e != cudaSuccess) {
    std::printf("error %d (%s) at line %d: %s\n", int(e), cudaGetErrorName(e), line, what);
    std::exit(1);
  }
}

constexpr int kLanes = 32;
__constant__ unsigned c_ints[kLanes] = {
    0u,          1u,          2u,          7u,          31u,         32u,         33u,
    0x7fffffffu, 0x80000000u, 0xffffffffu, 0x12345678u, 0xdeadbeefu, 0x00ff00ffu, 0x80u,
    0x7fu,       0xfffffffeu, 100u,        1000u,       65535u,      65536u,      0xfffffffbu,
    0xffffff9cu, 0x55555555u, 0xaaaaaaaau, 17u,         255u,        256u,        3u,
    5u,          0x0f0f0f0fu, 0xf0000000u, 12345u};
__constant__ unsigned c_floats[kLanes] = {
    0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x3f000000u, 0x3fc00000u, 0x40200000u,
    0xc0200000u, 0x000116c2u, 0x800116c2u, 0x7f7fc99eu, 0x7f800000u, 0xff800000u, 0x7fc00000u,
    0x3dcccccdu, 0x3eaaaaabu, 0x501502f9u, 0xd01502f9u, 0x42f6e979u, 0x4b800001u, 0x4b800000u,
    0x3f7fffefu, 0x3f800001u, 0x42c90000u, 0xbf000000u, 0x40e00000u, 0x3727c5acu, 0x477fe000u,
    0x4f800000u, 0xcf000001u, 0x4effffffu, 0x40400000u};
// Moderate inputs for the approximate instructions: 0.0625 to 90, both signs.
__constant__ float c_moderate[kLanes] = {
    0.0625f, 0.1f,  0.25f, 0.3f,  0.5f,   0.7f,  1.0f,   1.25f,  1.5f,    2.0f,  2.5f,
    3.0f,    3.14f, 4.0f,  5.5f,  7.0f,   8.0f,  10.0f,  12.5f,  16.0f,   20.0f, 31.0f,
    -0.2f,   -0.5f, -1.0f, -2.0f, -3.75f, -6.0f, -10.0f, -33.0f, -0.015f, 90.0f};

struct Lanes {
  unsigned a, b, c;
  float fa, fb, fc;
};
__device__ Lanes lanes() {
  const int i = threadIdx.x % kLanes;
  Lanes l;
  l.a = c_ints[i];
  l.b = c_ints[(i * 7 + 3) % kLanes];
  l.c = c_ints[(i * 13 + 5) % kLanes];
  l.fa = __uint_as_float(c_floats[i]);
  l.fb = __uint_as_float(c_floats[(i * 7 + 3) % kLanes]);
  l.fc = __uint_as_float(c_floats[(i * 13 + 5) % kLanes]);
  return l;
}

// ---- integers -----------------------------------------------------------------------------
constexpr int kIntOps = 31;
__global__ void integers(unsigned* out) {
  const Lanes l = lanes();
  const int a = int(l.a), b = int(l.b), c = int(l.c);
  unsigned* o = out + threadIdx.x * kIntOps;
  unsigned u;
  int s;
  unsigned long long w;
  long long sw;
  asm("add.u32 %0, %1, %2;" : "=r"(u) : "r"(l.a), "r"(l.b));
  o[0] = u;
  asm("sub.s32 %0, %1, %2;" : "=r"(s) : "r"(a), "r"(b));
  o[1] = unsigned(s);
  asm("add.sat.s32 %0, %1, %2;" : "=r"(s) : "r"(a), "r"(b));
  o[2] = unsigned(s);
  asm("sub.sat.s32 %0, %1, %2;" : "=r"(s) : "r"(a), "r"(b));
  o[3] = unsigned(s);
  asm("mul.lo.u32 %0, %1, %2;" : "=r"(u) : "r"(l.a), "r"(l.b));
  o[4] = u;
  asm("mul.hi.u32 %0, %1, %2;" : "=r"(u) : "r"(l.a), "r"(l.b));
  o[5] = u;
  asm("mul.hi.s32 %0, %1, %2;" : "=r"(s) : "r"(a), "r"(b));
  o[6] = unsigned(s);
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(w) : "r"(l.a), "r"(l.b));
  o[7] = unsigned(w >> 32) ^ unsigned(w);
  asm("mul.wide.s32 %0, %1, %2;" : "=l"(sw) : "r"(a), "r"(b));
  o[8] = unsigned(uint64_t(sw) >> 32) ^ unsigned(sw);
  asm("mad.lo.s32 %0, %1, %2, %3;" : "=r"(s) : "r"(a), "r"(b), "r"(c));
  o[9] = unsigned(s);
  asm("mad.hi.u32 %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c));
  o[10] = u;
  asm("mad.wide.u32 %0, %1, %2, %3;"
      : "=l"(w)
      : "r"(l.a), "r"(l.b), "l"((unsigned long long)l.c << 20));
  o[11] = unsigned(w >> 32) ^ unsigned(w);
  const unsigned nonzero = l.b == 0 ? 3u : l.b;
  asm("div.u32 %0, %1, %2;" : "=r"(u) : "r"(l.a), "r"(nonzero));
  o[12] = u;
  asm("div.s32 %0, %1, %2;" : "=r"(s) : "r"(a), "r"(int(nonzero)));
  o[13] = unsigned(s);
  asm("rem.s32 %0, %1, %2;" : "=r"(s) : "r"(a), "r"(int(nonzero)));
  o[14] = unsigned(s);
  asm("rem.u32 %0, %1, %2;" : "=r"(u) : "r"(l.a), "r"(nonzero));
  o[15] = u;
  asm("abs.s32 %0, %1;" : "=r"(s) : "r"(a));
  o[16] = unsigned(s);
  asm("neg.s32 %0, %1;" : "=r"(s) : "r"(a));
  o[17] = unsigned(s);
  asm("min.s32 %0, %1, %2;" : "=r"(s) : "r"(a), "r"(b));
  o[18] = unsigned(s);
  asm("max.u32 %0, %1, %2;" : "=r"(u) : "r"(l.a), "r"(l.b));
  o[19] = u;
  const unsigned long long wa = (unsigned long long)l.a << 32 | l.c, wb = (unsigned long long)l.b * 0x9e3779b97f4a7c15ull;
  asm("add.u64 %0, %1, %2;" : "=l"(w) : "l"(wa), "l"(wb));
  o[20] = unsigned(w >> 32) ^ unsigned(w);
  asm("mul.hi.u64 %0, %1, %2;" : "=l"(w) : "l"(wa), "l"(wb));
  o[21] = unsigned(w >> 32) ^ unsigned(w);
  asm("mul.lo.u64 %0, %1, %2;" : "=l"(w) : "l"(wa), "l"(wb));
  o[22] = unsigned(w >> 32) ^ unsigned(w);
  asm("mul.hi.s64 %0, %1, %2;" : "=l"(sw) : "l"(wa), "l"(wb));
  o[23] = unsigned(uint64_t(sw) >> 32) ^ unsigned(sw);
  short hs;
  asm("add.s16 %0, %1, %2;" : "=h"(hs) : "h"(short(a)), "h"(short(b)));
  o[24] = unsigned(hs);
  asm("mul.wide.u16 %0, %1, %2;" : "=r"(u) : "h"((unsigned short)a), "h"((unsigned short)b));
  o[25] = u;
  asm("sub.u32 %0, %1, 5;" : "=r"(u) : "r"(l.a));
  o[26] = u;
  asm("add.u32 %0, %1, 0x100;" : "=r"(u) : "r"(l.a));
  o[27] = u;
  asm("min.u32 %0, %1, %2;" : "=r"(u) : "r"(l.a), "n"(1000));
  o[28] = u;
  asm("max.s32 %0, %1, -7;" : "=r"(s) : "r"(a));
  o[29] = unsigned(s);
  asm("mad.lo.u32 %0, %0, %1, %2;" : "+r"(u) : "r"(l.b), "r"(l.c));
  o[30] = u;
}

// ---- bits ---------------------------------------------------------------------------------
constexpr int kBitOps = 40;
__global__ void bit_ops(unsigned* out) {
  const Lanes l = lanes();
  unsigned* o = out + threadIdx.x * kBitOps;
  unsigned u;
  unsigned long long w;
  const unsigned long long wa = (unsigned long long)l.c << 32 | l.a;
  asm("and.b32 %0, %1, %2;" : "=r"(u) : "r"(l.a), "r"(l.b));
  o[0] = u;
  asm("or.b32 %0, %1, %2;" : "=r"(u) : "r"(l.a), "r"(l.b));
  o[1] = u;
  asm("xor.b32 %0, %1, %2;" : "=r"(u) : "r"(l.a), "r"(l.b));
  o[2] = u;
  asm("not.b32 %0, %1;" : "=r"(u) : "r"(l.a));
  o[3] = u;
  asm("cnot.b32 %0, %1;" : "=r"(u) : "r"(l.a));
  o[4] = u;
  asm("shl.b32 %0, %1, %2;" : "=r"(u) : "r"(l.a), "r"(l.b % 40));
  o[5] = u;
  asm("shr.u32 %0, %1, %2;" : "=r"(u) : "r"(l.a), "r"(l.b % 40));
  o[6] = u;
  asm("shr.s32 %0, %1, %2;" : "=r"(u) : "r"(l.a), "r"(l.b % 40));
  o[7] = u;
  asm("popc.b32 %0, %1;" : "=r"(u) : "r"(l.a));
  o[8] = u;
  asm("popc.b64 %0, %1;" : "=r"(u) : "l"(wa));
  o[9] = u;
  asm("clz.b32 %0, %1;" : "=r"(u) : "r"(l.a));
  o[10] = u;
  asm("clz.b64 %0, %1;" : "=r"(u) : "l"(wa));
  o[11] = u;
  asm("bfind.u32 %0, %1;" : "=r"(u) : "r"(l.a));
  o[12] = u;
  asm("bfind.s32 %0, %1;" : "=r"(u) : "r"(l.a));
  o[13] = u;
  asm("bfind.shiftamt.u32 %0, %1;" : "=r"(u) : "r"(l.a));
  o[14] = u;
  asm("brev.b32 %0, %1;" : "=r"(u) : "r"(l.a));
  o[15] = u;
  asm("brev.b64 %0, %1;" : "=l"(w) : "l"(wa));
  o[16] = unsigned(w >> 32) ^ unsigned(w);
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b % 40), "r"(l.c % 40));
  o[17] = u;
  asm("bfe.s32 %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b % 40), "r"(l.c % 40));
  o[18] = u;
  asm("bfe.u64 %0, %1, %2, %3;" : "=l"(w) : "l"(wa), "r"(l.b % 70), "r"(l.c % 70));
  o[19] = unsigned(w >> 32) ^ unsigned(w);
  asm("bfi.b32 %0, %1, %2, %3, %4;"
      : "=r"(u)
      : "r"(l.a), "r"(l.b), "r"(l.c % 40), "r"((l.a ^ l.b) % 40));
  o[20] = u;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c));
  o[21] = u;
  asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c));
  o[22] = u;
  asm("prmt.b32.b4e %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c));
  o[23] = u;
  asm("prmt.b32.rc8 %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c));
  o[24] = u;
  asm("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c));
  o[25] = u;
  asm("prmt.b32.ecr %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c));
  o[26] = u;
  asm("prmt.b32.rc16 %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c));
  o[27] = u;
  asm("lop3.b32 %0, %1, %2, %3, 0xE8;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c));
  o[28] = u;
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c));
  o[29] = u;
  asm("lop3.b32 %0, %1, %2, %3, %4;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c), "n"(0x1e));
  o[30] = u;
  asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c % 70));
  o[31] = u;
  asm("shf.r.wrap.b32 %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c % 70));
  o[32] = u;
  asm("shf.l.clamp.b32 %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c % 70));
  o[33] = u;
  asm("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c % 70));
  o[34] = u;
  asm("shl.b64 %0, %1, %2;" : "=l"(w) : "l"(wa), "r"(l.b % 70));
  o[35] = unsigned(w >> 32) ^ unsigned(w);
  asm("shr.s64 %0, %1, %2;" : "=l"(w) : "l"(wa), "r"(l.b % 70));
  o[36] = unsigned(w >> 32) ^ unsigned(w);
  // Packing and unpacking 64-bit registers.
  unsigned lo, hi;
  asm("mov.b64 {%0, %1}, %2;" : "=r"(lo), "=r"(hi) : "l"(wa));
  o[37] = lo + 3 * hi;
  asm("mov.b64 %0, {%1, %2};" : "=l"(w) : "r"(l.b), "r"(l.a));
  o[38] = unsigned(w >> 32) ^ unsigned(w * 5);
  float f;
  asm("mov.b32 %0, %1;" : "=f"(f) : "r"(l.a));
  o[39] = __float_as_uint(f);
}

// ---- comparisons, predicates and declared registers ---------------------------------------
constexpr int kPredOps = 12;
__global__ void predicates(unsigned* out) {
  const Lanes l = lanes();
  unsigned* o = out + threadIdx.x * kPredOps;
  unsigned u;
  asm("{\n\t.reg .pred p;\n\tsetp.lt.s32 p, %1, %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(u)
      : "r"(int(l.a)), "r"(int(l.b)));
  o[0] = u;
  asm("{ .reg .pred p; setp.lo.u32 p, %1, %2; selp.u32 %0, 1, 0, p; }"
      : "=r"(u)
      : "r"(l.a), "r"(l.b));
  o[1] = u;
  asm("{ .reg .pred p, q; setp.ne.u32 p|q, %1, %2; selp.u32 %0, 2, 0, p; @q add.u32 %0, %0, 5; }"
      : "=r"(u)
      : "r"(l.a & 3), "r"(l.b & 3));
  o[2] = u;
  asm("{ .reg .pred p, q; setp.gt.u32 q, %3, 100; setp.gt.and.s32 p, %1, %2, q;"
      " selp.u32 %0, 7, 9, p; }"
      : "=r"(u)
      : "r"(int(l.a)), "r"(int(l.b)), "r"(l.c));
  o[3] = u;
  asm("{ .reg .pred p; setp.equ.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }"
      : "=r"(u)
      : "f"(l.fa), "f"(l.fa + 0.0f * l.fb));
  o[4] = u;
  asm("{ .reg .pred p; setp.ltu.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }"
      : "=r"(u)
      : "f"(l.fa), "f"(l.fb));
  o[5] = u;
  asm("{ .reg .pred p; setp.lt.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }"
      : "=r"(u)
      : "f"(l.fa), "f"(l.fb));
  o[6] = u;
  asm("{ .reg .pred p; setp.nan.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }"
      : "=r"(u)
      : "f"(l.fa), "f"(l.fb));
  o[7] = u;
  asm("{ .reg .u32 t<3>; add.u32 t0, %1, 1; mul.lo.u32 t1, t0, %2; xor.b32 t2, t1, t0;"
      " mov.u32 %0, t2; }"
      : "=r"(u)
      : "r"(l.a), "r"(l.b));
  o[8] = u;
  asm("{ .reg .pred p; .reg .f32 x; setp.ge.f32 p, %1, 0f00000000; mul.f32 x, %1, 0f40000000;"
      " @!p neg.f32 x, x; mov.b32 %0, x; }"
      : "=r"(u)
      : "f"(l.fa));
  o[8 + 1] = (u & 0x7fffffffu) > 0x7f800000u ? 0x7fffffffu : u;  // neg's NaN: unspecified
  unsigned v = l.a;
  asm("{\n"
      "  .reg .pred big;              // PTX comments are allowed\n"
      "  setp.hi.u32 big, %0, 1000;\n"
      "  @big shr.u32 %0, %0, 4;\n"
      "}"
      : "+r"(v));
  o[10] = v;
  asm("{ .reg .pred p; setp.ne.b32 p, %3, 0; selp.b32 %0, %1, %2, p; }"
      : "=r"(u)
      : "r"(l.a), "r"(l.b), "r"(l.c & 1));
  o[11] = u;
}

// ---- floats and conversions ---------------------------------------------------------------
constexpr int kFloatOps = 44;
__global__ void floats(unsigned* out) {
  const Lanes l = lanes();
  unsigned* o = out + threadIdx.x * kFloatOps;
  float f;
  double d;
  int s;
  unsigned u;
  long long sw;
  auto bits = [](float x) { return __float_as_uint(x); };
  auto any_nan = [](float x) { return x != x ? 0x7fffffffu : __float_as_uint(x); };
  auto dbits = [](double x) {
    const unsigned long long b = (unsigned long long)__double_as_longlong(x);
    return x != x ? 0xdeadu : unsigned(b >> 32) ^ unsigned(b);
  };
  asm("add.rn.f32 %0, %1, %2;" : "=f"(f) : "f"(l.fa), "f"(l.fb));
  o[0] = bits(f);
  asm("add.rz.f32 %0, %1, %2;" : "=f"(f) : "f"(l.fa), "f"(l.fb));
  o[1] = bits(f);
  asm("add.rm.f32 %0, %1, %2;" : "=f"(f) : "f"(l.fa), "f"(l.fb));
  o[2] = bits(f);
  asm("add.rp.f32 %0, %1, %2;" : "=f"(f) : "f"(l.fa), "f"(l.fb));
  o[3] = bits(f);
  asm("mul.rz.f32 %0, %1, %2;" : "=f"(f) : "f"(l.fa), "f"(l.fb));
  o[4] = bits(f);
  asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(f) : "f"(l.fa), "f"(l.fb), "f"(l.fc));
  o[5] = bits(f);
  asm("fma.rz.f32 %0, %1, %2, %3;" : "=f"(f) : "f"(l.fa), "f"(l.fb), "f"(l.fc));
  o[6] = bits(f);
  asm("div.rn.f32 %0, %1, %2;" : "=f"(f) : "f"(l.fa), "f"(l.fb));
  o[7] = bits(f);
  asm("sub.ftz.f32 %0, %1, %2;" : "=f"(f) : "f"(l.fa), "f"(l.fb));
  o[8] = bits(f);
  asm("add.sat.f32 %0, %1, %2;" : "=f"(f) : "f"(l.fa), "f"(l.fb));
  o[9] = bits(f);
  asm("min.f32 %0, %1, %2;" : "=f"(f) : "f"(l.fa), "f"(l.fb));
  o[10] = bits(f);
  asm("max.f32 %0, %1, %2;" : "=f"(f) : "f"(l.fa), "f"(l.fb));
  o[11] = bits(f);
  asm("abs.f32 %0, %1;" : "=f"(f) : "f"(l.fa));
  o[12] = any_nan(f);
  asm("neg.f32 %0, %1;" : "=f"(f) : "f"(l.fa));
  o[13] = any_nan(f);
  asm("sqrt.rn.f32 %0, %1;" : "=f"(f) : "f"(l.fa));
  o[14] = bits(f);
  asm("rcp.rn.f32 %0, %1;" : "=f"(f) : "f"(l.fa));
  o[15] = bits(f);
  asm("mul.ftz.f32 %0, %1, %2;" : "=f"(f) : "f"(l.fa), "f"(l.fb));
  o[16] = bits(f);
  const double da = double(l.fa) * 1.0000001, db = double(l.fb) / 3.0, dc = double(l.fc);
  asm("div.rn.f64 %0, %1, %2;" : "=d"(d) : "d"(da), "d"(db));
  o[17] = dbits(d);
  asm("fma.rn.f64 %0, %1, %2, %3;" : "=d"(d) : "d"(da), "d"(db), "d"(dc));
  o[18] = dbits(d);
  asm("sqrt.rn.f64 %0, %1;" : "=d"(d) : "d"(da));
  o[19] = dbits(d);
  asm("add.rz.f64 %0, %1, %2;" : "=d"(d) : "d"(da), "d"(db));
  o[20] = dbits(d);
  asm("cvt.rni.s32.f32 %0, %1;" : "=r"(s) : "f"(l.fa));
  o[21] = unsigned(s);
  asm("cvt.rzi.s32.f32 %0, %1;" : "=r"(s) : "f"(l.fa));
  o[22] = unsigned(s);
  asm("cvt.rmi.s32.f32 %0, %1;" : "=r"(s) : "f"(l.fa));
  o[23] = unsigned(s);
  asm("cvt.rpi.s32.f32 %0, %1;" : "=r"(s) : "f"(l.fa));
  o[24] = unsigned(s);
  asm("cvt.rzi.u32.f32 %0, %1;" : "=r"(u) : "f"(l.fa));
  o[25] = u;
  asm("cvt.rn.f32.s32 %0, %1;" : "=f"(f) : "r"(int(l.a)));
  o[26] = bits(f);
  asm("cvt.rz.f32.u32 %0, %1;" : "=f"(f) : "r"(l.a));
  o[27] = bits(f);
  asm("cvt.rp.f32.u32 %0, %1;" : "=f"(f) : "r"(l.a));
  o[28] = bits(f);
  asm("cvt.rn.f32.f64 %0, %1;" : "=f"(f) : "d"(da));
  o[29] = bits(f);
  asm("cvt.rz.f32.f64 %0, %1;" : "=f"(f) : "d"(da));
  o[30] = bits(f);
  asm("cvt.f64.f32 %0, %1;" : "=d"(d) : "f"(l.fa));
  o[31] = dbits(d);
  asm("cvt.u8.u32 %0, %1;" : "=r"(u) : "r"(l.a));
  o[32] = u;
  asm("cvt.sat.u8.s32 %0, %1;" : "=r"(u) : "r"(int(l.a)));
  o[33] = u;
  asm("cvt.s64.s32 %0, %1;" : "=l"(sw) : "r"(int(l.a)));
  o[34] = unsigned(uint64_t(sw) >> 32) ^ unsigned(sw);
  asm("cvt.u32.u64 %0, %1;" : "=r"(u) : "l"((unsigned long long)l.a * 0x100000001ull + 7));
  o[35] = u;
  asm("cvt.rni.f32.f32 %0, %1;" : "=f"(f) : "f"(l.fa));
  o[36] = bits(f);
  asm("cvt.sat.s16.s32 %0, %1;" : "=r"(s) : "r"(int(l.a)));
  o[37] = unsigned(s);
  asm("cvt.rzi.s64.f32 %0, %1;" : "=l"(sw) : "f"(l.fa));
  o[38] = unsigned(uint64_t(sw) >> 32) ^ unsigned(sw);
  asm("cvt.rn.f32.s64 %0, %1;" : "=f"(f) : "l"((long long)int(l.a) * 1000003LL));
  o[39] = bits(f);
  asm("cvt.rzi.ftz.f32.f32 %0, %1;" : "=f"(f) : "f"(l.fa));
  o[40] = bits(f);
  asm("add.f32 %0, %1, 0f3F800000;" : "=f"(f) : "f"(l.fa));
  o[41] = bits(f);
  asm("mul.f64 %0, %1, 0d4000000000000000;" : "=d"(d) : "d"(da));
  o[42] = dbits(d);
  asm("sub.rp.f32 %0, %1, %2;" : "=f"(f) : "f"(l.fa), "f"(l.fb));
  o[43] = bits(f);
}

constexpr int kApproxOps = 10;
__global__ void approximations(float* out) {
  const float x = c_moderate[threadIdx.x % kLanes], y = c_moderate[(threadIdx.x * 5 + 1) % kLanes];
  const float ax = x < 0 ? -x : x;
  float* o = out + threadIdx.x * kApproxOps;
  float f;
  asm("rcp.approx.f32 %0, %1;" : "=f"(f) : "f"(x));
  o[0] = f;
  asm("sqrt.approx.f32 %0, %1;" : "=f"(f) : "f"(ax));
  o[1] = f;
  asm("rsqrt.approx.f32 %0, %1;" : "=f"(f) : "f"(ax));
  o[2] = f;
  // sin and cos within [-pi, pi], where the ISA bounds their error.
  asm("sin.approx.f32 %0, %1;" : "=f"(f) : "f"(x * 0.03f));
  o[3] = f;
  asm("cos.approx.ftz.f32 %0, %1;" : "=f"(f) : "f"(x * 0.03f));
  o[4] = f;
  asm("lg2.approx.f32 %0, %1;" : "=f"(f) : "f"(ax));
  o[5] = f;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(f) : "f"(x * 0.25f));
  o[6] = f;
  asm("tanh.approx.f32 %0, %1;" : "=f"(f) : "f"(x * 0.1f));
  o[7] = f;
  asm("div.approx.f32 %0, %1, %2;" : "=f"(f) : "f"(x), "f"(y));
  o[8] = f;
  asm("div.full.f32 %0, %1, %2;" : "=f"(f) : "f"(x), "f"(y));
  o[9] = f;
}

// ---- special registers, memory, atomics, warps, video -------------------------------------
constexpr int kMiscOps = 30;
__global__ void misc(unsigned* out, unsigned* data, unsigned* counters, const unsigned* in) {
  __shared__ unsigned tile[64];
  const Lanes l = lanes();
  const unsigned t = threadIdx.x;
  unsigned* o = out + (blockIdx.x * blockDim.x + t) * kMiscOps;
  unsigned u;
  asm("mov.u32 %0, %%laneid;" : "=r"(u));
  o[0] = u;
  asm("mov.u32 %0, %%warpid;" : "=r"(u));
  o[1] = u < 64 ? 1 : 0;  // which slot a warp gets is the scheduler's choice
  asm("mov.u32 %0, %%tid.x;" : "=r"(u));
  o[2] = u;
  asm("mov.u32 %0, %%ntid.x;" : "=r"(u));
  o[3] = u;
  asm("mov.u32 %0, %%ctaid.x;" : "=r"(u));
  o[4] = u;
  asm("mov.u32 %0, %%nctaid.x;" : "=r"(u));
  o[5] = u;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(u));
  o[6] = u;
  asm("mov.u32 %0, %%lanemask_ge;" : "=r"(u));
  o[7] = u;
  asm("mov.u32 %0, %%lanemask_eq;" : "=r"(u));
  o[8] = u;
  // Loads and stores through generic and global addresses.
  unsigned* mine = data + (blockIdx.x * blockDim.x + t) * 4;
  asm volatile("st.global.u32 [%0], %1;" ::"l"(mine), "r"(l.a) : "memory");
  asm volatile("st.global.u32 [%0+4], %1;" ::"l"(mine), "r"(l.a ^ l.c) : "memory");
  asm volatile("st.global.v2.u32 [%0+8], {%1, %2};" ::"l"(mine), "r"(l.b), "r"(l.c) : "memory");
  asm volatile("ld.global.nc.u32 %0, [%1+8];" : "=r"(u) : "l"(in + t));
  o[9] = u;
  unsigned x0, x1, x2, x3;
  asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(x0), "=r"(x1), "=r"(x2), "=r"(x3)
               : "l"(mine));
  o[10] = x0 ^ (x1 * 3) ^ (x2 * 5) ^ (x3 * 7);
  asm volatile("st.volatile.global.u32 [%0+12], %1;" ::"l"(mine), "r"(t * 11) : "memory");
  asm volatile("ld.volatile.global.u32 %0, [%1+12];" : "=r"(u) : "l"(mine));
  o[11] = u;
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(mine), "r"(t + 1) : "memory");
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(u) : "l"(mine));
  o[12] = u;
  tile[t] = l.a;
  asm volatile("bar.sync 0;" ::: "memory");
  asm volatile("ld.u32 %0, [%1];" : "=r"(u) : "l"(&tile[(t + 1) % blockDim.x]));
  o[13] = u;
  __syncthreads();
  // Atomics: the final values (the old values returned depend on the order).
  asm volatile("atom.global.add.u32 %0, [%1], %2;" : "=r"(u) : "l"(counters), "r"(t + 1));
  asm volatile("red.global.add.u32 [%0], %1;" ::"l"(counters + 1), "r"(l.a & 0xff));
  asm volatile("atom.global.max.s32 %0, [%1], %2;" : "=r"(u) : "l"(counters + 2), "r"(int(l.b)));
  asm volatile("atom.global.inc.u32 %0, [%1], 50;" : "=r"(u) : "l"(counters + 3));
  asm volatile("atom.global.or.b32 %0, [%1], %2;" : "=r"(u) : "l"(counters + 4), "r"(1u << (t % 32)));
  asm volatile("atom.global.cas.b32 %0, [%1], %2, %3;"
               : "=r"(u)
               : "l"(counters + 5), "r"(0u), "r"(t + 1000));
  o[14] = u == 0 || (u >= 1000 && u < 1064) ? 1 : 0;
  asm volatile("red.global.add.f32 [%0], %1;" ::"l"(counters + 6), "f"(0.5f));
  asm volatile("atom.global.exch.b32 %0, [%1], %2;" : "=r"(u) : "l"(counters + 7), "r"(t));
  // Warps.
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(u) : "r"(l.a), "r"(5));
  o[15] = u;
  asm volatile("shfl.sync.up.b32 %0, %1, 3, 0, 0xffffffff;" : "=r"(u) : "r"(l.a));
  o[16] = u;
  asm volatile("shfl.sync.down.b32 %0, %1, 2, 0x1f, 0xffffffff;" : "=r"(u) : "r"(l.a));
  o[17] = u;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, %3, 0xffffffff;"
               : "=r"(u)
               : "r"(l.a), "r"(l.b % 16), "r"((16 << 8) | 0x1f));
  o[18] = u;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }"
               : "=r"(u)
               : "r"(l.a & 1));
  o[19] = u;
  asm volatile("{ .reg .pred p, q; setp.lt.u32 p, %1, 100; vote.sync.any.pred q, p, 0xffffffff;"
               " selp.u32 %0, 1, 0, q; }"
               : "=r"(u)
               : "r"(l.a));
  o[20] = u;
  asm volatile("{ .reg .pred p, q; setp.lt.u32 p, %1, 100; vote.sync.all.pred q, !p, 0xffffffff;"
               " selp.u32 %0, 1, 0, q; }"
               : "=r"(u)
               : "r"(l.a));
  o[21] = u;
  if (t % 3 != 0) {
    asm volatile("activemask.b32 %0;" : "=r"(u));
    o[22] = u;
  } else {
    o[22] = 0;
  }
  asm volatile("bar.warp.sync 0xffffffff;");
  asm volatile("membar.gl;" ::: "memory");
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
  // SIMD video instructions.
  asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c));
  o[23] = u;
  asm("vabsdiff4.u32.u32.u32 %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c));
  o[24] = u;
  asm("vadd4.u32.u32.u32.sat %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c));
  o[25] = u;
  asm("vsub4.s32.s32.s32.sat %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c));
  o[26] = u;
  asm("vmax4.u32.u32.u32 %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c));
  o[27] = u;
  asm("vmin4.s32.s32.s32 %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c));
  o[28] = u;
  unsigned c0, c1;
  asm volatile("{ .reg .u32 r; mov.u32 r, %%clock; add.u32 %0, r, 0; }" : "=r"(c0));
  asm volatile("mov.u32 %0, %%clock;" : "=r"(c1));
  o[29] = c1 - c0 < 0x80000000u ? 1 : 0;  // the clock does not go back
}

// ---- the forms libraries write (CUB's) ---------------------------------------------------
// Shuffles that also set a predicate (whether the source lane was in range)
// and with any packing of c; scalar video instructions with a second
// operation; a load whose modifiers a macro's parameter spells; branches of
// the preprocessor inside an asm template; and PTX's exit, after which the
// lanes left meet at a barrier and a vote.
constexpr int kLibraryOps = 20;
#define LOAD_WITH(modifier, dst, ptr) \
  asm volatile("ld." #modifier ".u32 %0, [%1];" : "=r"(dst) : "l"(ptr))

__global__ void library_forms(unsigned* out, const unsigned* in) {
  const unsigned t = threadIdx.x;
  const Lanes l = lanes();
  unsigned* o = out + t * kLibraryOps;
  unsigned u, p;
  asm volatile("{ .reg .pred q; shfl.sync.up.b32 %0|q, %2, %3, 0, 0xffffffff; selp.u32 %1, 1, 0, q; }"
               : "=r"(u), "=r"(p)
               : "r"(l.a), "r"(l.b % 7));
  o[0] = u;
  o[1] = p;
  asm volatile("{ .reg .pred q; shfl.sync.down.b32 %0|q, %2, %3, 15, 0xffffffff; selp.u32 %1, 1, 0, q; }"
               : "=r"(u), "=r"(p)
               : "r"(l.a), "r"(l.b % 9));
  o[2] = u;
  o[3] = p;
  asm volatile("{ .reg .pred q; shfl.sync.idx.b32 %0|q, %2, %3, 0x1803, 0xffffffff; selp.u32 %1, 1, 0, q; }"
               : "=r"(u), "=r"(p)
               : "r"(l.a), "r"(l.b % 11));
  o[4] = u;
  o[5] = p;
  asm volatile("{ .reg .pred q; shfl.sync.bfly.b32 %0|q, %2, %3, 0x1007, 0xffffffff; selp.u32 %1, 1, 0, q; }"
               : "=r"(u), "=r"(p)
               : "r"(l.a), "r"(l.b % 13));
  o[6] = u;
  o[7] = p;
  asm volatile("shfl.sync.down.b32 %0, %1, 1, 0x1c02, 0xffffffff;" : "=r"(u) : "r"(l.a));
  o[8] = u;
  asm("vshr.u32.u32.u32.clamp.add %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b % 40), "r"(l.c));
  o[9] = u;
  asm("vshl.u32.u32.u32.clamp.add %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b % 40), "r"(l.c));
  o[10] = u;
  asm("vadd.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c));
  o[11] = u;
  asm("vshr.s32.s32.u32.wrap %0, %1, %2;" : "=r"(u) : "r"(l.a), "r"(l.b % 40));
  o[12] = u;
  asm("vmin.s32.s32.s32.max %0, %1, %2, %3;" : "=r"(u) : "r"(l.a), "r"(l.b), "r"(l.c));
  o[13] = u;
  asm("vsub.s32.s32.s32.sat %0, %1, %2;" : "=r"(u) : "r"(l.a), "r"(l.b));
  o[14] = u;
  LOAD_WITH(global.cg, u, in + t);
  o[15] = u;
  asm("{\n"
      "  .reg .pred q;\n"
      "  setp.ne.u32 q, %1, 0;\n"
#ifdef __CUDA_ARCH__
      "  selp.u32 %0, 11, 12, q;\n"
#else
      "  selp.u32 %0, 13, 14, q;\n"
#endif
      "}\n"
      : "=r"(u)
      : "r"(l.a & 1));
  o[16] = u;
  o[17] = o[18] = o[19] = 0xdeadu;
  if (t % 5 == 4) {
    o[17] = 1;
    asm volatile("exit;");
    o[18] = 2;  // never
  }
  __syncthreads();
  o[18] = __activemask();
  o[19] = __ballot_sync(__activemask(), l.a & 1);
}

// ---- printing -------------------------------------------------------------------------------
static void print_rows(const char* group, const unsigned* values, int ops, int lanes) {
  for (int op = 0; op < ops; ++op) {
    std::printf("%s %d:", group, op);
    for (int lane = 0; lane < lanes; ++lane) {
      if (lane % 8 == 0 && lane) std::printf("\n ");
      std::printf(" %08x", values[lane * ops + op]);
    }
    std::printf("\n");
  }
}

template <class Kernel>
static void run_simple(const char* group, Kernel kernel, int ops) {
  unsigned* d;
  CK(cudaMalloc(&d, kLanes * ops * sizeof(unsigned)));
  kernel<<<1, kLanes>>>(d);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  unsigned h[kLanes * 64];
  CK(cudaMemcpy(h, d, kLanes * ops * sizeof(unsigned), cudaMemcpyDeviceToHost));
  print_rows(group, h, ops, kLanes);
  CK(cudaFree(d));
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device\n");
    return 77;
  }
  run_simple("int", integers, kIntOps);
  run_simple("bits", bit_ops, kBitOps);
  run_simple("pred", predicates, kPredOps);
  run_simple("float", floats, kFloatOps);

  float* da;
  CK(cudaMalloc(&da, kLanes * kApproxOps * sizeof(float)));
  approximations<<<1, kLanes>>>(da);
  CK(cudaDeviceSynchronize());
  float ha[kLanes * kApproxOps];
  CK(cudaMemcpy(ha, da, sizeof(ha), cudaMemcpyDeviceToHost));
  for (int op = 0; op < kApproxOps; ++op) {
    std::printf("approx %d~:", op);
    for (int lane = 0; lane < kLanes; ++lane) {
      if (lane % 8 == 0 && lane) std::printf("\n~");
      std::printf(" %.7e", double(ha[lane * kApproxOps + op]));
    }
    std::printf("\n");
  }
  CK(cudaFree(da));

  const int blocks = 2, threads = 64;
  unsigned *out, *data, *counters;
  CK(cudaMalloc(&out, blocks * threads * kMiscOps * sizeof(unsigned)));
  CK(cudaMalloc(&data, blocks * threads * 4 * sizeof(unsigned)));
  CK(cudaMalloc(&counters, 8 * sizeof(unsigned)));
  CK(cudaMemset(counters, 0, 8 * sizeof(unsigned)));
  unsigned* in;
  unsigned host_in[threads + 2];
  for (int i = 0; i < threads + 2; ++i) host_in[i] = 0x1000u * unsigned(i) + 7u;
  CK(cudaMalloc(&in, sizeof(host_in)));
  CK(cudaMemcpy(in, host_in, sizeof(host_in), cudaMemcpyHostToDevice));
  misc<<<blocks, threads>>>(out, data, counters, in);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  static unsigned h[blocks * threads * kMiscOps];
  CK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
  print_rows("misc", h, kMiscOps, blocks * threads);
  unsigned hc[8];
  CK(cudaMemcpy(hc, counters, sizeof(hc), cudaMemcpyDeviceToHost));
  float fsum;
  std::memcpy(&fsum, &hc[6], 4);
  std::printf("atomics: %u %u %08x %u %08x %u %g %u\n", hc[0], hc[1], hc[2], hc[3], hc[4],
              hc[5] >= 1000 && hc[5] < 1064 ? 1u : 0u, double(fsum), hc[7] < 64 ? 1u : 0u);
  CK(cudaFree(out));
  CK(cudaFree(data));
  CK(cudaFree(counters));

  unsigned* lib;
  CK(cudaMalloc(&lib, kLanes * kLibraryOps * sizeof(unsigned)));
  library_forms<<<1, kLanes>>>(lib, in);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  unsigned hl[kLanes * kLibraryOps];
  CK(cudaMemcpy(hl, lib, sizeof(hl), cudaMemcpyDeviceToHost));
  print_rows("library", hl, kLibraryOps, kLanes);
  CK(cudaFree(lib));
  CK(cudaFree(in));
  std::printf("done\n");
  return 0;
}

// The tests of this program (tests/lit/README.md): its results against an
// H100's (data/inline_ptx_gpu.txt), in block loops and with a fiber per
// thread (PTX's exit then leaves through the thread's runner, not as the
// block loops' return).
// BUILD:
// TEST: unit.inline_ptx_match_gpu
// LABELS: unit
// RUN: %bin > inline_ptx_sim.txt
// RUN: %python %S/compare_with_gpu.py inline_ptx_sim.txt %data/inline_ptx_gpu.txt
//
// TEST: unit.inline_ptx_fibers_match_gpu
// LABELS: unit
// RUN: CUDALAB_BLOCK_LOOPS=off %bin > inline_ptx_fibers.txt
// RUN: %python %S/compare_with_gpu.py inline_ptx_fibers.txt %data/inline_ptx_gpu.txt
//
// TEST: unit.inline_ptx_exit_in_block_loops
// LABELS: unit
// REQUIRES: block-loops
// RUN: %python %S/has_block_loops.py %bin library_forms misc
//
// TEST: gpu.inline_ptx_match_expected
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu > inline_ptx_gpu_now.txt
// RUN: %python %S/compare_with_gpu.py inline_ptx_gpu_now.txt %data/inline_ptx_gpu.txt
