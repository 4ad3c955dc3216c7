// The CUDA runtime API as cudalab's CPU simulator provides it: the host
// functions a CUDA program calls, with the types and error codes of
// cudalab/driver_types.h. Names follow CUDA's own headers so programs compile
// unchanged; the behaviour lives in simulator/src/.
#pragma once

#include <cstddef>
#include <cstdint>

#define CUDALAB_SIMULATOR 1
#define CUDART_CB
#define CUDARTAPI
// The include guards of CUDA's own headers: programs (and NVIDIA's sample
// helpers) test them to know the runtime API is there.
#define __DRIVER_TYPES_H__
#define __CUDA_RUNTIME_API_H__
#define CUDART_VERSION 13000
#define __CUDACC_VER_MAJOR__ 13
#define __CUDACC_VER_MINOR__ 0
#define __CUDACC_VER_BUILD__ 0

#include "cudalab/detail/runtime.h"
#include "cudalab/driver_types.h"

// Host API. Each returns what CUDA returns for the same call.
inline cudaError_t cudaMalloc(void** ptr, size_t bytes, const char* file = __builtin_FILE(),
                              int line = __builtin_LINE()) {
  return cudalab::detail::malloc_device(ptr, bytes, file, line);
}
template <class T>
cudaError_t cudaMalloc(T** ptr, size_t bytes, const char* file = __builtin_FILE(),
                       int line = __builtin_LINE()) {
  return cudalab::detail::malloc_device(static_cast<void**>(static_cast<void*>(ptr)), bytes, file,
                                        line);
}
cudaError_t cudaFree(void* ptr);
// Page-locked host memory: ordinary host memory on the simulator.
cudaError_t cudaMallocHost(void** ptr, size_t bytes);
template <class T>
cudaError_t cudaMallocHost(T** ptr, size_t bytes) {
  return cudaMallocHost(static_cast<void**>(static_cast<void*>(ptr)), bytes);
}
cudaError_t cudaHostAlloc(void** ptr, size_t bytes, unsigned int flags);
template <class T>
cudaError_t cudaHostAlloc(T** ptr, size_t bytes, unsigned int flags) {
  return cudaHostAlloc(static_cast<void**>(static_cast<void*>(ptr)), bytes, flags);
}
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream = nullptr);
cudaError_t cudaMemset(void* ptr, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t bytes, cudaStream_t stream = nullptr);

cudaError_t cudaDeviceSynchronize();
// The device runtime's name for it in CUDA 11.6 to 11.8 (CUB still calls it).
inline cudaError_t __cudaDeviceSynchronizeDeprecationAvoidance() { return cudaDeviceSynchronize(); }
cudaError_t cudaDeviceReset();
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorString(cudaError_t error);
const char* cudaGetErrorName(cudaError_t error);

cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
cudaError_t cudaDriverGetVersion(int* version);
cudaError_t cudaRuntimeGetVersion(int* version);

cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);

cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = nullptr);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);

// Launching through a function pointer: the arguments are an array of
// pointers to each argument.
cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shmem = 0,
                             cudaStream_t stream = nullptr);
cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block, void** args,
                                        size_t shmem = 0, cudaStream_t stream = nullptr);

// ---- more memory: managed, pitched, 2D and 3D copies, symbols ---------------------------
inline cudaError_t cudaMallocManaged(void** ptr, size_t bytes,
                                     unsigned int flags = cudaMemAttachGlobal,
                                     const char* file = __builtin_FILE(),
                                     int line = __builtin_LINE()) {
  return cudalab::detail::malloc_managed(ptr, bytes, flags, file, line);
}
template <class T>
cudaError_t cudaMallocManaged(T** ptr, size_t bytes, unsigned int flags = cudaMemAttachGlobal,
                              const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return cudalab::detail::malloc_managed(static_cast<void**>(static_cast<void*>(ptr)), bytes, flags,
                                         file, line);
}
cudaError_t cudaHostGetDevicePointer(void** device, void* host, unsigned int flags);
template <class T>
cudaError_t cudaHostGetDevicePointer(T** device, void* host, unsigned int flags) {
  return cudaHostGetDevicePointer(static_cast<void**>(static_cast<void*>(device)), host, flags);
}
cudaError_t cudaHostRegister(void* ptr, size_t bytes, unsigned int flags);
cudaError_t cudaHostUnregister(void* ptr);
cudaError_t cudaMemGetInfo(size_t* free, size_t* total);
// Prefetches and advice: one address space, so they only check their
// arguments. The int-device forms are CUDA 12's, the cudaMemLocation ones CUDA 13's.
cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t bytes, int device,
                                 cudaStream_t stream = nullptr);
cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t bytes, cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream = nullptr);
cudaError_t cudaMemAdvise(const void* ptr, size_t bytes, cudaMemoryAdvise advice, int device);
cudaError_t cudaMemAdvise(const void* ptr, size_t bytes, cudaMemoryAdvise advice,
                          cudaMemLocation location);
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void* ptr, size_t length = 0,
                                     unsigned int flags = cudaMemAttachSingle);

cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height);
template <class T>
cudaError_t cudaMallocPitch(T** ptr, size_t* pitch, size_t width, size_t height) {
  return cudaMallocPitch(static_cast<void**>(static_cast<void*>(ptr)), pitch, width, height);
}
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream = nullptr);
cudaError_t cudaMemset2D(void* ptr, size_t pitch, int value, size_t width, size_t height);

