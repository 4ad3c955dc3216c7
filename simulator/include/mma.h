// cudalab's CPU simulator: the warp matrix functions of mma.h (nvcuda::wmma),
// written for the simulator. A GPU spreads a fragment over the 32 lanes of
// a warp in a layout CUDA leaves unspecified. Here an accumulator's
// elements are shared out: lane l holds elements l, l + 32, l + 64, ... of
// the M x N tile in row-major order (num_elements = M * N / 32, as on a
// GPU); a matrix_a or matrix_b fragment has room for the whole tile
// (num_elements = rows * columns) and each lane loads into it the rows of A
// and the column of B that its share of D = A * B + C needs. So mma_sync
// computes each lane's share from what that lane loaded, and
// store_matrix_sync writes each lane's share: the lanes never need each
// other, and what a program does element by element to a fragment (scaling
// an accumulator, converting an operand) works as on a GPU. Products are
// exact and summed in float (double for m8n8k4, int for 8-bit integers) in
// k order, then rounded once to the accumulator's type; tensor cores sum in
// an order of their own, so float results may differ in the last bits. TF32
// operands lose their low 13 mantissa bits in mma_sync, as a tensor core
// reads them; __float_to_tf32 rounds to nearest, ties away from zero.
// Shapes: m16n16k16, m32n8k16, m8n32k16 (half, bfloat16, 8-bit integers),
// m16n16k8 (tf32), m8n8k4 (double). Not here: the 4-bit and 1-bit types.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda_bf16.h"
#include "cuda_fp16.h"
#include "cuda_runtime.h"

namespace nvcuda::wmma {

struct row_major {};
struct col_major {};
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
enum layout_t { mem_row_major, mem_col_major };
namespace precision {
struct tf32 {};
}  // namespace precision

}  // namespace nvcuda::wmma

namespace cudalab::detail::wmma {

using namespace nvcuda::wmma;

template <class T>
struct element {
  using type = T;
};
template <>
struct element<precision::tf32> {
  using type = float;
};

template <class Use, int M, int N, int K>
struct shape;
template <int M, int N, int K>
struct shape<matrix_a, M, N, K> {
  static constexpr int rows = M, cols = K;
};
template <int M, int N, int K>
struct shape<matrix_b, M, N, K> {
  static constexpr int rows = K, cols = N;
};
template <int M, int N, int K>
struct shape<accumulator, M, N, K> {
  static constexpr int rows = M, cols = N;
};

template <int M, int N, int K>
constexpr bool supported_shape = (M == 16 && N == 16 && K == 16) ||
                                 (M == 32 && N == 8 && K == 16) || (M == 8 && N == 32 && K == 16) ||
                                 (M == 16 && N == 16 && K == 8) || (M == 8 && N == 8 && K == 4);

// The running launch uses tensor cores (what a prediction of its time
// leaves out: src/runtime/launch.cpp).
void note_tensor_cores();

// The calling thread's lane.
inline unsigned lane() {
  return ((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) % 32u;
}

template <class T>
float as_float(T v) {
  return static_cast<float>(v);
}
// A tf32 operand as a tensor core reads it: its top 19 bits.
inline float tf32_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  b &= 0xffffe000u;
  std::memcpy(&f, &b, 4);
  return f;
}

}  // namespace cudalab::detail::wmma

namespace nvcuda::wmma {

template <class Use, int M, int N, int K, class T, class Layout = void>
class fragment {
  static_assert(cudalab::detail::wmma::supported_shape<M, N, K>,
                "cudalab: this wmma shape is not supported on the simulator (m16n16k16, "
                "m32n8k16, m8n32k16, m16n16k8 and m8n8k4 are)");
  using shape = cudalab::detail::wmma::shape<Use, M, N, K>;
  static constexpr bool shared_out = std::is_same_v<Use, accumulator>;

