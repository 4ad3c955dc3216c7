// What inline PTX means on the simulator. The rewriter (simulator/rewriter/
// inline_ptx.cpp) turns each PTX instruction of an `asm("..." : ...)`
// statement into C++ at the statement's own line; the operations it calls are
// these, with PTX's semantics: registers hold bits that each instruction reads
// as its own type, integer arithmetic wraps, shifts and bit fields clamp as
// the PTX ISA says, and rounding modifiers round. Not for programs to call.
#pragma once

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "cudalab/detail/atomic.h"
#include "cudalab/detail/math.h"
#include "cudalab/detail/sync.h"

namespace cudalab::ptx {

// ---- registers: an operand's bits, read as an instruction's type -----------------------
template <class V>
uint64_t bits_of(const V& v) {
  if constexpr (std::is_same_v<V, bool>) {
    return v ? 1 : 0;
  } else if constexpr (std::is_floating_point_v<V>) {
    if constexpr (sizeof(V) == 4)
      return detail::bit_cast<uint32_t>(v);
    else
      return detail::bit_cast<uint64_t>(v);
  } else if constexpr (std::is_pointer_v<V>) {
    return reinterpret_cast<uintptr_t>(v);
  } else if constexpr (std::is_enum_v<V>) {
    return static_cast<uint64_t>(v);
  } else if constexpr (std::is_integral_v<V>) {
    return static_cast<uint64_t>(v);  // signed values sign-extend, as a wider register would
  } else {
    static_assert(
        sizeof(V) == 2 || sizeof(V) == 4 || sizeof(V) == 8,
        "an inline PTX operand must be a number, a pointer or a 16-, 32- or 64-bit value");
    if constexpr (sizeof(V) == 2) return detail::bit_cast<uint16_t>(v);
    if constexpr (sizeof(V) == 4) return detail::bit_cast<uint32_t>(v);
    if constexpr (sizeof(V) == 8) return detail::bit_cast<uint64_t>(v);
  }
}
template <class T>
T from_bits(uint64_t bits) {
  if constexpr (std::is_same_v<T, bool>) {
    return bits != 0;
  } else if constexpr (std::is_floating_point_v<T>) {
    if constexpr (sizeof(T) == 4)
      return detail::bit_cast<float>(uint32_t(bits));
    else
      return detail::bit_cast<double>(bits);
  } else if constexpr (std::is_pointer_v<T>) {
    return reinterpret_cast<T>(static_cast<uintptr_t>(bits));
  } else if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
    return static_cast<T>(bits);
  } else {
    T t;
    if constexpr (sizeof(T) == 2) {
      const uint16_t b = uint16_t(bits);
      std::memcpy(&t, &b, 2);
    } else if constexpr (sizeof(T) == 4) {
      const uint32_t b = uint32_t(bits);
      std::memcpy(&t, &b, 4);
    } else {
      std::memcpy(&t, &bits, 8);
    }
    return t;
  }
}
// An operand read as type T.
template <class T, class V>
T get(const V& v) {
  if constexpr (std::is_same_v<T, V>)
    return v;
  else
    return from_bits<T>(bits_of(v));
}
// A result of type T written to an output operand or a declared register.
template <class T, class L>
void put(L& dst, T value) {
  if constexpr (std::is_same_v<T, L>)
    dst = value;
  else
    dst = from_bits<L>(bits_of(value));
}
// An immediate written as 0fXXXXXXXX (a float's bits) or 0dXXXXXXXXXXXXXXXX.
inline float float_bits(uint32_t b) { return detail::bit_cast<float>(b); }
inline double double_bits(uint64_t b) { return detail::bit_cast<double>(b); }

// ---- special registers ------------------------------------------------------------------
unsigned laneid();
unsigned warpid();
unsigned nwarpid();
unsigned smid();
unsigned nsmid();
unsigned long long gridid();
unsigned lanemask(int which);  // 0 eq, 1 lt, 2 le, 3 gt, 4 ge
unsigned clock32();
unsigned long long clock64();
unsigned long long globaltimer();
unsigned dynamic_smem_size();
// %tid, %ntid, %ctaid, %nctaid: which 0 tid, 1 ntid, 2 ctaid, 3 nctaid; axis 0-2.
unsigned index_register(int which, int axis);

