// CUDA arrays, texture objects, surface objects and the legacy texture
// references, as CUDA's runtime API and its texture and surface functions
// name them: the types (channel descriptions, resource and texture
// descriptions), the host calls that make and fill them, and the fetches
// and surface reads and writes a kernel makes. Sampling is in
// simulator/src/runtime/textures.cpp.
#pragma once

#include <climits>
#include <cstddef>

#include "cudalab/detail/texture.h"
#include "cudalab/driver_types.h"
#include "cudalab/vector_types.h"

// ---- types -------------------------------------------------------------------------------------
enum cudaChannelFormatKind {
  cudaChannelFormatKindSigned = 0,
  cudaChannelFormatKindUnsigned = 1,
  cudaChannelFormatKindFloat = 2,
  cudaChannelFormatKindNone = 3,
};
struct cudaChannelFormatDesc {
  int x, y, z, w;
  cudaChannelFormatKind f;
};
using cudaArray_const_t = const cudaArray*;
struct cudaMipmappedArray;
using cudaMipmappedArray_t = cudaMipmappedArray*;
using cudaMipmappedArray_const_t = const cudaMipmappedArray*;

#define cudaArrayDefault 0x00
#define cudaArrayLayered 0x01
#define cudaArraySurfaceLoadStore 0x02
#define cudaArrayCubemap 0x04
#define cudaArrayTextureGather 0x08

enum cudaResourceType {
  cudaResourceTypeArray = 0,
  cudaResourceTypeMipmappedArray = 1,
  cudaResourceTypeLinear = 2,
  cudaResourceTypePitch2D = 3,
};
struct cudaResourceDesc {
  cudaResourceType resType;
  union {
    struct {
      cudaArray_t array;
    } array;
    struct {
      cudaMipmappedArray_t mipmap;
    } mipmap;
    struct {
      void* devPtr;
      cudaChannelFormatDesc desc;
      size_t sizeInBytes;
    } linear;
    struct {
      void* devPtr;
      cudaChannelFormatDesc desc;
      size_t width;
      size_t height;
      size_t pitchInBytes;
    } pitch2D;
    struct {
      int reserved[32];
    } reserved;
  } res;
  unsigned int flags;
};
enum cudaResourceViewFormat { cudaResViewFormatNone = 0 };
struct cudaResourceViewDesc {
  cudaResourceViewFormat format;
  size_t width, height, depth;
  unsigned int firstMipmapLevel, lastMipmapLevel, firstLayer, lastLayer;
  unsigned int reserved[16];
};

enum cudaTextureAddressMode {
  cudaAddressModeWrap = 0,
  cudaAddressModeClamp = 1,
  cudaAddressModeMirror = 2,
  cudaAddressModeBorder = 3,
};
enum cudaTextureFilterMode {
  cudaFilterModePoint = 0,
  cudaFilterModeLinear = 1,
};
enum cudaTextureReadMode {
  cudaReadModeElementType = 0,
  cudaReadModeNormalizedFloat = 1,
};
struct cudaTextureDesc {
  cudaTextureAddressMode addressMode[3];
  cudaTextureFilterMode filterMode;
  cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int seamlessCubemap;
};
using cudaTextureObject_t = unsigned long long;
using cudaSurfaceObject_t = unsigned long long;

enum cudaSurfaceBoundaryMode {
  cudaBoundaryModeZero = 0,
  cudaBoundaryModeClamp = 1,
  cudaBoundaryModeTrap = 2,
};

// ---- channel descriptions ----------------------------------------------------------------------
inline cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                   cudaChannelFormatKind f) {
  return cudaChannelFormatDesc{x, y, z, w, f};
}
template <class T>
cudaChannelFormatDesc cudaCreateChannelDesc() {
  using Traits = cudalab::detail::VecTraits<T>;
  using S = typename Traits::scalar;
  const int bits = int(sizeof(S) * 8);
  const cudaChannelFormatKind f = std::is_floating_point_v<S> ? cudaChannelFormatKindFloat
                                  : std::is_signed_v<S>       ? cudaChannelFormatKindSigned
                                                              : cudaChannelFormatKindUnsigned;
  const int n = Traits::count;
  return cudaChannelFormatDesc{bits, n > 1 ? bits : 0, n > 2 ? bits : 0, n > 3 ? bits : 0, f};
}
inline cudaChannelFormatDesc cudaCreateChannelDescHalf() {
  return {16, 0, 0, 0, cudaChannelFormatKindFloat};
}
inline cudaChannelFormatDesc cudaCreateChannelDescHalf1() { return cudaCreateChannelDescHalf(); }
inline cudaChannelFormatDesc cudaCreateChannelDescHalf2() {
  return {16, 16, 0, 0, cudaChannelFormatKindFloat};
}
inline cudaChannelFormatDesc cudaCreateChannelDescHalf4() {
  return {16, 16, 16, 16, cudaChannelFormatKindFloat};
}

