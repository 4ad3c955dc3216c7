// CUDA arrays, their copies, texture and surface objects, legacy texture
// references, and the sampling behind every fetch: address modes, point and
// linear filtering with the GPU's 8-bit fractional weights, normalized
// reads of integer channels, layers and cubemap faces. Measured against an
// H100 with tests/programs/textures.cu (docs/simulator.md says where it
// still differs).
#include "runtime/textures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "checks/shadow.h"
#include "cudalab/detail/half.h"
#include "cudalab/texture.h"
#include "grid/grid.h"
#include "runtime/allocations.h"
#include "runtime/errors.h"

using namespace cudalab::rt;
using cudalab::detail::SurfDims;
using cudalab::detail::TexOp;
using cudalab::detail::TexRequest;
using cudalab::detail::TexResult;

struct cudaArray {
  cudaChannelFormatDesc desc{};
  cudaExtent extent{};  // as allocated: height 0 for 1D, depth 0 for 2D
  unsigned flags = 0;
  size_t element = 0;                       // bytes per element
  size_t width = 0, height = 0, depth = 0;  // at least 1 each; depth counts layers and faces
  std::vector<unsigned char> data;
  size_t row_bytes() const { return width * element; }
  unsigned char* at(size_t x, size_t y, size_t z) {
    return data.data() + ((z * height + y) * width + x) * element;
  }
};

namespace {

// ---- channel formats ---------------------------------------------------------------------------
int channel_count(const cudaChannelFormatDesc& d) {
  return (d.x > 0) + (d.y > 0) + (d.z > 0) + (d.w > 0);
}

// A description the GPU accepts: 1, 2 or 4 channels of one size (8, 16 or
// 32 bits; floats 16 or 32).
bool valid_desc(const cudaChannelFormatDesc& d) {
  const int n = channel_count(d);
  if (n != 1 && n != 2 && n != 4) return false;
  const int sizes[4] = {d.x, d.y, d.z, d.w};
  for (int i = 0; i < 4; ++i)
    if ((i < n) != (sizes[i] > 0) || (i < n && sizes[i] != d.x)) return false;
  if (d.x != 8 && d.x != 16 && d.x != 32) return false;
  if (d.f == cudaChannelFormatKindFloat) return d.x != 8;
  return d.f == cudaChannelFormatKindSigned || d.f == cudaChannelFormatKindUnsigned;
}
size_t element_bytes(const cudaChannelFormatDesc& d) {
  return size_t(channel_count(d)) * size_t(d.x) / 8;
}

// ---- arrays ------------------------------------------------------------------------------------
std::mutex g_textures_mutex;
// Shared: a texture or surface object keeps its array's texels alive
// after cudaFreeArray, so a fetch through it never reads freed memory.
std::unordered_map<const cudaArray*, std::shared_ptr<cudaArray>>& arrays() {
  static std::unordered_map<const cudaArray*, std::shared_ptr<cudaArray>> a;
  return a;
}
std::shared_ptr<cudaArray> shared_array(const cudaArray* a) {
  std::lock_guard lock(g_textures_mutex);
  auto it = arrays().find(a);
  return it == arrays().end() ? nullptr : it->second;
}
cudaArray* find_array(const cudaArray* a) {
  std::lock_guard lock(g_textures_mutex);
  auto it = arrays().find(a);
  return it == arrays().end() ? nullptr : it->second.get();
}

cudaError_t make_array(cudaArray_t* out, const cudaChannelFormatDesc* desc, cudaExtent e,
                       unsigned flags) {
  if (!out || !desc) return cudaErrorInvalidValue;
  if (!valid_desc(*desc)) return cudaErrorInvalidChannelDescriptor;
  if (e.width == 0) return cudaErrorInvalidValue;
  if (flags & ~unsigned(cudaArrayLayered | cudaArraySurfaceLoadStore | cudaArrayCubemap |
                        cudaArrayTextureGather))
    return cudaErrorInvalidValue;
  if (flags & cudaArrayCubemap) {
    // Square faces, six of them (six per layer when layered).
    if (e.width != e.height || e.depth == 0 || e.depth % 6 != 0 ||
        (!(flags & cudaArrayLayered) && e.depth != 6))
      return cudaErrorInvalidValue;
  }
  if ((flags & cudaArrayLayered) && e.depth == 0) return cudaErrorInvalidValue;
  if (e.depth > 0 && e.height == 0 && !(flags & cudaArrayLayered)) return cudaErrorInvalidValue;
  auto a = std::make_shared<cudaArray>();
  a->desc = *desc;
  a->extent = e;
  a->flags = flags;
  a->element = element_bytes(*desc);
  a->width = e.width;
  a->height = std::max<size_t>(e.height, 1);
  a->depth = std::max<size_t>(e.depth, 1);
  const double bytes = double(a->width) * double(a->height) * double(a->depth) * double(a->element);
  if (bytes > 64.0 * 1024 * 1024 * 1024) return cudaErrorMemoryAllocation;
  try {
    a->data.assign(a->width * a->height * a->depth * a->element, 0);
  } catch (const std::bad_alloc&) {
    return cudaErrorMemoryAllocation;
  }
  *out = a.get();
  std::lock_guard lock(g_textures_mutex);
  arrays().emplace(a.get(), std::move(a));
  return cudaSuccess;
}

bool kind_ok(cudaMemcpyKind kind) {
  return kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault;
}

}  // namespace

cudaError_t cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width,
                            size_t height, unsigned int flags) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  return api_result(make_array(array, desc, cudaExtent{width, height, 0}, flags));
}

cudaError_t cudaMalloc3DArray(cudaArray_t* array, const cudaChannelFormatDesc* desc,
                              cudaExtent extent, unsigned int flags) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  return api_result(make_array(array, desc, extent, flags));
}

cudaError_t cudaFreeArray(cudaArray_t array) {
  if (!array) return api_result(cudaSuccess);
  std::lock_guard lock(g_textures_mutex);
  if (arrays().erase(array) == 0) return api_result(cudaErrorInvalidValue);
  return api_result(cudaSuccess);
}

cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent, unsigned int* flags,
                             cudaArray_t array) {
  const cudaArray* a = find_array(array);
  if (!a) return api_result(cudaErrorInvalidResourceHandle);
  if (desc) *desc = a->desc;
  if (extent) *extent = a->extent;
  if (flags) *flags = a->flags;
  return api_result(cudaSuccess);
}

cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc* desc, cudaArray_const_t array) {
  const cudaArray* a = find_array(array);
  if (!a || !desc) return api_result(cudaErrorInvalidValue);
  *desc = a->desc;
  return api_result(cudaSuccess);
}

namespace {
// Copies a window of `rows` rows of `width` bytes, rows `depth` slices
// deep, between an array (at element x, row y, slice z) and memory.
cudaError_t array_window(cudaArray* a, size_t x_bytes, size_t y, size_t z, size_t width,
                         size_t rows, size_t slices, char* mem, size_t pitch, size_t slice_pitch,
                         bool to_array) {
  if (x_bytes % a->element || width % a->element) return cudaErrorInvalidValue;
  if (x_bytes + width > a->row_bytes() || y + rows > a->height || z + slices > a->depth)
    return cudaErrorInvalidValue;
  if (width == 0 || rows == 0 || slices == 0) return cudaSuccess;
  if (!mem) return cudaErrorInvalidValue;
  for (size_t s = 0; s < slices; ++s)
    for (size_t r = 0; r < rows; ++r) {
      unsigned char* cell = a->at(x_bytes / a->element, y + r, z + s);
      char* m = mem + s * slice_pitch + r * pitch;
      if (to_array)
        std::memcpy(cell, m, width);
      else {
        std::memcpy(m, cell, width);
        shadow_host_wrote(m, width);
      }
    }
  return cudaSuccess;
}
}  // namespace

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src,
                                size_t spitch, size_t width, size_t height, cudaMemcpyKind kind) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  cudaArray* a = find_array(dst);
  if (!a) return api_result(cudaErrorInvalidValue);
  if (!kind_ok(kind)) return api_result(cudaErrorInvalidMemcpyDirection);
  if (width > spitch && height > 1) return api_result(cudaErrorInvalidPitchValue);
  return api_result(array_window(a, w_offset, h_offset, 0, width, height, 1,
                                 const_cast<char*>(static_cast<const char*>(src)), spitch, 0,
                                 true));
}

cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src, size_t w_offset,
                                  size_t h_offset, size_t width, size_t height,
                                  cudaMemcpyKind kind) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  cudaArray* a = find_array(src);
  if (!a) return api_result(cudaErrorInvalidValue);
  if (!kind_ok(kind)) return api_result(cudaErrorInvalidMemcpyDirection);
  if (width > dpitch && height > 1) return api_result(cudaErrorInvalidPitchValue);
  return api_result(array_window(a, w_offset, h_offset, 0, width, height, 1,
                                 static_cast<char*>(dst), dpitch, 0, false));
}

cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t w_offset_dst, size_t h_offset_dst,
                                     cudaArray_const_t src, size_t w_offset_src,
                                     size_t h_offset_src, size_t width, size_t height,
                                     cudaMemcpyKind) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  cudaArray* d = find_array(dst);
  cudaArray* s = find_array(src);
  if (!d || !s) return api_result(cudaErrorInvalidValue);
  std::vector<char> rows(width * height);
  cudaError_t e = array_window(s, w_offset_src, h_offset_src, 0, width, height, 1, rows.data(),
                               width, 0, false);
  if (e == cudaSuccess)
    e = array_window(d, w_offset_dst, h_offset_dst, 0, width, height, 1, rows.data(), width, 0,
                     true);
  return api_result(e);
}

namespace {
// The deprecated copies: `count` bytes from (x, y) on, row after row.
cudaError_t linear_array_copy(cudaArray* a, size_t w_offset, size_t h_offset, char* mem,
                              size_t count, bool to_array) {
  if (w_offset > a->row_bytes() || h_offset >= a->height) return cudaErrorInvalidValue;
  const size_t start = h_offset * a->row_bytes() + w_offset;
  if (start + count > a->row_bytes() * a->height) return cudaErrorInvalidValue;
  if (count == 0) return cudaSuccess;
  if (!mem) return cudaErrorInvalidValue;
  if (to_array)
    std::memcpy(a->data.data() + start, mem, count);
  else {
    std::memcpy(mem, a->data.data() + start, count);
    shadow_host_wrote(mem, count);
  }
  return cudaSuccess;
}
}  // namespace

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src,
                              size_t count, cudaMemcpyKind kind) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  cudaArray* a = find_array(dst);
  if (!a) return api_result(cudaErrorInvalidValue);
  if (!kind_ok(kind)) return api_result(cudaErrorInvalidMemcpyDirection);
  return api_result(linear_array_copy(
      a, w_offset, h_offset, const_cast<char*>(static_cast<const char*>(src)), count, true));
}

cudaError_t cudaMemcpyFromArray(void* dst, cudaArray_const_t src, size_t w_offset, size_t h_offset,
                                size_t count, cudaMemcpyKind kind) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  cudaArray* a = find_array(src);
  if (!a) return api_result(cudaErrorInvalidValue);
  if (!kind_ok(kind)) return api_result(cudaErrorInvalidMemcpyDirection);
  return api_result(
      linear_array_copy(a, w_offset, h_offset, static_cast<char*>(dst), count, false));
}

// cudaMemcpy3D with an array on either side (memory.cpp hands these over).
cudaError_t cudalab::rt::memcpy3d_with_arrays(const cudaMemcpy3DParms* p) {
  cudaArray* src = p->srcArray ? find_array(p->srcArray) : nullptr;
  cudaArray* dst = p->dstArray ? find_array(p->dstArray) : nullptr;
  if ((p->srcArray && !src) || (p->dstArray && !dst)) return cudaErrorInvalidValue;
  const size_t element = src ? src->element : dst->element;
  const cudaExtent e = p->extent;
  const size_t width = e.width * element;
  const size_t rows = e.height, slices = e.depth;
  if (src && dst) {
    if (src->element != dst->element) return cudaErrorInvalidValue;
    std::vector<char> buf(width * rows * slices);
    cudaError_t r = array_window(src, p->srcPos.x * element, p->srcPos.y, p->srcPos.z, width, rows,
                                 slices, buf.data(), width, width * rows, false);
    if (r == cudaSuccess)
      r = array_window(dst, p->dstPos.x * element, p->dstPos.y, p->dstPos.z, width, rows, slices,
                       buf.data(), width, width * rows, true);
    return r;
  }
  if (src) {
    const cudaPitchedPtr m = p->dstPtr;
    if (!m.ptr || (width > m.pitch && rows > 1)) return cudaErrorInvalidValue;
    // With an array in the copy, positions count its elements on both sides.
    char* base = static_cast<char*>(m.ptr) + (p->dstPos.z * m.ysize + p->dstPos.y) * m.pitch +
                 p->dstPos.x * element;
    return array_window(src, p->srcPos.x * element, p->srcPos.y, p->srcPos.z, width, rows, slices,
                        base, m.pitch, m.pitch * m.ysize, false);
  }
  const cudaPitchedPtr m = p->srcPtr;
  if (!m.ptr || (width > m.pitch && rows > 1)) return cudaErrorInvalidValue;
  char* base = static_cast<char*>(m.ptr) + (p->srcPos.z * m.ysize + p->srcPos.y) * m.pitch +
               p->srcPos.x * element;
  return array_window(dst, p->dstPos.x * element, p->dstPos.y, p->dstPos.z, width, rows, slices,
                      base, m.pitch, m.pitch * m.ysize, true);
}

