// The simulated device: one GPU whose properties are a real one's (an H100
// by default; CUDALAB_DEVICE=h200 or a100), so programs that size their
// launches from its properties, attributes or occupancy behave as on it.
#include "runtime/device.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "cudalab/kernel_language.h"
#include "runtime/errors.h"
#include "runtime/settings.h"

namespace {
int g_current_device = 0;
unsigned g_device_flags = 0;

void fill_common(cudaDeviceProp* p) {
  std::memset(p, 0, sizeof(*p));
  p->sharedMemPerBlock = 48 * 1024;
  p->regsPerBlock = 65536;
  p->regsPerMultiprocessor = 65536;
  p->warpSize = 32;
  p->memPitch = 2147483647;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024;
  p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647;
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  p->totalConstMem = 65536;
  p->textureAlignment = 512;
  p->deviceOverlap = 1;
  p->canMapHostMemory = 1;
  p->computeMode = cudaComputeModeDefault;
  p->concurrentKernels = 1;
  p->ECCEnabled = 1;
  p->asyncEngineCount = 3;
  p->unifiedAddressing = 1;
  p->maxThreadsPerMultiProcessor = 2048;
  p->managedMemory = 1;
  p->maxBlocksPerMultiProcessor = 32;
  p->cooperativeLaunch = 1;
  p->concurrentManagedAccess = 1;
  p->computePreemptionSupported = 1;
  p->singleToDoublePrecisionPerfRatio = 2;
  p->streamPrioritiesSupported = 1;
  p->globalL1CacheSupported = 1;
  p->localL1CacheSupported = 1;
  p->persistingL2CacheMaxSize = 0;
  p->accessPolicyMaxWindowSize = 134213632;
  p->maxSurface1D = 32768;
  p->maxTexture1D = 131072;
  p->maxTexture1DMipmap = 32768;
  p->maxTexture2D[0] = 131072, p->maxTexture2D[1] = 65536;
  p->maxTexture2DMipmap[0] = 32768, p->maxTexture2DMipmap[1] = 32768;
  p->maxTexture2DLinear[0] = 131072, p->maxTexture2DLinear[1] = 65000;
  p->maxTexture2DLinear[2] = 2097120;
  p->maxTexture2DGather[0] = 32768, p->maxTexture2DGather[1] = 32768;
  p->maxTexture3D[0] = p->maxTexture3D[1] = p->maxTexture3D[2] = 16384;
  p->maxTexture3DAlt[0] = p->maxTexture3DAlt[1] = 8192, p->maxTexture3DAlt[2] = 32768;
  p->maxTextureCubemap = 32768;
  p->maxTexture1DLayered[0] = 32768, p->maxTexture1DLayered[1] = 2048;
  p->maxTexture2DLayered[0] = p->maxTexture2DLayered[1] = 32768;
  p->maxTexture2DLayered[2] = 2048;
  p->maxTextureCubemapLayered[0] = 32768, p->maxTextureCubemapLayered[1] = 2046;
  p->maxSurface2D[0] = 131072, p->maxSurface2D[1] = 65536;
  p->maxSurface3D[0] = p->maxSurface3D[1] = p->maxSurface3D[2] = 16384;
  p->maxSurface1DLayered[0] = 32768, p->maxSurface1DLayered[1] = 2048;
  p->maxSurface2DLayered[0] = p->maxSurface2DLayered[1] = 32768;
  p->maxSurface2DLayered[2] = 2048;
  p->maxSurfaceCubemap = 32768;
  p->maxSurfaceCubemapLayered[0] = 32768, p->maxSurfaceCubemapLayered[1] = 2046;
  p->surfaceAlignment = 512;
  p->texturePitchAlignment = 32;
  p->reservedSharedMemPerBlock = 1024;
  p->memoryPoolsSupported = 1;
  p->clusterLaunch = 1;
  p->ipcEventSupported = 1;
}

void fill_h100(cudaDeviceProp* p) {
  fill_common(p);
  std::strncpy(p->name, "NVIDIA H100 80GB HBM3 (cudalab simulator)", sizeof(p->name) - 1);
  p->totalGlobalMem = 85031714816ull;
  p->sharedMemPerBlockOptin = 227 * 1024;
  p->sharedMemPerMultiprocessor = 228 * 1024;
  p->clockRate = 1980000;
  p->major = 9;
  p->minor = 0;
  p->multiProcessorCount = 132;
  p->memoryClockRate = 2619000;
  p->memoryBusWidth = 5120;
  p->l2CacheSize = 52428800;
}

void fill_h200(cudaDeviceProp* p) {
  fill_h100(p);
  std::memset(p->name, 0, sizeof(p->name));
  std::strncpy(p->name, "NVIDIA H200 (cudalab simulator)", sizeof(p->name) - 1);
  p->totalGlobalMem = 150754820096ull;
  p->memoryClockRate = 3201000;
  p->memoryBusWidth = 6144;
  p->l2CacheSize = 62914560;
}

void fill_a100(cudaDeviceProp* p) {
  fill_common(p);
  std::strncpy(p->name, "NVIDIA A100-SXM4-80GB (cudalab simulator)", sizeof(p->name) - 1);
  p->totalGlobalMem = 85097971712ull;
  p->sharedMemPerBlockOptin = 163 * 1024;
  p->sharedMemPerMultiprocessor = 164 * 1024;
  p->clockRate = 1410000;
  p->major = 8;
  p->minor = 0;
  p->multiProcessorCount = 108;
  p->memoryClockRate = 1593000;
  p->memoryBusWidth = 5120;
  p->l2CacheSize = 41943040;
}

using cudalab::rt::DeviceModel;

struct Profile {
  DeviceModel model;
  void (*fill)(cudaDeviceProp*);
};
constexpr Profile kProfiles[] = {{DeviceModel::kH100, fill_h100},
                                 {DeviceModel::kH200, fill_h200},
                                 {DeviceModel::kA100, fill_a100}};

// The simulated GPU: CUDALAB_DEVICE=h100 (the default), h200 or a100.
const cudaDeviceProp& chosen() {
  static const cudaDeviceProp props = [] {
    cudaDeviceProp p;
    const DeviceModel model = cudalab::rt::device_setting();
    for (const auto& profile : kProfiles)
      if (profile.model == model) profile.fill(&p);
    return p;
  }();
  return props;
}

void fill_device(cudaDeviceProp* p) { *p = chosen(); }

std::mutex g_attributes_mutex;
std::map<const void*, int> g_dynamic_shared_limits;  // by kernel address
size_t g_printf_fifo = 8650752, g_stack_size = 1024, g_heap_size = 8 << 20;
// Dynamic parallelism's limits (CUDA's defaults).
size_t g_pending_launches = 2048, g_sync_depth = 2;
}  // namespace