// ---- CUDA arrays -------------------------------------------------------------------------------
cudaError_t cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width,
                            size_t height = 0, unsigned int flags = 0);
cudaError_t cudaMalloc3DArray(cudaArray_t* array, const cudaChannelFormatDesc* desc,
                              cudaExtent extent, unsigned int flags = 0);
cudaError_t cudaFreeArray(cudaArray_t array);
cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent, unsigned int* flags,
                             cudaArray_t array);
cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc* desc, cudaArray_const_t array);
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src,
                                size_t spitch, size_t width, size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src, size_t w_offset,
                                  size_t h_offset, size_t width, size_t height,
                                  cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t w_offset_dst, size_t h_offset_dst,
                                     cudaArray_const_t src, size_t w_offset_src,
                                     size_t h_offset_src, size_t width, size_t height,
                                     cudaMemcpyKind kind = cudaMemcpyDeviceToDevice);
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src,
                              size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromArray(void* dst, cudaArray_const_t src, size_t w_offset, size_t h_offset,
                                size_t count, cudaMemcpyKind kind);
inline cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t w_offset, size_t h_offset,
                                            const void* src, size_t spitch, size_t width,
                                            size_t height, cudaMemcpyKind kind,
                                            cudaStream_t = nullptr) {
  return cudaMemcpy2DToArray(dst, w_offset, h_offset, src, spitch, width, height, kind);
}
inline cudaError_t cudaMemcpy2DFromArrayAsync(void* dst, size_t dpitch, cudaArray_const_t src,
                                              size_t w_offset, size_t h_offset, size_t width,
                                              size_t height, cudaMemcpyKind kind,
                                              cudaStream_t = nullptr) {
  return cudaMemcpy2DFromArray(dst, dpitch, src, w_offset, h_offset, width, height, kind);
}
inline cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t w_offset, size_t h_offset,
                                          const void* src, size_t count, cudaMemcpyKind kind,
                                          cudaStream_t = nullptr) {
  return cudaMemcpyToArray(dst, w_offset, h_offset, src, count, kind);
}
inline cudaError_t cudaMemcpyFromArrayAsync(void* dst, cudaArray_const_t src, size_t w_offset,
                                            size_t h_offset, size_t count, cudaMemcpyKind kind,
                                            cudaStream_t = nullptr) {
  return cudaMemcpyFromArray(dst, src, w_offset, h_offset, count, kind);
}

// ---- texture and surface objects ---------------------------------------------------------------
cudaError_t cudaCreateTextureObject(cudaTextureObject_t* object, const cudaResourceDesc* resource,
                                    const cudaTextureDesc* texture,
                                    const cudaResourceViewDesc* view = nullptr);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t object);
cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc* resource,
                                             cudaTextureObject_t object);
cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc* texture, cudaTextureObject_t object);
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* object, const cudaResourceDesc* resource);
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t object);
cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc* resource,
                                             cudaSurfaceObject_t object);

// ---- fetches -----------------------------------------------------------------------------------
#define CUDALAB_TEX_FN(name, params, call)                 \
  template <class T>                                       \
  T name params {                                          \
    return cudalab::detail::texture_result_as<T>(call);    \
  }                                                        \
  template <class T>                                       \
  void name(T* result, CUDALAB_TEX_UNPAREN params) {       \
    *result = cudalab::detail::texture_result_as<T>(call); \
  }
#define CUDALAB_TEX_UNPAREN(...) __VA_ARGS__

CUDALAB_TEX_FN(tex1Dfetch, (cudaTextureObject_t t, int x),
               cudalab::detail::fetch(t, cudalab::detail::TexOp::fetch1d, 1, 0, 0, 0, -1, 0, x))
CUDALAB_TEX_FN(tex1D, (cudaTextureObject_t t, float x),
               cudalab::detail::fetch(t, cudalab::detail::TexOp::sample, 1, x, 0, 0, -1))
CUDALAB_TEX_FN(tex2D, (cudaTextureObject_t t, float x, float y),
               cudalab::detail::fetch(t, cudalab::detail::TexOp::sample, 2, x, y, 0, -1))