// ---- texture and surface objects ---------------------------------------------------------------
namespace {

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

// Handles are indices here, from 1, as a GPU numbers them; a destroyed
// handle's slot stays empty (never reused), so a fetch through it faults.
std::vector<std::unique_ptr<Object>>& objects() {
  static std::vector<std::unique_ptr<Object>> o(1);
  return o;
}

cudaError_t describe(const cudaResourceDesc* r, Resource* out) {
  if (!r) return cudaErrorInvalidValue;
  Resource res;
  res.given = *r;
  switch (r->resType) {
    case cudaResourceTypeArray: {
      res.keep = shared_array(r->res.array.array);
      cudaArray* a = res.keep.get();
      if (!a) return cudaErrorInvalidResourceHandle;
      res.kind = Resource::array;
      res.base = a->data.data();
      res.desc = a->desc;
      res.element = a->element;
      res.width = a->width;
      res.height = a->height;
      res.depth = a->depth;
      res.pitch = a->row_bytes();
      res.slice = res.pitch * a->height;
      res.layered = a->flags & cudaArrayLayered;
      res.cubemap = a->flags & cudaArrayCubemap;
      res.dims = a->extent.height == 0                                  ? 1
                 : (a->extent.depth == 0 || res.layered || res.cubemap) ? 2
                                                                        : 3;
      res.source = a;
      break;
    }
    case cudaResourceTypeLinear: {
      const auto& l = r->res.linear;
      if (!l.devPtr || !valid_desc(l.desc)) return cudaErrorInvalidValue;
      if (reinterpret_cast<uintptr_t>(l.devPtr) % 256) return cudaErrorInvalidValue;
      res.kind = Resource::linear;
      res.base = static_cast<const unsigned char*>(l.devPtr);
      res.desc = l.desc;
      res.element = element_bytes(l.desc);
      res.width = l.sizeInBytes / res.element;
      res.pitch = l.sizeInBytes;
      break;
    }
    case cudaResourceTypePitch2D: {
      const auto& p = r->res.pitch2D;
      if (!p.devPtr || !valid_desc(p.desc)) return cudaErrorInvalidValue;
      if (reinterpret_cast<uintptr_t>(p.devPtr) % 256 || p.pitchInBytes % 32 ||
          p.width * element_bytes(p.desc) > p.pitchInBytes || p.width == 0 || p.height == 0)
        return cudaErrorInvalidValue;
      res.kind = Resource::pitch2d;
      res.base = static_cast<const unsigned char*>(p.devPtr);
      res.desc = p.desc;
      res.element = element_bytes(p.desc);
      res.width = p.width;
      res.height = p.height;
      res.pitch = p.pitchInBytes;
      res.dims = 2;
      break;
    }
    default:
      return cudaErrorInvalidValue;
  }
  *out = res;
  return cudaSuccess;
}

void prepare_format(Object& o) {
  const cudaChannelFormatDesc& d = o.res.desc;
  o.channels = channel_count(d);
  o.channel_bytes = d.x / 8;
  const bool s = d.f == cudaChannelFormatKindSigned;
  if (d.f == cudaChannelFormatKindFloat)
    o.format = d.x == 16 ? Format::f16 : Format::f32;
  else if (d.x == 8)
    o.format = s ? Format::s8 : Format::u8;
  else if (d.x == 16)
    o.format = s ? Format::s16 : Format::u16;
  else
    o.format = s ? Format::s32 : Format::u32;
  o.normalized_read =
      o.tex.readMode == cudaReadModeNormalizedFloat && d.f != cudaChannelFormatKindFloat;
}

unsigned long long add_object(std::unique_ptr<Object> o) {
  prepare_format(*o);
  std::lock_guard lock(g_textures_mutex);
  objects().push_back(std::move(o));
  return objects().size() - 1;
}

bool is_integer_format(const cudaChannelFormatDesc& d) { return d.f != cudaChannelFormatKindFloat; }

uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

}  // namespace

namespace {
double filter_units(int64_t v, int bits, bool is_signed);
// The border color as the texture's format holds it: integer elements get
// the color's float bits, normalized integers the color rounded to the
// format, floats the color; channels the format lacks are 0.
void set_border(Object& o) {
  const cudaChannelFormatDesc& d = o.res.desc;
  const int n = channel_count(d);
  const bool norm = o.tex.readMode == cudaReadModeNormalizedFloat && is_integer_format(d);
  for (int i = 0; i < 4; ++i) {
    float c = o.tex.borderColor[i];
    if (i >= n) c = 0;
    if (norm && i < n) {
      const bool is_signed = d.f == cudaChannelFormatKindSigned;
      const double max =
          is_signed ? double((int64_t(1) << (d.x - 1)) - 1) : double((int64_t(1) << d.x) - 1);
      const double q = std::nearbyint(std::clamp(double(c), is_signed ? -1.0 : 0.0, 1.0) * max);
      c = std::max(float(q / max), -1.0f);
      o.border_units[i] = filter_units(int64_t(q), d.x, is_signed);
    } else {
      o.border_units[i] = c;
    }
    o.border[i] = i < n ? float_bits(c) : 0u;
  }
}
}  // namespace

cudaError_t cudaCreateTextureObject(cudaTextureObject_t* object, const cudaResourceDesc* resource,
                                    const cudaTextureDesc* texture, const cudaResourceViewDesc*) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  if (!object) return api_result(cudaErrorInvalidValue);
  auto o = std::make_unique<Object>();
  if (const cudaError_t e = describe(resource, &o->res); e != cudaSuccess) return api_result(e);
  if (!texture) return api_result(cudaErrorInvalidResourceHandle);  // as CUDA 13 answers
  o->tex = *texture;
  // Linear filtering returns floats: not for integer elements.
  if (texture->filterMode == cudaFilterModeLinear && is_integer_format(o->res.desc) &&
      texture->readMode == cudaReadModeElementType)
    return api_result(cudaErrorInvalidFilterSetting);
  if (texture->readMode == cudaReadModeNormalizedFloat && is_integer_format(o->res.desc) &&
      o->res.desc.x == 32)
    return api_result(cudaErrorInvalidNormSetting);
  set_border(*o);
  *object = add_object(std::move(o));
  return api_result(cudaSuccess);
}