 public:
  using element_type = typename cudalab::detail::wmma::element<T>::type;
  using storage_element_type = element_type;
  static constexpr int num_elements =
      shared_out ? shape::rows * shape::cols / 32 : shape::rows * shape::cols;
  element_type x[num_elements];
};

template <class Use, int M, int N, int K, class T, class Layout, class V>
inline void fill_fragment(fragment<Use, M, N, K, T, Layout>& f, const V& v) {
  using E = typename fragment<Use, M, N, K, T, Layout>::element_type;
  for (auto& e : f.x) e = static_cast<E>(v);
}

namespace detail_ {
// An operand tile in row-major order of its own rows and columns: of A the
// rows, of B the column, that the lane's share of the accumulator needs
// (lane l's elements l, l + 32, ... lie in rows r with r % (32 / N) == l / N
// and in column l % N), the rest left as they are.
template <class Use, int M, int N, int K, class T, class Layout, class P>
void load_operand(fragment<Use, M, N, K, T, Layout>& f, const P* p, unsigned ldm, bool row) {
  using S = cudalab::detail::wmma::shape<Use, M, N, K>;
  const int lane = int(cudalab::detail::wmma::lane());
  for (int r = 0; r < S::rows; ++r) {
    if (std::is_same_v<Use, matrix_a> && r % (32 / N) != lane / N) continue;
    for (int c = 0; c < S::cols; ++c) {
      if (std::is_same_v<Use, matrix_b> && c != lane % N) continue;
      f.x[r * S::cols + c] = row ? p[r * ldm + c] : p[c * ldm + r];
    }
  }
}
}  // namespace detail_

// matrix_a and matrix_b: the layout is the fragment's.
template <class Use, int M, int N, int K, class T, class Layout, class P>
inline std::enable_if_t<!std::is_same_v<Use, accumulator> && !std::is_void_v<Layout>>
load_matrix_sync(fragment<Use, M, N, K, T, Layout>& f, const P* p, unsigned ldm) {
  detail_::load_operand(f, p, ldm, std::is_same_v<Layout, row_major>);
}
// An accumulator: the layout is the call's; each lane loads its share.
template <int M, int N, int K, class T, class P>
inline void load_matrix_sync(fragment<accumulator, M, N, K, T>& f, const P* p, unsigned ldm,
                             layout_t layout) {
  const unsigned lane = cudalab::detail::wmma::lane();
  for (int i = 0; i < f.num_elements; ++i) {
    const int e = i * 32 + int(lane), r = e / N, c = e % N;
    f.x[i] = layout == mem_row_major ? p[r * ldm + c] : p[c * ldm + r];
  }
}
template <int M, int N, int K, class T, class P>
inline void store_matrix_sync(P* p, const fragment<accumulator, M, N, K, T>& f, unsigned ldm,
                              layout_t layout) {
  const unsigned lane = cudalab::detail::wmma::lane();
  for (int i = 0; i < f.num_elements; ++i) {
    const int e = i * 32 + int(lane), r = e / N, c = e % N;
    (layout == mem_row_major ? p[r * ldm + c] : p[c * ldm + r]) = f.x[i];
  }
}

// D = A * B + C, each lane its share of D. `satf` (saturate to finite) is
// honoured for float accumulators.
template <int M, int N, int K, class TA, class LA, class TB, class LB, class TC, class TD>
inline void mma_sync(fragment<accumulator, M, N, K, TD>& d,
                     const fragment<matrix_a, M, N, K, TA, LA>& a,
                     const fragment<matrix_b, M, N, K, TB, LB>& b,
                     const fragment<accumulator, M, N, K, TC>& c, bool satf = false) {
  cudalab::detail::wmma::note_tensor_cores();
  using E = typename fragment<accumulator, M, N, K, TD>::element_type;
  using Sum = std::conditional_t<std::is_same_v<E, double>, double,
                                 std::conditional_t<std::is_same_v<E, int>, int, float>>;
  const int lane = int(cudalab::detail::wmma::lane());
  constexpr bool tf32 = std::is_same_v<TA, precision::tf32>;
  // The lane's column of B, converted once; then each of its elements' row
  // of A (products are exact, so converting first changes nothing).
  auto operand = [](auto v) {
    if constexpr (std::is_same_v<Sum, float>) {
      const float f = cudalab::detail::wmma::as_float(v);
      return tf32 ? cudalab::detail::wmma::tf32_bits(f) : f;
    } else {
      return static_cast<Sum>(v);
    }
  };
  Sum column[K];
  for (int k = 0; k < K; ++k) column[k] = operand(b.x[k * N + lane % N]);
  E out[fragment<accumulator, M, N, K, TD>::num_elements];
  for (int i = 0; i < d.num_elements; ++i) {
    const int r = (i * 32 + lane) / N;
    Sum sum;
    if constexpr (std::is_same_v<Sum, float>)
      sum = cudalab::detail::wmma::as_float(c.x[i]);
    else
      sum = static_cast<Sum>(c.x[i]);
    for (int k = 0; k < K; ++k) sum += operand(a.x[r * K + k]) * column[k];
    if constexpr (std::is_same_v<Sum, float>) {
      if (satf && !(sum != sum)) {
        const float big = std::is_same_v<E, float> ? 3.40282347e38f : 65504.0f;
        sum = sum > big ? big : (sum < -big ? -big : sum);
      }
    }
    out[i] = static_cast<E>(sum);
  }
  for (int i = 0; i < d.num_elements; ++i) d.x[i] = out[i];
}

// A float rounded to TF32 (10 mantissa bits), to nearest with ties away
// from zero, as cvt.rna.tf32.f32; NaN and infinities pass through.
inline float __float_to_tf32(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  if ((b & 0x7f800000u) != 0x7f800000u) b = (b + 0x1000u) & 0xffffe000u;
  std::memcpy(&f, &b, 4);
  return f;
}

}  // namespace nvcuda::wmma