CUDALAB_TEX_FN(tex3D, (cudaTextureObject_t t, float x, float y, float z),
               cudalab::detail::fetch(t, cudalab::detail::TexOp::sample, 3, x, y, z, -1))
CUDALAB_TEX_FN(tex1DLayered, (cudaTextureObject_t t, float x, int layer),
               cudalab::detail::fetch(t, cudalab::detail::TexOp::sample, 1, x, 0, 0, layer))
CUDALAB_TEX_FN(tex2DLayered, (cudaTextureObject_t t, float x, float y, int layer),
               cudalab::detail::fetch(t, cudalab::detail::TexOp::sample, 2, x, y, 0, layer))
CUDALAB_TEX_FN(texCubemap, (cudaTextureObject_t t, float x, float y, float z),
               cudalab::detail::fetch(t, cudalab::detail::TexOp::cubemap, 3, x, y, z, -1))
CUDALAB_TEX_FN(texCubemapLayered, (cudaTextureObject_t t, float x, float y, float z, int layer),
               cudalab::detail::fetch(t, cudalab::detail::TexOp::cubemap, 3, x, y, z, layer))
// Level-of-detail and gradient fetches read level 0: the simulator's
// textures have no mipmaps.
CUDALAB_TEX_FN(tex1DLod, (cudaTextureObject_t t, float x, float),
               cudalab::detail::fetch(t, cudalab::detail::TexOp::sample, 1, x, 0, 0, -1))
CUDALAB_TEX_FN(tex2DLod, (cudaTextureObject_t t, float x, float y, float),
               cudalab::detail::fetch(t, cudalab::detail::TexOp::sample, 2, x, y, 0, -1))
CUDALAB_TEX_FN(tex3DLod, (cudaTextureObject_t t, float x, float y, float z, float),
               cudalab::detail::fetch(t, cudalab::detail::TexOp::sample, 3, x, y, z, -1))
CUDALAB_TEX_FN(tex1DLayeredLod, (cudaTextureObject_t t, float x, int layer, float),
               cudalab::detail::fetch(t, cudalab::detail::TexOp::sample, 1, x, 0, 0, layer))
CUDALAB_TEX_FN(tex2DLayeredLod, (cudaTextureObject_t t, float x, float y, int layer, float),
               cudalab::detail::fetch(t, cudalab::detail::TexOp::sample, 2, x, y, 0, layer))
CUDALAB_TEX_FN(texCubemapLod, (cudaTextureObject_t t, float x, float y, float z, float),
               cudalab::detail::fetch(t, cudalab::detail::TexOp::cubemap, 3, x, y, z, -1))
CUDALAB_TEX_FN(tex1DGrad, (cudaTextureObject_t t, float x, float, float),
               cudalab::detail::fetch(t, cudalab::detail::TexOp::sample, 1, x, 0, 0, -1))
CUDALAB_TEX_FN(tex2DGrad, (cudaTextureObject_t t, float x, float y, float2, float2),
               cudalab::detail::fetch(t, cudalab::detail::TexOp::sample, 2, x, y, 0, -1))
CUDALAB_TEX_FN(tex2Dgather, (cudaTextureObject_t t, float x, float y, int comp = 0),
               cudalab::detail::fetch(t, cudalab::detail::TexOp::gather, 2, x, y, 0, -1, comp))
#undef CUDALAB_TEX_FN
#undef CUDALAB_TEX_UNPAREN