namespace {
Object* live_object(unsigned long long handle, bool surface) {
  std::lock_guard lock(g_textures_mutex);
  if (handle == 0 || handle >= objects().size()) return nullptr;
  Object* o = objects()[handle].get();
  return o && o->surface == surface ? o : nullptr;
}
cudaError_t destroy_object(unsigned long long handle, bool surface) {
  if (handle == 0) return cudaSuccess;
  std::lock_guard lock(g_textures_mutex);
  if (handle >= objects().size() || !objects()[handle] || objects()[handle]->surface != surface)
    return cudaErrorInvalidValue;
  objects()[handle].reset();
  return cudaSuccess;
}
}  // namespace

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t object) {
  return api_result(destroy_object(object, false));
}

cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc* resource,
                                             cudaTextureObject_t object) {
  const Object* o = live_object(object, false);
  if (!o || !resource) return api_result(cudaErrorInvalidValue);
  *resource = o->res.given;
  return api_result(cudaSuccess);
}

cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc* texture, cudaTextureObject_t object) {
  const Object* o = live_object(object, false);
  if (!o || !texture) return api_result(cudaErrorInvalidValue);
  *texture = o->tex;
  return api_result(cudaSuccess);
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* object, const cudaResourceDesc* resource) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  if (!object || !resource) return api_result(cudaErrorInvalidValue);
  auto o = std::make_unique<Object>();
  o->surface = true;
  if (resource->resType != cudaResourceTypeArray) return api_result(cudaErrorInvalidValue);
  if (const cudaError_t e = describe(resource, &o->res); e != cudaSuccess) return api_result(e);
  // CUDA 13 accepts arrays made without cudaArraySurfaceLoadStore too.
  *object = add_object(std::move(o));
  return api_result(cudaSuccess);
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t object) {
  return api_result(destroy_object(object, true));
}

cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc* resource,
                                             cudaSurfaceObject_t object) {
  const Object* o = live_object(object, true);
  if (!o || !resource) return api_result(cudaErrorInvalidValue);
  *resource = o->res.given;
  return api_result(cudaSuccess);
}