// ---- integer arithmetic (wraps, as registers do) ----------------------------------------
template <class T>
using U = std::make_unsigned_t<T>;
template <class T>
constexpr int kBits = int(sizeof(T) * 8);

template <class T>
T add(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return a + b;
  else
    return T(U<T>(a) + U<T>(b));
}
template <class T>
T sub(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return a - b;
  else
    return T(U<T>(a) - U<T>(b));
}
template <class T>
T mul_lo(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return a * b;
  else
    return T(U<T>(a) * U<T>(b));
}
template <class T>
T add_sat(T a, T b) {
  const int64_t r = int64_t(a) + int64_t(b);
  return T(r > std::numeric_limits<T>::max()   ? std::numeric_limits<T>::max()
           : r < std::numeric_limits<T>::min() ? std::numeric_limits<T>::min()
                                               : r);
}
template <class T>
T sub_sat(T a, T b) {
  const int64_t r = int64_t(a) - int64_t(b);
  return T(r > std::numeric_limits<T>::max()   ? std::numeric_limits<T>::max()
           : r < std::numeric_limits<T>::min() ? std::numeric_limits<T>::min()
                                               : r);
}
template <class T>
auto wide(T v) {
  if constexpr (sizeof(T) == 8)
    return static_cast<std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>>(v);
  else if constexpr (std::is_signed_v<T>)
    return int64_t(v);
  else
    return uint64_t(v);
}
template <class T>
T mul_hi(T a, T b) {
  return T(wide(a) * wide(b) >> kBits<T>);
}
// mul.wide: the whole product, in a type twice as wide.
template <class T>
auto mul_wide(T a, T b) {
  static_assert(sizeof(T) <= 4, "mul.wide takes 16- and 32-bit operands");
  using W =
      std::conditional_t<sizeof(T) == 4, std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>,
                         std::conditional_t<std::is_signed_v<T>, int32_t, uint32_t>>;
  return W(W(a) * W(b));
}
template <class T>
T div(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return a / b;
  } else {
    if (b == 0) return T(~U<T>(0));  // undefined in PTX; all ones, as a GPU gives
    if constexpr (std::is_signed_v<T>)
      if (a == std::numeric_limits<T>::min() && b == T(-1)) return a;
    return T(a / b);
  }
}
template <class T>
T rem(T a, T b) {
  if (b == 0) return a;
  if constexpr (std::is_signed_v<T>)
    if (b == T(-1)) return 0;
  return T(a % b);
}
template <class T>
T abs(T a) {
  if constexpr (std::is_floating_point_v<T>)
    return std::fabs(a);
  else
    return a < 0 ? T(U<T>(0) - U<T>(a)) : a;
}
template <class T>
T neg(T a) {
  if constexpr (std::is_floating_point_v<T>)
    return -a;
  else
    return T(U<T>(0) - U<T>(a));
}
template <class T>
T min(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return std::fmin(a, b);
  else
    return a < b ? a : b;
}
template <class T>
T max(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return std::fmax(a, b);
  else
    return a > b ? a : b;
}