using cudalab::rt::api_result;

cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return api_result(cudaErrorInvalidValue);
  *count = 1;
  return api_result(cudaSuccess);
}

cudaError_t cudaGetDevice(int* device) {
  if (!device) return api_result(cudaErrorInvalidValue);
  *device = g_current_device;
  return api_result(cudaSuccess);
}

cudaError_t cudaSetDevice(int device) {
  if (device != 0) return api_result(cudaErrorInvalidDevice);
  g_current_device = device;
  return api_result(cudaSuccess);
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (!prop) return api_result(cudaErrorInvalidValue);
  if (device != 0) return api_result(cudaErrorInvalidDevice);
  fill_device(prop);
  return api_result(cudaSuccess);
}

cudaError_t cudaDriverGetVersion(int* version) {
  if (!version) return api_result(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return api_result(cudaSuccess);
}

cudaError_t cudaRuntimeGetVersion(int* version) {
  if (!version) return api_result(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return api_result(cudaSuccess);
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (!value) return api_result(cudaErrorInvalidValue);
  if (device != 0) return api_result(cudaErrorInvalidDevice);
  cudaDeviceProp p;
  fill_device(&p);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock:
      *value = p.maxThreadsPerBlock;
      break;
    case cudaDevAttrMaxBlockDimX:
      *value = p.maxThreadsDim[0];
      break;
    case cudaDevAttrMaxBlockDimY:
      *value = p.maxThreadsDim[1];
      break;
    case cudaDevAttrMaxBlockDimZ:
      *value = p.maxThreadsDim[2];
      break;
    case cudaDevAttrMaxGridDimX:
      *value = p.maxGridSize[0];
      break;
    case cudaDevAttrMaxGridDimY:
      *value = p.maxGridSize[1];
      break;
    case cudaDevAttrMaxGridDimZ:
      *value = p.maxGridSize[2];
      break;
    case cudaDevAttrMaxSharedMemoryPerBlock:
      *value = int(p.sharedMemPerBlock);
      break;
    case cudaDevAttrTotalConstantMemory:
      *value = int(p.totalConstMem);
      break;
    case cudaDevAttrWarpSize:
      *value = p.warpSize;
      break;
    case cudaDevAttrMaxPitch:
      *value = int(p.memPitch);
      break;
    case cudaDevAttrMaxRegistersPerBlock:
      *value = p.regsPerBlock;
      break;
    case cudaDevAttrClockRate:
      *value = p.clockRate;
      break;
    case cudaDevAttrTextureAlignment:
      *value = int(p.textureAlignment);
      break;
    case cudaDevAttrGpuOverlap:
      *value = p.deviceOverlap;
      break;
    case cudaDevAttrMultiProcessorCount:
      *value = p.multiProcessorCount;
      break;
    case cudaDevAttrKernelExecTimeout:
      *value = p.kernelExecTimeoutEnabled;
      break;
    case cudaDevAttrIntegrated:
      *value = p.integrated;
      break;
    case cudaDevAttrCanMapHostMemory:
      *value = p.canMapHostMemory;
      break;
    case cudaDevAttrComputeMode:
      *value = p.computeMode;
      break;
    case cudaDevAttrConcurrentKernels:
      *value = p.concurrentKernels;
      break;
    case cudaDevAttrEccEnabled:
      *value = p.ECCEnabled;
      break;
    case cudaDevAttrPciBusId:
      *value = p.pciBusID;
      break;
    case cudaDevAttrPciDeviceId:
      *value = p.pciDeviceID;
      break;
    case cudaDevAttrTccDriver:
      *value = p.tccDriver;
      break;
    case cudaDevAttrMemoryClockRate:
      *value = p.memoryClockRate;
      break;
    case cudaDevAttrGlobalMemoryBusWidth:
      *value = p.memoryBusWidth;
      break;
    case cudaDevAttrL2CacheSize:
      *value = p.l2CacheSize;
      break;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
      *value = p.maxThreadsPerMultiProcessor;
      break;
    case cudaDevAttrAsyncEngineCount:
      *value = p.asyncEngineCount;
      break;
    case cudaDevAttrUnifiedAddressing:
      *value = p.unifiedAddressing;
      break;
    case cudaDevAttrPciDomainId:
      *value = p.pciDomainID;
      break;
    case cudaDevAttrComputeCapabilityMajor:
      *value = p.major;
      break;
    case cudaDevAttrComputeCapabilityMinor:
      *value = p.minor;
      break;
    case cudaDevAttrStreamPrioritiesSupported:
      *value = p.streamPrioritiesSupported;
      break;
    case cudaDevAttrGlobalL1CacheSupported:
      *value = p.globalL1CacheSupported;
      break;
    case cudaDevAttrLocalL1CacheSupported:
      *value = p.localL1CacheSupported;
      break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
      *value = int(p.sharedMemPerMultiprocessor);
      break;
    case cudaDevAttrMaxRegistersPerMultiprocessor:
      *value = p.regsPerMultiprocessor;
      break;
    case cudaDevAttrManagedMemory:
      *value = p.managedMemory;
      break;
    case cudaDevAttrIsMultiGpuBoard:
      *value = p.isMultiGpuBoard;
      break;
    case cudaDevAttrMultiGpuBoardGroupID:
      *value = 0;
      break;
    case cudaDevAttrHostNativeAtomicSupported:
      *value = p.hostNativeAtomicSupported;
      break;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio:
      *value = p.singleToDoublePrecisionPerfRatio;
      break;
    case cudaDevAttrPageableMemoryAccess:
      *value = p.pageableMemoryAccess;
      break;
    case cudaDevAttrConcurrentManagedAccess:
      *value = p.concurrentManagedAccess;
      break;
    case cudaDevAttrComputePreemptionSupported:
      *value = p.computePreemptionSupported;
      break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem:
      *value = p.canUseHostPointerForRegisteredMem;
      break;
    case cudaDevAttrCooperativeLaunch:
      *value = p.cooperativeLaunch;
      break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
      *value = int(p.sharedMemPerBlockOptin);
      break;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
      *value = p.pageableMemoryAccessUsesHostPageTables;
      break;
    case cudaDevAttrDirectManagedMemAccessFromHost:
      *value = p.directManagedMemAccessFromHost;
      break;
    case cudaDevAttrMaxBlocksPerMultiprocessor:
      *value = p.maxBlocksPerMultiProcessor;
      break;
    case cudaDevAttrMemoryPoolsSupported:
      *value = p.memoryPoolsSupported;
      break;
    case cudaDevAttrClusterLaunch:
      *value = p.clusterLaunch;
      break;
    default:
      return api_result(cudaErrorInvalidValue);
  }
  return api_result(cudaSuccess);
}

namespace cudalab::rt {
const cudaDeviceProp& device_properties() { return chosen(); }

size_t dynamic_shared_limit(const char* kernel_name) {
  std::lock_guard lock(g_attributes_mutex);
  // Raised per kernel with cudaFuncSetAttribute; matched by address for
  // registered kernels (via their name), else by any raise at all.
  int best = 0;
  for (const auto& [address, limit] : g_dynamic_shared_limits) {
    const char* name = nullptr;
    if (cudalab::detail::find_kernel_invoker(address, &name) && name && kernel_name) {
      std::string k = kernel_name;
      if (auto colon = k.rfind("::"); colon != std::string::npos) k = k.substr(colon + 2);
      if (k == name) return size_t(limit);
    } else {
      best = std::max(best, limit);
    }
  }
  return best ? size_t(best) : 48 * 1024;
}

int blocks_per_multiprocessor(int block_size, size_t dynamic_shared) {
  const cudaDeviceProp& p = chosen();
  if (block_size <= 0 || block_size > p.maxThreadsPerBlock) return 0;
  const int warps = (block_size + 31) / 32;
  int blocks = std::min(p.maxBlocksPerMultiProcessor, p.maxThreadsPerMultiProcessor / (warps * 32));
  if (dynamic_shared > 0) {
    // 1 KiB of each block's shared memory is reserved by the system.
    const size_t per_block = dynamic_shared + 1024;
    blocks = std::min<int>(blocks, int(p.sharedMemPerMultiprocessor / per_block));
  }
  return blocks;
}
}  // namespace cudalab::rt

using cudalab::rt::blocks_per_multiprocessor;

cudaError_t cudalab::detail::func_get_attributes(cudaFuncAttributes* attr, const void* func) {
  if (!attr || !func) return api_result(cudaErrorInvalidValue);
  std::memset(attr, 0, sizeof(*attr));
  const cudaDeviceProp& p = chosen();
  attr->maxThreadsPerBlock = p.maxThreadsPerBlock;
  attr->numRegs = 10;  // not known on the simulator: what an H100 gives a tiny kernel
  attr->ptxVersion = attr->binaryVersion = p.major * 10 + p.minor;
  std::lock_guard lock(g_attributes_mutex);
  auto it = g_dynamic_shared_limits.find(func);
  attr->maxDynamicSharedSizeBytes = it == g_dynamic_shared_limits.end() ? 48 * 1024 : it->second;
  attr->preferredShmemCarveout = -1;
  return api_result(cudaSuccess);
}

cudaError_t cudalab::detail::func_set_attribute(const void* func, cudaFuncAttribute attr,
                                                int value) {
  if (!func) return api_result(cudaErrorInvalidDeviceFunction);
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
    if (value < 0 || size_t(value) > chosen().sharedMemPerBlockOptin)
      return api_result(cudaErrorInvalidValue);
    std::lock_guard lock(g_attributes_mutex);
    g_dynamic_shared_limits[func] = value;
    return api_result(cudaSuccess);
  }
  if (attr == cudaFuncAttributePreferredSharedMemoryCarveout)
    return api_result(value >= -1 && value <= 100 ? cudaSuccess : cudaErrorInvalidValue);
  return api_result(cudaErrorInvalidValue);
}