// ---- faults in kernels -------------------------------------------------------------------------
namespace {

// During a launch the table does not change (the host waits): no lock.
const Object* object_in_kernel(unsigned long long handle, bool surface) {
  const auto& table = objects();
  const Object* o = handle < table.size() ? table[handle].get() : nullptr;
  if (!o || o->surface != surface) {
    const char* kind = surface ? "surface" : "texture";
    std::string why = std::string("a ") + kind + " object that ";
    if (handle == 0)
      why += "was never created (0)";
    else if (handle < table.size())
      why += "was destroyed (" + std::to_string(handle) + ")";
    else
      why += "does not exist (" + std::to_string(handle) + ")";
    stop_thread(cudaErrorIllegalAddress, "a fetch through " + why);
  }
  return o;
}

// ---- sampling ----------------------------------------------------------------------------------
// One texel's channels: the register values (element reads) and their
// values as floats (for filtering).
struct Texel {
  uint32_t reg[4];
  double value[4];
};

float normalized(int64_t v, int bits, bool is_signed) {
  if (is_signed) {
    const float max = float((int64_t(1) << (bits - 1)) - 1);
    return std::max(float(v) / max, -1.0f);
  }
  return float(v) / float((int64_t(1) << bits) - 1);
}

// A normalized integer as the GPU's filter blends it: unsigned ones in
// 16-bit units (an 8-bit 255 is 65535), signed ones as they are (the most
// negative included; 8-bit ones are widened to 16 bits after the blend:
// widen_signed_8_bit).
double filter_units(int64_t v, int bits, bool is_signed) {
  if (is_signed) return double(v);
  return double(v) * (65535.0 / double((int64_t(1) << bits) - 1));
}

// A blend of signed 8-bit texels, sum = the weights (in 1/256) times the
// texels, in 16-bit units, as an H100 widens it: sum + sum * 257 / 2^15
// with sum's low 4 bits dropped and the product rounded (every pair of
// values at 32 weights and 1,024 pairs at all 256 weights matched).
int64_t widen_signed_8_bit(int64_t sum) { return sum + (((sum >> 4) * 257 + 1024) >> 11); }
bool normalized_integers(const Object& o) {
  return o.tex.readMode == cudaReadModeNormalizedFloat && is_integer_format(o.res.desc);
}

// One channel's register value and, when filtering, its value to blend.
template <bool kValues>
inline void read_channel(const Object& o, const unsigned char* q, Texel& t, int c) {
  int64_t v;
  switch (o.format) {
    case Format::f32: {
      float f;
      std::memcpy(&f, q, 4);
      t.reg[c] = float_bits(f);
      if constexpr (kValues) t.value[c] = f;
      return;
    }
    case Format::f16: {
      uint16_t h;
      std::memcpy(&h, q, 2);
      const float f = cudalab::detail::half_bits_to_float(h);
      t.reg[c] = float_bits(f);
      if constexpr (kValues) t.value[c] = f;
      return;
    }
    case Format::s8:
      v = int8_t(*q);
      break;
    case Format::u8:
      v = *q;
      break;
    case Format::s16: {
      int16_t x;
      std::memcpy(&x, q, 2);
      v = x;
      break;
    }
    case Format::u16: {
      uint16_t x;
      std::memcpy(&x, q, 2);
      v = x;
      break;
    }
    case Format::s32: {
      int32_t x;
      std::memcpy(&x, q, 4);
      v = x;
      break;
    }
    default: {
      uint32_t x;
      std::memcpy(&x, q, 4);
      v = x;
      break;
    }
  }
  if (o.normalized_read) {
    const bool is_signed = o.res.desc.f == cudaChannelFormatKindSigned;
    t.reg[c] = float_bits(normalized(v, o.res.desc.x, is_signed));
    if constexpr (kValues) t.value[c] = filter_units(v, o.res.desc.x, is_signed);
  } else {
    t.reg[c] = uint32_t(v);
    if constexpr (kValues) t.value[c] = double(v);
  }
}

template <bool kValues = true>
Texel read_texel(const Object& o, const unsigned char* p) {
  Texel t;
  std::memset(&t, 0, sizeof t);  // channels the format lacks read as 0
  for (int c = 0; c < o.channels; ++c) read_channel<kValues>(o, p + c * o.channel_bytes, t, c);
  return t;
}

Texel border_texel(const Object& o) {
  Texel t{};
  for (int c = 0; c < 4; ++c) {
    t.reg[c] = o.border[c];
    t.value[c] = o.border_units[c];
  }
  return t;
}

// An index along one axis of `size` texels after the address mode; -1 for
// the border.
int64_t address(int64_t i, int64_t size, cudaTextureAddressMode mode, bool normalized_coords) {
  if (i >= 0 && i < size) return i;
  switch (mode) {
    case cudaAddressModeBorder:
      return -1;
    case cudaAddressModeWrap:
      if (normalized_coords) return ((i % size) + size) % size;
      break;
    case cudaAddressModeMirror:
      if (normalized_coords) {
        const int64_t m = ((i % (2 * size)) + 2 * size) % (2 * size);
        return m < size ? m : 2 * size - 1 - m;
      }
      break;
    default:
      break;
  }
  return std::clamp<int64_t>(i, 0, size - 1);
}

int64_t floor_index(double v) {
  if (!(v == v)) return 0;  // NaN
  if (v >= 4.0e18) return int64_t(4.0e18);
  if (v <= -4.0e18) return int64_t(-4.0e18);
  const int64_t i = int64_t(v);
  return double(i) > v ? i - 1 : i;
}

// A float rounded from an exact sum, halfway cases away from zero, as the
// GPU's filter rounds.
float round_half_away(double e) {
  float r = float(e);  // to nearest, ties to even
  const double a = std::fabs(e);
  if (a >= 1.1754943508222875e-38 && a < 3.4028234663852886e+38) {
    // A tie has exactly the bit below a float's last one set in the
    // double's mantissa, and none under it.
    uint64_t b;
    std::memcpy(&b, &e, 8);
    if ((b & 0x1FFFFFFFu) != 0x10000000u) return r;
  } else if (!std::isfinite(e) || a == 0) {
    return r;
  }
  if (std::fabs(double(r)) < a) r = std::nextafter(r, e < 0 ? -INFINITY : INFINITY);
  return r;
}

// An exact sum rounded to the nearest half-precision value (halfway cases
// away from zero), as a float.
float round_to_half(double e) {
  if (!std::isfinite(e) || e == 0) return float(e);
  const double a = std::fabs(e);
  int exp = 0;
  std::frexp(a, &exp);                              // a = m * 2^exp, m in [0.5, 1)
  const int quantum_exp = std::max(exp - 11, -24);  // 11 significant bits, subnormals below 2^-14
  const double q = std::ldexp(1.0, quantum_exp);
  double r = std::floor(a / q + 0.5) * q;
  r = std::min(r, 65504.0);
  return float(e < 0 ? -r : r);
}

// The filter adds float texels in fixed point aligned to the largest of
// them (of the taps it weights), keeping 27 bits below its leading one:
// the smaller texels lose their lowest bits (toward zero).
void align_to_largest(double* v, const int* w, int taps) {
  double largest = 0;
  for (int k = 0; k < taps; ++k)
    if (w[k]) largest = std::max(largest, std::fabs(v[k]));
  // The leading one's exponent, read from the double's bits (texels are
  // floats: normal doubles, well inside the range used below).
  uint64_t bits;
  std::memcpy(&bits, &largest, 8);
  const int exp = int((bits >> 52) & 0x7FF) - 1023;
  if (largest == 0 || exp > 127 + 1) return;  // zero, infinity or NaN
  uint64_t q_bits = uint64_t(exp - 27 + 1023) << 52, inv_bits = uint64_t(27 - exp + 1023) << 52;
  double quantum, inverse;
  std::memcpy(&quantum, &q_bits, 8);
  std::memcpy(&inverse, &inv_bits, 8);
  for (int k = 0; k < taps; ++k)
    if (w[k]) v[k] = double(int64_t(v[k] * inverse)) * quantum;  // toward zero, exactly
}

// floor() without a call into the C library (the coordinates a fetch
// works with are far inside int64's range once clamped).
inline double fast_floor(double v) {
  if (!(std::fabs(v) < 4.0e15)) return std::floor(v);
  const double t = double(int64_t(v));
  return t > v ? t - 1 : t;
}

struct Axis {
  int64_t i0;
  int weight;  // of i0 + 1, in 1/256
};
// The texel below the sample point and the weight of the one above.
Axis linear_axis(double scaled) {
  if (std::isnan(scaled)) scaled = 0;
  const double b = scaled - 0.5;
  const double fl = fast_floor(b);
  const int w = int(fast_floor((b - fl) * 256.0 + 0.5));
  return Axis{floor_index(fl), w};
}

class Sampler {
 public:
  Sampler(const Object& o, int layer_or_face) : o_(o), layer_(layer_or_face) {}

  // The texel at (x, y, z) after the address modes, or the border.
  template <bool kValues = true>
  Texel texel(int64_t x, int64_t y, int64_t z) const {
    const Resource& r = o_.res;
    const bool nc = o_.tex.normalizedCoords;
    x = address(x, int64_t(r.width), o_.tex.addressMode[0], nc);
    y = address(y, dims_ >= 2 ? int64_t(r.height) : 1, o_.tex.addressMode[1], nc);
    if (dims_ >= 3) z = address(z, int64_t(r.depth), o_.tex.addressMode[2], nc);
    if (x < 0 || y < 0 || z < 0) return border_texel(o_);
    const size_t slice = layer_ >= 0 ? size_t(layer_) : size_t(z);
    return read_texel<kValues>(
        o_, r.base + slice * r.slice + size_t(y) * r.pitch + size_t(x) * r.element);
  }

  TexResult point(const float c[3]) const {
    int64_t i[3] = {0, 0, 0};
    for (int a = 0; a < dims_; ++a) i[a] = floor_index(scaled(c[a], a));
    const Texel t = texel<false>(i[0], i[1], i[2]);
    TexResult out;
    std::memcpy(out.v, t.reg, sizeof out.v);
    return out;
  }