inline cudaPitchedPtr make_cudaPitchedPtr(void* d, size_t p, size_t xsz, size_t ysz) {
  return {d, p, xsz, ysz};
}
inline cudaPos make_cudaPos(size_t x, size_t y, size_t z) { return {x, y, z}; }
inline cudaExtent make_cudaExtent(size_t w, size_t h, size_t d) { return {w, h, d}; }
cudaError_t cudaMalloc3D(cudaPitchedPtr* pitched, cudaExtent extent);
cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p);
cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t stream = nullptr);
cudaError_t cudaMemset3D(cudaPitchedPtr pitched, int value, cudaExtent extent);

// Symbols: __constant__ and __device__ variables are ordinary variables here.
template <class T>
cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t count, size_t offset = 0,
                               cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return cudalab::detail::memcpy_to_symbol(const_cast<T*>(&symbol), sizeof(T), src, count, offset,
                                           kind);
}
template <class T>
cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, size_t count,
                                    size_t offset = 0, cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                    cudaStream_t = nullptr) {
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
template <class T>
cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                 cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  return cudalab::detail::memcpy_from_symbol(dst, &symbol, sizeof(T), count, offset, kind);
}
template <class T>
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                      cudaStream_t = nullptr) {
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
template <class T>
cudaError_t cudaGetSymbolAddress(void** address, const T& symbol) {
  if (!address) return cudaErrorInvalidValue;
  *address = const_cast<T*>(&symbol);
  return cudaSuccess;
}
template <class T>
cudaError_t cudaGetSymbolSize(size_t* size, const T& symbol) {
  (void)symbol;
  if (!size) return cudaErrorInvalidValue;
  *size = sizeof(T);
  return cudaSuccess;
}

// ---- streams: callbacks and waits ------------------------------------------------------------
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void* user_data, unsigned int flags);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority);
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest);
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceFlags(unsigned int* flags);
cudaError_t cudaDeviceCanAccessPeer(int* can, int device, int peer);
// The "thread" names of CUDA 4 for the device's calls, which CUDA 12 still
// declares (deprecated) and older programs (CUDA by Example) use.
cudaError_t cudaThreadSynchronize();
cudaError_t cudaThreadExit();

// ---- kernels: attributes and occupancy ----------------------------------------------------------
template <class T>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, T* func) {
  return cudalab::detail::func_get_attributes(attr, reinterpret_cast<const void*>(func));
}
template <class T>
cudaError_t cudaFuncSetAttribute(T* func, cudaFuncAttribute attr, int value) {
  return cudalab::detail::func_set_attribute(reinterpret_cast<const void*>(func), attr, value);
}
template <class T>
cudaError_t cudaFuncSetCacheConfig(T*, cudaFuncCache) {
  return cudaSuccess;
}
template <class T>
cudaError_t cudaFuncSetSharedMemConfig(T*, cudaSharedMemConfig) {
  return cudaSuccess;
}
// A preference only (the simulator has no L1 to split): kept and given back.
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config);
cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config);
inline cudaError_t cudaThreadSetCacheConfig(cudaFuncCache c) { return cudaDeviceSetCacheConfig(c); }
inline cudaError_t cudaThreadGetCacheConfig(cudaFuncCache* c) {
  return cudaDeviceGetCacheConfig(c);
}
inline cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) { return cudaSuccess; }
// How many blocks of `block_size` threads fit on one multiprocessor at once
// (by threads, blocks and shared memory; registers are not modelled).
template <class T>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, T* func, int block_size,
                                                          size_t dynamic_shared) {
  return cudalab::detail::occupancy_max_active_blocks(blocks, reinterpret_cast<const void*>(func),
                                                      block_size, dynamic_shared);
}
template <class T>
cudaError_t cudaOccupancyMaxPotentialBlockSize(int* min_grid, int* block_size, T,
                                               size_t dynamic_shared = 0, int limit = 0) {
  return cudalab::detail::occupancy_max_potential_block_size(min_grid, block_size, dynamic_shared,
                                                             limit);
}

// ---- limits ------------------------------------------------------------------------------------
cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value);
cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit);
inline cudaError_t cudaThreadSetLimit(cudaLimit limit, size_t value) {
  return cudaDeviceSetLimit(limit, value);
}
inline cudaError_t cudaThreadGetLimit(size_t* value, cudaLimit limit) {
  return cudaDeviceGetLimit(value, limit);
}

// ---- L2 access policy (accepted; the simulator has no L2 to steer) ------------------------------
inline cudaError_t cudaStreamSetAttribute(cudaStream_t, cudaStreamAttrID,
                                          const cudaStreamAttrValue*) {
  return cudaSuccess;
}
inline cudaError_t cudaStreamGetAttribute(cudaStream_t, cudaStreamAttrID, cudaStreamAttrValue* v) {
  if (v) *v = cudaStreamAttrValue{};
  return cudaSuccess;
}
inline cudaError_t cudaCtxResetPersistingL2Cache() { return cudaSuccess; }

// ---- peers: the simulator has one GPU --------------------------------------------------------
inline cudaError_t cudaDeviceGetP2PAttribute(int* value, cudaDeviceP2PAttr, int src, int dst) {
  if (!value) return cudaErrorInvalidValue;
  if (src != 0 || dst != 0) return cudaErrorInvalidDevice;
  *value = 0;
  return cudaSuccess;
}

// One GPU: copies "between" devices are copies on it; peer access to
// another device does not exist.
inline cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device,
                                  size_t bytes) {
  if (dst_device != 0 || src_device != 0) return cudaErrorInvalidDevice;
  return cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice);
}
inline cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                       size_t bytes, cudaStream_t = nullptr) {
  return cudaMemcpyPeer(dst, dst_device, src, src_device, bytes);
}
inline cudaError_t cudaDeviceEnablePeerAccess(int, unsigned int) { return cudaErrorInvalidDevice; }
inline cudaError_t cudaDeviceDisablePeerAccess(int) { return cudaErrorInvalidDevice; }

#include "cudalab/graphs.h"