// ---- bits ---------------------------------------------------------------------------------
template <class T>
T shl(T a, uint32_t n) {
  return n >= uint32_t(kBits<T>) ? T(0) : T(U<T>(a) << n);
}
template <class T>
T shr(T a, uint32_t n) {
  if constexpr (std::is_signed_v<T>)
    return n >= uint32_t(kBits<T>) ? T(a < 0 ? -1 : 0) : T(a >> n);
  else
    return n >= uint32_t(kBits<T>) ? T(0) : T(a >> n);
}
template <class T>
uint32_t popc(T a) {
  return uint32_t(__builtin_popcountll(uint64_t(U<T>(a))));
}
template <class T>
uint32_t clz(T a) {
  const uint64_t v = uint64_t(U<T>(a));
  return v == 0 ? uint32_t(kBits<T>) : uint32_t(__builtin_clzll(v) - (64 - kBits<T>));
}
// bfind: the position of the most significant non-sign bit (0xffffffff when
// there is none); with .shiftamt, the left shift that brings it to the top.
template <class T>
uint32_t bfind(T a, bool shift_amount) {
  uint64_t v = uint64_t(U<T>(a));
  if (std::is_signed_v<T> && a < 0) v = uint64_t(U<T>(~U<T>(a)));
  if (v == 0) return 0xffffffffu;
  const uint32_t pos = uint32_t(63 - __builtin_clzll(v));
  return shift_amount ? uint32_t(kBits<T> - 1) - pos : pos;
}
template <class T>
T brev(T a) {
  U<T> v = U<T>(a), r = 0;
  for (int i = 0; i < kBits<T>; ++i) r = U<T>(r | (((v >> i) & 1u) << (kBits<T> - 1 - i)));
  return T(r);
}
// bfe: the field of `len` bits at `pos`, zero- or sign-extended (PTX clamps
// both to 0-255 and reads the sign from the field's last bit within the value).
template <class T>
T bfe(T a, uint32_t pos, uint32_t len) {
  pos &= 0xff;
  len &= 0xff;
  const int n = kBits<T>;
  const U<T> v = U<T>(a);
  bool sign = false;
  if (std::is_signed_v<T> && len != 0) {
    const uint32_t top = std::min<uint32_t>(pos + len - 1, uint32_t(n - 1));
    sign = (v >> top) & 1u;
  }
  U<T> r = 0;
  for (uint32_t i = 0; i < uint32_t(n); ++i) {
    const bool bit = i < len ? (pos + i < uint32_t(n) ? ((v >> (pos + i)) & 1u) : sign) : sign;
    if (bit) r = U<T>(r | (U<T>(1) << i));
  }
  if (!std::is_signed_v<T> && len == 0) r = 0;
  return T(r);
}
// bfi: b with `len` bits at `pos` taken from a's low bits.
template <class T>
T bfi(T a, T b, uint32_t pos, uint32_t len) {
  pos &= 0xff;
  len &= 0xff;
  U<T> r = U<T>(b);
  for (uint32_t i = 0; i < len && pos + i < uint32_t(kBits<T>); ++i) {
    const U<T> bit = U<T>(U<T>(1) << (pos + i));
    r = ((U<T>(a) >> i) & 1u) ? U<T>(r | bit) : U<T>(r & ~bit);
  }
  return T(r);
}
// prmt: bytes of {b, a} picked by c's selectors; mode 0 default, then f4e, b4e,
// rc8, ecl, ecr, rc16.
uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, int mode);
// lop3: any function of three inputs, bit by bit, given by its truth table.
inline uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut) {
  uint32_t r = 0;
  for (int i = 0; i < 8; ++i)
    if ((lut >> i) & 1u) r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
  return r;
}
// shf: the funnel shift of the 64 bits {b:a}; wrap takes n modulo 32, clamp
// at most 32.
uint32_t shf(uint32_t a, uint32_t b, uint32_t n, bool left, bool clamp);

// ---- floating point -----------------------------------------------------------------------
enum Rounding { kNearest = 0, kZero = 1, kDown = 2, kUp = 3 };
template <class T>
T flush(T v, bool ftz) {
  if constexpr (std::is_floating_point_v<T>)
    if (ftz && std::fpclassify(v) == FP_SUBNORMAL) return std::copysign(T(0), v);
  return v;
}
// A GPU's f32 arithmetic gives one NaN, all bits of the payload set
// (0x7fffffff), where x86 gives the quiet NaN of its inputs. f64's NaNs (its
// division and square root are instruction sequences) and conversions
// between f32 and f64 keep x86's, as the H100 was measured to.
template <class T>
T canonical(T v) {
  if constexpr (std::is_same_v<T, float>)
    if (std::isnan(v)) return detail::bit_cast<float>(0x7fffffffu);
  return v;
}
template <class T>
T saturate(T v, bool sat) {
  if constexpr (std::is_floating_point_v<T>) {
    if (!sat) return v;
    if (std::isnan(v)) return T(0);
    return v < T(0) ? T(0) : v > T(1) ? T(1) : v;
  } else {
    return v;
  }
}
inline int fe_mode(int rounding) {
  switch (rounding) {
    case kZero:
      return FE_TOWARDZERO;
    case kDown:
      return FE_DOWNWARD;
    case kUp:
      return FE_UPWARD;
    default:
      return FE_TONEAREST;
  }
}
// One float operation in a rounding mode, inputs and result flushed when
// `ftz`, the result clamped to [0, 1] when `sat`.
template <class T, class F, class... A>
T float_op(int rounding, bool ftz, bool sat, F f, A... a) {
  T r;
  if (rounding == kNearest)
    r = f(flush(a, ftz)...);
  else
    r = detail::with_sse_rounding(fe_mode(rounding), f, flush(a, ftz)...);
  return canonical(saturate(flush(r, ftz), sat));
}
template <class T>
T fma(int rounding, bool ftz, bool sat, T a, T b, T c) {
  const auto f = [](T x, T y, T z) { return std::fma(x, y, z); };
  const T r = rounding == kNearest ? f(flush(a, ftz), flush(b, ftz), flush(c, ftz))
                                   : T(detail::with_rounding(fe_mode(rounding), f, flush(a, ftz),
                                                             flush(b, ftz), flush(c, ftz)));
  return canonical(saturate(flush(r, ftz), sat));
}