  TexResult linear(const float c[3]) const {
    Axis ax[3] = {{0, 0}, {0, 0}, {0, 0}};
    for (int a = 0; a < dims_; ++a) {
      double t = scaled(c[a], a);
      if (dims_ == 3 && o_.tex.addressMode[a] == cudaAddressModeClamp) {
        const Resource& r = o_.res;
        const double n = double(a == 0 ? r.width : a == 1 ? r.height : r.depth);
        t = std::clamp(t, 0.5, n - 0.5);
      }
      ax[a] = linear_axis(t);
    }
    // A GPU filters a 1D texture as a 2D one of one row sampled at y = 0:
    // half from the row above it, which the address mode maps to row 0 or
    // to the border.
    const int dims = dims_ == 1 ? 2 : dims_;
    if (dims_ == 1) ax[1] = linear_axis(0.0);
    const int taps = 1 << dims;
    int w[8];
    weights(ax, dims, w);
    double values[8][4];
    for (int k = 0; k < taps; ++k) {
      if (w[k] == 0) continue;
      const Texel t = texel(ax[0].i0 + (k & 1), ax[1].i0 + ((k >> 1) & 1), ax[2].i0 + (k >> 2));
      std::copy(t.value, t.value + 4, values[k]);
    }
    const bool floats = o_.res.desc.f == cudaChannelFormatKindFloat;
    double sum[4] = {-0.0, -0.0, -0.0, -0.0};  // -0 stays -0, as on a GPU
    for (int ch = 0; ch < 4; ++ch) {
      double v[8];
      for (int k = 0; k < taps; ++k) v[k] = w[k] ? values[k][ch] : 0.0;
      if (floats) align_to_largest(v, w, taps);
      for (int k = 0; k < taps; ++k)
        if (w[k]) sum[ch] += double(w[k]) / 256.0 * v[k];
    }
    TexResult out;
    if (normalized_integers(o_)) {
      // Normalized integers blend as 16-bit integers, rounded half up (signed
      // 8-bit ones as 8-bit integers, then widened).
      const bool is_signed = o_.res.desc.f == cudaChannelFormatKindSigned;
      const bool signed_8_bit = is_signed && o_.res.desc.x == 8;
      const double den = is_signed ? 32767.0 : 65535.0;
      for (int ch = 0; ch < 4; ++ch) {
        const double k = signed_8_bit ? double(widen_signed_8_bit(int64_t(sum[ch] * 256.0)))
                                      : std::floor(sum[ch] + 0.5);
        out.v[ch] = float_bits(std::max(float(k / den), -1.0f));
      }
      return out;
    }
    const bool half = o_.res.desc.f == cudaChannelFormatKindFloat && o_.res.desc.x == 16;
    for (int ch = 0; ch < 4; ++ch) {
      const float f = round_half_away(sum[ch]);
      // Half floats filter to half precision.
      out.v[ch] = float_bits(half ? round_to_half(sum[ch]) : f);
    }
    return out;
  }

  TexResult gather(const float c[2], int comp) const {
    const Axis ax = linear_axis(scaled(c[0], 0)), ay = linear_axis(scaled(c[1], 1));
    const int64_t xs[4] = {ax.i0, ax.i0 + 1, ax.i0 + 1, ax.i0};
    const int64_t ys[4] = {ay.i0 + 1, ay.i0 + 1, ay.i0, ay.i0};
    TexResult out;
    for (int k = 0; k < 4; ++k) out.v[k] = texel(xs[k], ys[k], 0).reg[comp & 3];
    return out;
  }

  void set_dims(int d) { dims_ = d; }

 private:
  // A coordinate in texels.
  double scaled(float v, int axis) const {
    if (!o_.tex.normalizedCoords) return v;
    const Resource& r = o_.res;
    const size_t n = axis == 0 ? r.width : axis == 1 ? r.height : r.depth;
    // The GPU keeps a normalized coordinate as a fixed-point number with 21
    // fractional bits (rounded down), then scales it exactly.
    const double fixed = fast_floor(double(v) * 2097152.0) / 2097152.0;
    return fixed * double(n);
  }

  // The weights of the 2^dims taps in 1/256 (tap k: x + 2y + 4z), as an
  // H100 rounds them. In 2D, the products of the axes' weights rounded to
  // 1/256, halfway cases up for the (0,0) and (1,1) taps and down for the
  // others. In 3D, the x-z products are rounded that way (halfway cases up
  // where x is 1), and each is then split between the two rows in y: the
  // share of y = 1 rounded (halfway up where x is 1), the rest to y = 0.
  static void weights(const Axis ax[3], int dims, int w[8]) {
    const auto up = [](int p) { return (p + 128) >> 8; };
    const auto down = [](int p) { return (p + 127) >> 8; };
    if (dims == 2) {
      const int x1 = ax[0].weight, x0 = 256 - x1, y1 = ax[1].weight, y0 = 256 - y1;
      w[0] = up(x0 * y0);
      w[1] = down(x1 * y0);
      w[2] = down(x0 * y1);
      w[3] = up(x1 * y1);
      return;
    }
    const int x1 = ax[0].weight, x0 = 256 - x1, z1 = ax[2].weight, z0 = 256 - z1;
    const int xz[4] = {down(x0 * z0), up(x1 * z0), down(x0 * z1), up(x1 * z1)};
    for (int k = 0; k < 4; ++k) {
      const int x = k & 1, z = k >> 1;
      const int share = xz[k] * ax[1].weight;
      const int hi = x ? up(share) : down(share);
      w[x + 4 * z] = xz[k] - hi;
      w[x + 2 + 4 * z] = hi;
    }
  }

