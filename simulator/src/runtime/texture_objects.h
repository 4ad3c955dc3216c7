// What textures.cpp and texture_sampling.cpp share: a texture or surface
// object as the runtime keeps it (its resource, channel format and
// sampling description), and the lookup of one in a kernel. Not a public
// header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "cudalab/texture.h"

namespace cudalab::rt {

struct Resource {
  enum Kind { array, linear, pitch2d } kind = array;
  const unsigned char* base = nullptr;
  cudaChannelFormatDesc desc{};
  size_t element = 0;
  size_t width = 1, height = 1, depth = 1;  // depth: slices, layers or faces
  size_t pitch = 0, slice = 0;              // bytes
  bool layered = false, cubemap = false;
  int dims = 1;  // of the array: 1, 2 or 3
  cudaArray* source = nullptr;
  std::shared_ptr<cudaArray> keep;  // the array's texels, alive as long as the object
  cudaResourceDesc given{};
};

enum class Format { f32, f16, s8, u8, s16, u16, s32, u32 };

struct Object {
  bool surface = false;
  Resource res;
  // The channel format, worked out once (prepare_format).
  Format format = Format::f32;
  int channels = 1, channel_bytes = 4;
  bool normalized_read = false;
  cudaTextureDesc tex{};
  uint32_t border[4] = {0, 0, 0, 0};
  double border_units[4] = {0, 0, 0, 0};  // for filtering: float value, or 16-bit units
};

inline bool is_integer_format(const cudaChannelFormatDesc& d) {
  return d.f != cudaChannelFormatKindFloat;
}

// A float's bits, as a fetch's 32-bit register holds them.
inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// A normalized integer as the GPU's filter blends it: unsigned ones in
// 16-bit units (an 8-bit 255 is 65535), signed ones as they are (the most
// negative included; 8-bit ones are widened to 16 bits after the blend:
// widen_signed_8_bit).
inline double filter_units(int64_t v, int bits, bool is_signed) {
  if (is_signed) return double(v);
  return double(v) * (65535.0 / double((int64_t(1) << bits) - 1));
}

// The object behind `handle` for a fetch (surface: false) or a surface
// access in a kernel; a handle that is not one stops the thread as a GPU's
// fault does. The table does not change during a launch: no lock.
const Object* object_in_kernel(unsigned long long handle, bool surface);

}  // namespace cudalab::rt
