// The machinery behind textures and surfaces (cudalab/texture.h): the one
// entry point a fetch or a surface access calls in the runtime
// (src/runtime/textures.cpp), and the conversions between the 32-bit values a fetch
// returns and the CUDA type a program asked for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cudalab/vector_types.h"

namespace cudalab::detail {

// What a fetch asks for. Coordinates as the program gave them.
enum class TexOp : int {
  fetch1d,  // tex1Dfetch: an integer index into linear memory
  sample,   // tex1D/2D/3D and the layered and LOD forms
  cubemap,  // texCubemap, texCubemapLayered
  gather,   // tex2Dgather
};
struct TexRequest {
  TexOp op;
  int dims;  // 1, 2 or 3 coordinates used
  float x, y, z;
  int layer;  // -1: not a layered fetch
  int comp;   // gather: the channel
  int index;  // fetch1d
};
// The four 32-bit values a fetch returns, as a GPU's registers hold them:
// float bits for float and normalized reads, sign- or zero-extended integers
// for integer elements.
struct TexResult {
  uint32_t v[4];
};
TexResult texture_fetch(unsigned long long object, const TexRequest& request);

// Surface accesses: x in bytes. mode: cudaSurfaceBoundaryMode.
enum class SurfDims : int { d1, d2, d3, layered1, layered2, cubemap, cubemap_layered };
void surface_access(unsigned long long object, SurfDims dims, int x, int y, int z, int mode,
                    void* data, size_t size, bool write);

// The scalar type and component count of CUDA's vector types.
template <class T>
struct VecTraits {
  using scalar = T;
  static constexpr int count = 1;
};
#define CUDALAB_VEC_TRAITS(base, scalar_type) \
  template <>                                 \
  struct VecTraits<base##1> {                 \
    using scalar = scalar_type;               \
    static constexpr int count = 1;           \
  };                                          \
  template <>                                 \
  struct VecTraits<base##2> {                 \
    using scalar = scalar_type;               \
    static constexpr int count = 2;           \
  };                                          \
  template <>                                 \
  struct VecTraits<base##3> {                 \
    using scalar = scalar_type;               \
    static constexpr int count = 3;           \
  };                                          \
  template <>                                 \
  struct VecTraits<base##4> {                 \
    using scalar = scalar_type;               \
    static constexpr int count = 4;           \
  };
CUDALAB_VEC_TRAITS(char, signed char)
CUDALAB_VEC_TRAITS(uchar, unsigned char)
CUDALAB_VEC_TRAITS(short, short)
CUDALAB_VEC_TRAITS(ushort, unsigned short)
CUDALAB_VEC_TRAITS(int, int)
CUDALAB_VEC_TRAITS(uint, unsigned int)
CUDALAB_VEC_TRAITS(float, float)
#undef CUDALAB_VEC_TRAITS

// A fetch's result as T: each component from its register.
template <class T>
T texture_result_as(const TexResult& r) {
  using S = typename VecTraits<T>::scalar;
  S parts[4];
  for (int i = 0; i < VecTraits<T>::count; ++i) {
    if constexpr (std::is_floating_point_v<S>) {
      float f;
      std::memcpy(&f, &r.v[i], 4);
      parts[i] = S(f);
    } else {
      parts[i] = S(int32_t(r.v[i]));
    }
  }
  T out;
  static_assert(sizeof(T) == sizeof(S) * VecTraits<T>::count, "a CUDA scalar or vector type");
  std::memcpy(&out, parts, sizeof(T));
  return out;
}

inline TexResult fetch(unsigned long long t, TexOp op, int dims, float x, float y, float z,
                       int layer, int comp = 0, int index = 0) {
  return texture_fetch(t, TexRequest{op, dims, x, y, z, layer, comp, index});
}

// The float type a normalized read of T returns (uchar4 -> float4).
template <int N>
struct FloatVector;
template <>
struct FloatVector<1> {
  using type = float;
};
template <>
struct FloatVector<2> {
  using type = float2;
};
template <>
struct FloatVector<3> {
  using type = float3;
};
template <>
struct FloatVector<4> {
  using type = float4;
};

// Legacy texture references: the object a bind made, per reference.
unsigned long long reference_object(const void* reference);

}  // namespace cudalab::detail