  const Object& o_;
  int layer_;
  int dims_ = 1;
};

// Which face of a cube a direction points at, and where on it (normalized
// coordinates), as the CUDA Programming Guide's cubemap table says. On ties
// z wins over y and y over x (as an H100 picks); a zero direction reads the
// centre of the +z face.
int cube_face(float x, float y, float z, float* u, float* v) {
  const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  int face;
  float s, t, m;
  if (az >= ax && az >= ay) {
    face = z >= 0 ? 4 : 5;
    m = az;
    s = z >= 0 ? x : -x;
    t = -y;
  } else if (ay >= ax) {
    face = y >= 0 ? 2 : 3;
    m = ay;
    s = x;
    t = y >= 0 ? z : -z;
  } else {
    face = x >= 0 ? 0 : 1;
    m = ax;
    s = x >= 0 ? -z : z;
    t = -y;
  }
  float sm = s / m, tm = t / m;
  if (std::isnan(sm)) sm = 0;
  if (std::isnan(tm)) tm = 0;
  *u = (sm + 1.0f) * 0.5f;
  *v = (tm + 1.0f) * 0.5f;
  return face;
}

// The texel of a 2D texture at (x, y), after the address modes; nullptr
// for the border.
inline const unsigned char* texel_2d(const Object& o, int64_t x, int64_t y) {
  const Resource& r = o.res;
  const bool nc = o.tex.normalizedCoords;
  x = address(x, int64_t(r.width), o.tex.addressMode[0], nc);
  y = address(y, int64_t(r.height), o.tex.addressMode[1], nc);
  if (x < 0 || y < 0) return nullptr;
  return r.base + size_t(y) * r.pitch + size_t(x) * r.element;
}

inline double texels_2d(const Object& o, float v, int axis) {
  if (!o.tex.normalizedCoords) return v;
  const double fixed = fast_floor(double(v) * 2097152.0) / 2097152.0;
  return fixed * double(axis == 0 ? o.res.width : o.res.height);
}

TexResult fast_point_2d(const Object& o, float fx, float fy) {
  const unsigned char* p =
      texel_2d(o, floor_index(texels_2d(o, fx, 0)), floor_index(texels_2d(o, fy, 1)));
  TexResult out;
  if (!p) {
    std::memcpy(out.v, o.border, sizeof out.v);
    return out;
  }
  const Texel t = read_texel<false>(o, p);
  std::memcpy(out.v, t.reg, sizeof out.v);
  return out;
}

// Linear filtering of 32-bit floats: the same arithmetic as
// Sampler::linear, without its generality.
TexResult fast_linear_2d(const Object& o, float fx, float fy) {
  const Axis ax = linear_axis(texels_2d(o, fx, 0)), ay = linear_axis(texels_2d(o, fy, 1));
  const int x1 = ax.weight, x0 = 256 - x1, y1 = ay.weight, y0 = 256 - y1;
  const int w[4] = {(x0 * y0 + 128) >> 8, (x1 * y0 + 127) >> 8, (x0 * y1 + 127) >> 8,
                    (x1 * y1 + 128) >> 8};
  double sum[4] = {-0.0, -0.0, -0.0, -0.0};
  const int n = o.channels;
  double values[4][4];
  const Resource& r = o.res;
  const bool nc = o.tex.normalizedCoords;
  // Each axis's two indices after the address mode (-1: the border).
  const int64_t xs[2] = {address(ax.i0, int64_t(r.width), o.tex.addressMode[0], nc),
                         address(ax.i0 + 1, int64_t(r.width), o.tex.addressMode[0], nc)};
  const int64_t ys[2] = {address(ay.i0, int64_t(r.height), o.tex.addressMode[1], nc),
                         address(ay.i0 + 1, int64_t(r.height), o.tex.addressMode[1], nc)};
  for (int k = 0; k < 4; ++k) {
    if (w[k] == 0) continue;
    const int64_t x = xs[k & 1], y = ys[k >> 1];
    const unsigned char* p =
        x < 0 || y < 0 ? nullptr : r.base + size_t(y) * r.pitch + size_t(x) * r.element;
    for (int c = 0; c < n; ++c) {
      float v;
      if (p)
        std::memcpy(&v, p + 4 * c, 4);
      else
        std::memcpy(&v, &o.border[c], 4);
      values[c][k] = v;
    }
  }
  for (int c = 0; c < n; ++c) {
    for (int k = 0; k < 4; ++k)
      if (!w[k]) values[c][k] = 0;
    align_to_largest(values[c], w, 4);
    for (int k = 0; k < 4; ++k)
      if (w[k]) sum[c] += double(w[k]) * (1.0 / 256.0) * values[c][k];
  }
  TexResult out;
  for (int c = 0; c < 4; ++c) out.v[c] = c < n ? float_bits(round_half_away(sum[c])) : 0u;
  return out;
}

}  // namespace

TexResult cudalab::detail::texture_fetch(unsigned long long handle, const TexRequest& q) {
  const Object& o = *object_in_kernel(handle, false);
  const Resource& r = o.res;
  TexResult zero{{0, 0, 0, 0}};
  if (q.op == TexOp::fetch1d) {
    if (r.kind != Resource::linear) return zero;
    if (q.index < 0 || size_t(q.index) >= r.width) return zero;
    const Texel t = read_texel<false>(o, r.base + size_t(q.index) * r.element);
    TexResult out;
    std::memcpy(out.v, t.reg, sizeof out.v);
    return out;
  }
  if (r.kind == Resource::linear) return zero;
  // The common cases first: 2D textures of one image (what image filters
  // read), point sampled, or linearly filtered when they hold floats.
  if (q.op == TexOp::sample && q.dims == 2 && q.layer < 0 && r.dims == 2 && !r.layered &&
      !r.cubemap) {
    if (o.tex.filterMode == cudaFilterModePoint) return fast_point_2d(o, q.x, q.y);
    if (o.format == Format::f32) return fast_linear_2d(o, q.x, q.y);
  }
  int layer = -1;
  float c[3] = {q.x, q.y, q.z};
  int dims = q.dims;
  if (q.op == TexOp::cubemap) {
    const int face = cube_face(q.x, q.y, q.z, &c[0], &c[1]);
    const int layers = int(r.depth / 6);
    const int l = q.layer == -1 && !r.layered
                      ? 0
                      : int(std::min<uint32_t>(uint32_t(q.layer), uint32_t(layers) - 1));
    layer = l * 6 + face;
    dims = 2;
    // Cubemap coordinates are normalized whatever the description says.
    Object cube = o;
    cube.tex.normalizedCoords = 1;
    cube.tex.addressMode[0] = cube.tex.addressMode[1] = cudaAddressModeClamp;
    Sampler s(cube, layer);
    s.set_dims(2);
    return o.tex.filterMode == cudaFilterModeLinear ? s.linear(c) : s.point(c);
  }
  // A layer index is unsigned to the GPU and clamped: -1 is the last layer.
  if (q.layer >= 0 || r.layered)
    layer = int(std::min<uint32_t>(uint32_t(q.layer), uint32_t(r.depth) - 1));
  Sampler s(o, layer);
  s.set_dims(dims);
  if (q.op == TexOp::gather) return s.gather(c, q.comp);
  return o.tex.filterMode == cudaFilterModeLinear ? s.linear(c) : s.point(c);
}

