// CUDA arrays and their copies, texture and surface objects, surface reads
// and writes, legacy texture references. The sampling behind a fetch is
// texture_sampling.cpp's (docs/simulator.md says where it still differs
// from an H100).
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
#include "runtime/texture_objects.h"

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

}  // namespace

namespace {
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
// During a launch the table does not change (the host waits): no lock.
const Object* cudalab::rt::object_in_kernel(unsigned long long handle, bool surface) {
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