cudaError_t cudalab::detail::occupancy_max_active_blocks(int* blocks, const void* func,
                                                         int block_size, size_t dynamic_shared) {
  if (!blocks) return api_result(cudaErrorInvalidValue);
  // A kernel cannot run with more dynamic shared memory than its limit.
  size_t limit = 48 * 1024;
  {
    std::lock_guard lock(g_attributes_mutex);
    auto it = g_dynamic_shared_limits.find(func);
    if (it != g_dynamic_shared_limits.end()) limit = size_t(it->second);
  }
  *blocks = dynamic_shared > limit ? 0 : blocks_per_multiprocessor(block_size, dynamic_shared);
  return api_result(cudaSuccess);
}

cudaError_t cudalab::detail::occupancy_max_potential_block_size(int* min_grid, int* block_size,
                                                                size_t dynamic_shared, int limit) {
  if (!min_grid || !block_size) return api_result(cudaErrorInvalidValue);
  const cudaDeviceProp& p = chosen();
  const int max_size = limit > 0 ? std::min(limit, p.maxThreadsPerBlock) : p.maxThreadsPerBlock;
  // The largest block size that keeps the most threads resident.
  int best_size = 0, best_threads = -1;
  for (int size = max_size / 32 * 32; size >= 32; size -= 32) {
    const int threads = blocks_per_multiprocessor(size, dynamic_shared) * size;
    if (threads > best_threads) best_threads = threads, best_size = size;
  }
  if (best_size == 0) best_size = std::max(1, max_size);
  *block_size = best_size;
  *min_grid = blocks_per_multiprocessor(best_size, dynamic_shared) * p.multiProcessorCount;
  return api_result(cudaSuccess);
}