// cvt: from S to D with PTX's rounding: integer rounding (rni, rzi, rmi, rpi)
// for float to float or to integers, float rounding (rn, rz, rm, rp) for
// narrowing floats and integer to float; integers saturate from floats.
template <class D, class S>
D cvt(S v, int rounding, bool integer_rounding, bool ftz, bool sat) {
  if constexpr (std::is_floating_point_v<S>) {
    v = flush(v, ftz);
    if (integer_rounding || !std::is_floating_point_v<D>) {
      switch (rounding) {
        case kZero:
          v = std::trunc(v);
          break;
        case kDown:
          v = std::floor(v);
          break;
        case kUp:
          v = std::ceil(v);
          break;
        default:
          v = std::nearbyint(v);
          break;
      }
    }
    if constexpr (std::is_floating_point_v<D>) {
      D r = rounding == kNearest || integer_rounding
                ? D(v)
                : D(detail::with_sse_rounding(
                      fe_mode(rounding), [](S x) { return D(x); }, v));
      if constexpr (std::is_same_v<D, S>) r = canonical(r);
      return saturate(flush(r, ftz), sat);
    } else {
      // NaN gives 0, except to 64-bit signed integers: their smallest value.
      if (std::isnan(v) && std::is_same_v<D, int64_t>) return std::numeric_limits<D>::min();
      return detail::saturate_to<D>(v);
    }
  } else if constexpr (std::is_floating_point_v<D>) {
    const D r = rounding == kNearest ? D(v)
                                     : D(detail::with_sse_rounding(
                                           fe_mode(rounding), [](S x) { return D(x); }, v));
    return saturate(r, sat);
  } else {
    if (sat) {
      // Integers clamp to the destination's range with .sat.
      if constexpr (std::is_signed_v<S>) {
        if (int64_t(v) < int64_t(std::numeric_limits<D>::min()) && std::is_signed_v<D>)
          return std::numeric_limits<D>::min();
        if (v < 0 && !std::is_signed_v<D>) return 0;
      }
      if (v > 0 && uint64_t(v) > uint64_t(std::numeric_limits<D>::max()))
        return std::numeric_limits<D>::max();
    }
    return D(v);
  }
}

// ---- comparisons --------------------------------------------------------------------------
// setp's comparison; the "u" forms are also true when either float is NaN.
enum Compare { kEq, kNe, kLt, kLe, kGt, kGe, kEqu, kNeu, kLtu, kLeu, kGtu, kGeu, kNum, kNan };
template <class T>
bool compare(Compare c, T a, T b) {
  bool unordered = false;
  if constexpr (std::is_floating_point_v<T>) unordered = std::isnan(a) || std::isnan(b);
  switch (c) {
    case kEq:
      return !unordered && a == b;
    case kNe:
      return !unordered && a != b;
    case kLt:
      return !unordered && a < b;
    case kLe:
      return !unordered && a <= b;
    case kGt:
      return !unordered && a > b;
    case kGe:
      return !unordered && a >= b;
    case kEqu:
      return unordered || a == b;
    case kNeu:
      return unordered || a != b;
    case kLtu:
      return unordered || a < b;
    case kLeu:
      return unordered || a <= b;
    case kGtu:
      return unordered || a > b;
    case kGeu:
      return unordered || a >= b;
    case kNum:
      return !unordered;
    case kNan:
      return unordered;
  }
  return false;
}

// ---- video instructions --------------------------------------------------------------------
// The SIMD ones, vabsdiff4, vadd4, vsub4, vmin4, vmax4, on the four bytes of
// a and b (signed when `is_signed`). `second`: 0 the four results (saturated
// to a byte with `sat`), 1 (.add) their sum plus c, 2 (.min) and 3 (.max)
// each byte's result against c's byte.
enum VideoOp { kVAbsdiff, kVAdd, kVSub, kVMin, kVMax, kVShl, kVShr };
uint32_t video4(VideoOp op, uint32_t a, uint32_t b, uint32_t c, bool is_signed, bool sat,
                int second);