// ---- surfaces: x in bytes
// ------------------------------------------------------------------------
#define CUDALAB_SURF_FN(read_name, write_name, dims, params, args)                                 \
  template <class T>                                                                               \
  T read_name(cudaSurfaceObject_t s, CUDALAB_SURF_UNPAREN params,                                  \
              cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {                               \
    T v{};                                                                                         \
    cudalab::detail::surface_access(s, cudalab::detail::SurfDims::dims, CUDALAB_SURF_UNPAREN args, \
                                    int(mode), &v, sizeof(T), false);                              \
    return v;                                                                                      \
  }                                                                                                \
  template <class T>                                                                               \
  void read_name(T* v, cudaSurfaceObject_t s, CUDALAB_SURF_UNPAREN params,                         \
                 cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {                            \
    cudalab::detail::surface_access(s, cudalab::detail::SurfDims::dims, CUDALAB_SURF_UNPAREN args, \
                                    int(mode), v, sizeof(T), false);                               \
  }                                                                                                \
  template <class T>                                                                               \
  void write_name(T v, cudaSurfaceObject_t s, CUDALAB_SURF_UNPAREN params,                         \
                  cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {                           \
    cudalab::detail::surface_access(s, cudalab::detail::SurfDims::dims, CUDALAB_SURF_UNPAREN args, \
                                    int(mode), &v, sizeof(T), true);                               \
  }
#define CUDALAB_SURF_UNPAREN(...) __VA_ARGS__
CUDALAB_SURF_FN(surf1Dread, surf1Dwrite, d1, (int x), (x, 0, 0))
CUDALAB_SURF_FN(surf2Dread, surf2Dwrite, d2, (int x, int y), (x, y, 0))
CUDALAB_SURF_FN(surf3Dread, surf3Dwrite, d3, (int x, int y, int z), (x, y, z))
CUDALAB_SURF_FN(surf1DLayeredread, surf1DLayeredwrite, layered1, (int x, int layer), (x, 0, layer))
CUDALAB_SURF_FN(surf2DLayeredread, surf2DLayeredwrite, layered2, (int x, int y, int layer),
                (x, y, layer))
CUDALAB_SURF_FN(surfCubemapread, surfCubemapwrite, cubemap, (int x, int y, int face), (x, y, face))
CUDALAB_SURF_FN(surfCubemapLayeredread, surfCubemapLayeredwrite, cubemap_layered,
                (int x, int y, int layer_face), (x, y, layer_face))
#undef CUDALAB_SURF_FN
#undef CUDALAB_SURF_UNPAREN

// ---- legacy texture references (removed in CUDA 12) --------------------------------------------
struct textureReference {
  int normalized;
  cudaTextureFilterMode filterMode;
  cudaTextureAddressMode addressMode[3];
  cudaChannelFormatDesc channelDesc;
  int sRGB;
  unsigned int maxAnisotropy;
  cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int __cudaReserved[14];
};
template <class T, int dim = 1, cudaTextureReadMode mode = cudaReadModeElementType>
struct texture : textureReference {
  explicit texture(int norm = 0, cudaTextureFilterMode filter = cudaFilterModePoint,
                   cudaTextureAddressMode address = cudaAddressModeClamp)
      : texture(norm, filter, address, cudaCreateChannelDesc<T>()) {}
  texture(int norm, cudaTextureFilterMode filter, cudaTextureAddressMode address,
          cudaChannelFormatDesc desc)
      : textureReference{} {
    normalized = norm;
    filterMode = filter;
    addressMode[0] = addressMode[1] = addressMode[2] = address;
    channelDesc = desc;
    __cudaReserved[0] = int(mode) + 1;  // the read mode, for binds through a textureReference*
  }
};

namespace cudalab::detail {
cudaError_t bind_reference(const textureReference* reference, int read_mode,
                           const cudaResourceDesc& resource, size_t* offset);
cudaError_t unbind_reference(const textureReference* reference);
template <class T, cudaTextureReadMode mode>
using ReferenceResult = std::conditional_t<mode == cudaReadModeElementType, T,
                                           typename FloatVector<VecTraits<T>::count>::type>;
}  // namespace cudalab::detail

cudaError_t cudaBindTexture(size_t* offset, const textureReference* reference, const void* ptr,
                            const cudaChannelFormatDesc* desc, size_t size = UINT_MAX);
cudaError_t cudaBindTexture2D(size_t* offset, const textureReference* reference, const void* ptr,
                              const cudaChannelFormatDesc* desc, size_t width, size_t height,
                              size_t pitch);
cudaError_t cudaBindTextureToArray(const textureReference* reference, cudaArray_const_t array,
                                   const cudaChannelFormatDesc* desc);
cudaError_t cudaUnbindTexture(const textureReference* reference);

template <class T, int dim, cudaTextureReadMode mode>
cudaError_t cudaBindTexture(size_t* offset, const texture<T, dim, mode>& tex, const void* ptr,
                            const cudaChannelFormatDesc& desc, size_t size = UINT_MAX) {
  cudaResourceDesc r{};
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = const_cast<void*>(ptr);
  r.res.linear.desc = desc;
  r.res.linear.sizeInBytes = size;
  return cudalab::detail::bind_reference(&tex, mode, r, offset);
}
template <class T, int dim, cudaTextureReadMode mode>
cudaError_t cudaBindTexture(size_t* offset, const texture<T, dim, mode>& tex, const void* ptr,
                            size_t size = UINT_MAX) {
  return cudaBindTexture(offset, tex, ptr, tex.channelDesc, size);
}
template <class T, int dim, cudaTextureReadMode mode>
cudaError_t cudaBindTexture2D(size_t* offset, const texture<T, dim, mode>& tex, const void* ptr,
                              const cudaChannelFormatDesc& desc, size_t width, size_t height,
                              size_t pitch) {
  cudaResourceDesc r{};
  r.resType = cudaResourceTypePitch2D;
  r.res.pitch2D.devPtr = const_cast<void*>(ptr);
  r.res.pitch2D.desc = desc;
  r.res.pitch2D.width = width;
  r.res.pitch2D.height = height;
  r.res.pitch2D.pitchInBytes = pitch;
  return cudalab::detail::bind_reference(&tex, mode, r, offset);
}
template <class T, int dim, cudaTextureReadMode mode>
cudaError_t cudaBindTexture2D(size_t* offset, const texture<T, dim, mode>& tex, const void* ptr,
                              size_t width, size_t height, size_t pitch) {
  return cudaBindTexture2D(offset, tex, ptr, tex.channelDesc, width, height, pitch);
}
template <class T, int dim, cudaTextureReadMode mode>
cudaError_t cudaBindTextureToArray(const texture<T, dim, mode>& tex, cudaArray_const_t array,
                                   const cudaChannelFormatDesc& desc) {
  cudaResourceDesc r{};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = const_cast<cudaArray_t>(array);
  (void)desc;
  return cudalab::detail::bind_reference(&tex, mode, r, nullptr);
}
template <class T, int dim, cudaTextureReadMode mode>
cudaError_t cudaBindTextureToArray(const texture<T, dim, mode>& tex, cudaArray_const_t array) {
  return cudaBindTextureToArray(tex, array, tex.channelDesc);
}
template <class T, int dim, cudaTextureReadMode mode>
cudaError_t cudaUnbindTexture(const texture<T, dim, mode>& tex) {
  return cudalab::detail::unbind_reference(&tex);
}

#define CUDALAB_REF_FN(name, dim_value, op, dims, params, x, y, z, layer, index)             \
  template <class T, cudaTextureReadMode mode>                                               \
  cudalab::detail::ReferenceResult<T, mode> name(const texture<T, dim_value, mode>& tex,     \
                                                 CUDALAB_REF_UNPAREN params) {               \
    using R = cudalab::detail::ReferenceResult<T, mode>;                                     \
    return cudalab::detail::texture_result_as<R>(                                            \
        cudalab::detail::fetch(cudalab::detail::reference_object(&tex),                      \
                               cudalab::detail::TexOp::op, dims, x, y, z, layer, 0, index)); \
  }
#define CUDALAB_REF_UNPAREN(...) __VA_ARGS__
CUDALAB_REF_FN(tex1Dfetch, 1, fetch1d, 1, (int i), 0, 0, 0, -1, i)
CUDALAB_REF_FN(tex1D, 1, sample, 1, (float x), x, 0, 0, -1, 0)
CUDALAB_REF_FN(tex2D, 2, sample, 2, (float x, float y), x, y, 0, -1, 0)
CUDALAB_REF_FN(tex3D, 3, sample, 3, (float x, float y, float z), x, y, z, -1, 0)
CUDALAB_REF_FN(tex1DLayered, 0xF1, sample, 1, (float x, int layer), x, 0, 0, layer, 0)
CUDALAB_REF_FN(tex2DLayered, 0xF2, sample, 2, (float x, float y, int layer), x, y, 0, layer, 0)
CUDALAB_REF_FN(texCubemap, 0x0C, cubemap, 3, (float x, float y, float z), x, y, z, -1, 0)
#undef CUDALAB_REF_FN
#undef CUDALAB_REF_UNPAREN
#define cudaTextureType1D 0x01
#define cudaTextureType2D 0x02
#define cudaTextureType3D 0x03
#define cudaTextureTypeCubemap 0x0C
#define cudaTextureType1DLayered 0xF1
#define cudaTextureType2DLayered 0xF2
#define cudaTextureTypeCubemapLayered 0xFC
#define cudaSurfaceType1D 0x01
#define cudaSurfaceType2D 0x02
#define cudaSurfaceType3D 0x03
#define cudaSurfaceTypeCubemap 0x0C
#define cudaSurfaceType1DLayered 0xF1
#define cudaSurfaceType2DLayered 0xF2
#define cudaSurfaceTypeCubemapLayered 0xFC