namespace cudalab::rt {
size_t pending_launch_limit() { return g_pending_launches; }
}  // namespace cudalab::rt

cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
  switch (limit) {
    case cudaLimitStackSize:
      g_stack_size = value;
      break;
    case cudaLimitPrintfFifoSize:
      g_printf_fifo = value;
      break;
    case cudaLimitMallocHeapSize:
      g_heap_size = value;
      break;
    case cudaLimitDevRuntimePendingLaunchCount:
      g_pending_launches = value;
      break;
    case cudaLimitDevRuntimeSyncDepth:
      g_sync_depth = value;
      break;
    default:
      return api_result(cudaErrorInvalidValue);
  }
  return api_result(cudaSuccess);
}

cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit) {
  if (!value) return api_result(cudaErrorInvalidValue);
  switch (limit) {
    case cudaLimitStackSize:
      *value = g_stack_size;
      break;
    case cudaLimitPrintfFifoSize:
      *value = g_printf_fifo;
      break;
    case cudaLimitMallocHeapSize:
      *value = g_heap_size;
      break;
    case cudaLimitDevRuntimePendingLaunchCount:
      *value = g_pending_launches;
      break;
    case cudaLimitDevRuntimeSyncDepth:
      *value = g_sync_depth;
      break;
    default:
      return api_result(cudaErrorInvalidValue);
  }
  return api_result(cudaSuccess);
}

cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  g_device_flags = flags;
  return api_result(cudaSuccess);
}

cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  if (!flags) return api_result(cudaErrorInvalidValue);
  *flags = g_device_flags;
  return api_result(cudaSuccess);
}

cudaError_t cudaDeviceCanAccessPeer(int* can, int device, int peer) {
  if (!can) return api_result(cudaErrorInvalidValue);
  if (device != 0 || peer != 0) return api_result(cudaErrorInvalidDevice);
  *can = 0;
  return api_result(cudaSuccess);
}

namespace {
std::atomic<int> cache_config{cudaFuncCachePreferNone};
}  // namespace

cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config) {
  if (config < cudaFuncCachePreferNone || config > cudaFuncCachePreferEqual)
    return cudalab::rt::api_result(cudaErrorInvalidValue);
  cache_config = config;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config) {
  if (!config) return cudalab::rt::api_result(cudaErrorInvalidValue);
  *config = static_cast<cudaFuncCache>(cache_config.load());
  return cudaSuccess;
}