// The scalar ones on 32-bit operands (no byte or half selectors): vadd, vsub,
// vabsdiff, vmin, vmax, vshl and vshr (the shift amount clamped to 32 with
// `clamp`, else taken mod 32), then `second`: 0 none, 1 (.add) plus c, 2
// (.min) and 3 (.max) against c; `sat` saturates the result to the
// destination's type. Signedness per operand (d, a, b) as the types say.
uint32_t video1(VideoOp op, uint32_t a, uint32_t b, uint32_t c, bool d_signed, bool a_signed,
                bool b_signed, bool sat, int second, bool clamp);

// ---- memory -------------------------------------------------------------------------------
// A library's loads and stores in PTX (CUB's cache-global ones, through
// which blocks pass each other partial results): atomic accesses (at least
// as strong as the relaxed ones the library means), which the checks do not
// count as races.
template <class T>
T atomic_load(volatile T* p) {
  return detail::atomic(const_cast<T*>(p)).load();
}
template <class T>
void atomic_store(volatile T* p, T v) {
  detail::atomic(const_cast<T*>(p)).exchange(v);
}
// A library's vector loads and stores (ld.cg.v2.u64, st.cg.v4.u32, ...) move
// their elements as one access, as a GPU's single transaction does: CUB's
// tile descriptors pack a status word beside the value it announces, and a
// block that reads another's status must find the value written with it.
void vector_move(volatile void* p, void* data, unsigned bytes, bool store);
template <bool kStore, class T, size_t N>
void vector_access(volatile T* p, T (&v)[N]) {
#ifdef CUDALAB_INSTRUMENTED
  if constexpr (kStore)
    detail::atomic_store_access(const_cast<T*>(p), unsigned(N * sizeof(T)));
  else
    detail::atomic_access(const_cast<T*>(p), unsigned(N * sizeof(T)));
#endif
  vector_move(p, v, unsigned(N * sizeof(T)), kStore);
}
// A load or store of `bytes` (a vector's whole size) at an address that is
// not a multiple of it stops the launch, as a GPU's misaligned-address error does.
[[noreturn]] void misaligned(const char* instruction, uintptr_t address, unsigned bytes);
template <class T>
T* aligned(T* p, unsigned bytes, const char* instruction) {
  if (reinterpret_cast<uintptr_t>(p) % bytes != 0)
    misaligned(instruction, reinterpret_cast<uintptr_t>(p), bytes);
  return p;
}

// ---- warps ---------------------------------------------------------------------------------
// shfl.sync as the PTX ISA defines it, for every packing of its c operand
// (the segment mask in bits 8-12, the clamp value in bits 0-4; CUDA's width
// w gives ((32 - w) << 8) | clamp): the lane that mode (0 up, 1 down, 2
// bfly, 3 idx) and b name for the calling lane, and whether it lies within
// the segment's bounds; a lane outside them reads the caller's own value.
struct ShuffleSource {
  int lane;
  bool in_range;
};
ShuffleSource shuffle_source(int mode, uint32_t b, uint32_t c);
// Inlined, so that the warp meets at the asm statement's own address.
__attribute__((always_inline)) inline uint32_t shuffle(int mode, uint32_t mask, uint32_t value,
                                                       uint32_t b, uint32_t c,
                                                       bool* in_range = nullptr) {
  const ShuffleSource s = shuffle_source(mode, b, c);
  if (in_range) *in_range = s.in_range;
  return detail::shuffle(detail::WarpOp::kShflIdx, mask, value, s.lane, 32, CUDALAB_PC);
}

// ---- what the simulator does not run --------------------------------------------------------
// In a library's header (CUB's), an instruction the simulator does not run
// stops the kernel when a thread reaches it (in a program's own source it is
// a compile error at its line instead).
[[noreturn]] void not_run(const char* what);
}  // namespace cudalab::ptx

// PTX's `exit`: the calling thread ends where it is (block_fibers.cpp; the
// block-loops pass makes a kernel's own calls of it a return).
extern "C" [[noreturn]] void cudalab_exit_thread();

namespace cudalab::ptx {}  // namespace cudalab::ptx