// ---- surfaces ----------------------------------------------------------------------------------
void cudalab::detail::surface_access(unsigned long long handle, SurfDims dims, int x, int y, int z,
                                     int mode, void* data, size_t size, bool write) {
  const Object& o = *object_in_kernel(handle, true);
  const Resource& r = o.res;
  int64_t ix = x, iy = y, iz = z;
  int64_t nz = int64_t(r.depth);
  const int64_t ny = (dims == SurfDims::d1 || dims == SurfDims::layered1) ? 1 : int64_t(r.height);
  if (dims == SurfDims::d1 || dims == SurfDims::d2) iz = 0;
  if (dims == SurfDims::layered1) {
    iz = y;
    iy = 0;
  }
  if (dims == SurfDims::d1) iy = 0;
  if (ix % int64_t(size) != 0)
    stop_thread(cudaErrorMisalignedAddress, "a surface access at byte " + std::to_string(x) +
                                                ", not a multiple of its size (" +
                                                std::to_string(size) + " bytes)");
  const int64_t row = int64_t(r.width * r.element);
  const bool inside =
      ix >= 0 && ix + int64_t(size) <= row && iy >= 0 && iy < ny && iz >= 0 && iz < nz;
  if (!inside) {
    if (mode == cudaBoundaryModeZero) {
      if (!write) std::memset(data, 0, size);
      return;
    }
    if (mode == cudaBoundaryModeClamp) {
      ix = std::clamp<int64_t>(ix, 0, row - int64_t(r.element));
      iy = std::clamp<int64_t>(iy, 0, ny - 1);
      iz = std::clamp<int64_t>(iz, 0, nz - 1);
    } else {
      stop_thread(cudaErrorIllegalAddress, "a surface access outside the array (x " +
                                               std::to_string(x) + " bytes, y " +
                                               std::to_string(y) + ", z " + std::to_string(z) +
                                               ") with cudaBoundaryModeTrap");
    }
  }
  unsigned char* p =
      const_cast<unsigned char*>(r.base) + size_t(iz) * r.slice + size_t(iy) * r.pitch + size_t(ix);
  if (write)
    std::memcpy(p, data, size);
  else
    std::memcpy(data, p, size);
}

// ---- legacy texture references -----------------------------------------------------------------
namespace {
std::unordered_map<const void*, unsigned long long>& bindings() {
  static std::unordered_map<const void*, unsigned long long> b;
  return b;
}
}  // namespace

cudaError_t cudalab::detail::bind_reference(const textureReference* ref, int read_mode,
                                            const cudaResourceDesc& resource, size_t* offset) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  if (!ref) return api_result(cudaErrorInvalidValue);
  cudaResourceDesc r = resource;
  if (r.resType == cudaResourceTypeLinear) {
    size_t bytes = r.res.linear.sizeInBytes;
    if (bytes == UINT_MAX) {
      // The whole buffer the pointer is in, from the pointer on.
      const Allocation* a = allocations().find(reinterpret_cast<uintptr_t>(r.res.linear.devPtr));
      bytes = a ? a->base + a->size - reinterpret_cast<uintptr_t>(r.res.linear.devPtr) : 0;
      r.res.linear.sizeInBytes = bytes;
    }
  }
  if (offset) *offset = 0;
  cudaTextureDesc td{};
  for (int i = 0; i < 3; ++i) td.addressMode[i] = ref->addressMode[i];
  td.filterMode = ref->filterMode;
  // A bind through a textureReference* takes the read mode the reference
  // was declared with.
  if (read_mode < 0) read_mode = ref->__cudaReserved[0] > 0 ? ref->__cudaReserved[0] - 1 : 0;
  td.readMode = cudaTextureReadMode(read_mode);
  td.normalizedCoords = ref->normalized;
  auto o = std::make_unique<Object>();
  // A reference accepts pointers at any 256-byte boundary or not (the
  // offset says where); the simulator reads from the pointer itself.
  if (r.resType == cudaResourceTypeLinear) {
    Resource res;
    const auto& l = r.res.linear;
    if (!l.devPtr || !valid_desc(l.desc)) return api_result(cudaErrorInvalidValue);
    res.kind = Resource::linear;
    res.base = static_cast<const unsigned char*>(l.devPtr);
    res.desc = l.desc;
    res.element = element_bytes(l.desc);
    res.width = l.sizeInBytes / res.element;
    res.given = r;
    o->res = res;
  } else if (const cudaError_t e = describe(&r, &o->res); e != cudaSuccess) {
    return api_result(e);
  }
  o->tex = td;
  unsigned long long handle = add_object(std::move(o));
  std::lock_guard lock(g_textures_mutex);
  bindings()[ref] = handle;
  return api_result(cudaSuccess);
}

cudaError_t cudalab::detail::unbind_reference(const textureReference* ref) {
  std::lock_guard lock(g_textures_mutex);
  bindings().erase(ref);
  return api_result(cudaSuccess);
}

unsigned long long cudalab::detail::reference_object(const void* ref) {
  const auto it = bindings().find(ref);
  return it == bindings().end() ? 0 : it->second;
}

cudaError_t cudaBindTexture(size_t* offset, const textureReference* reference, const void* ptr,
                            const cudaChannelFormatDesc* desc, size_t size) {
  if (!desc) return api_result(cudaErrorInvalidValue);
  cudaResourceDesc r{};
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = const_cast<void*>(ptr);
  r.res.linear.desc = *desc;
  r.res.linear.sizeInBytes = size;
  return cudalab::detail::bind_reference(reference, -1, r, offset);
}

cudaError_t cudaBindTexture2D(size_t* offset, const textureReference* reference, const void* ptr,
                              const cudaChannelFormatDesc* desc, size_t width, size_t height,
                              size_t pitch) {
  if (!desc) return api_result(cudaErrorInvalidValue);
  cudaResourceDesc r{};
  r.resType = cudaResourceTypePitch2D;
  r.res.pitch2D.devPtr = const_cast<void*>(ptr);
  r.res.pitch2D.desc = *desc;
  r.res.pitch2D.width = width;
  r.res.pitch2D.height = height;
  r.res.pitch2D.pitchInBytes = pitch;
  return cudalab::detail::bind_reference(reference, -1, r, offset);
}

cudaError_t cudaBindTextureToArray(const textureReference* reference, cudaArray_const_t array,
                                   const cudaChannelFormatDesc*) {
  cudaResourceDesc r{};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = const_cast<cudaArray_t>(array);
  return cudalab::detail::bind_reference(reference, -1, r, nullptr);
}

cudaError_t cudaUnbindTexture(const textureReference* reference) {
  return cudalab::detail::unbind_reference(reference);
}
