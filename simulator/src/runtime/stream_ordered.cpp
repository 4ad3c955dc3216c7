// Stream-ordered allocation: cudaMallocAsync, cudaFreeAsync and memory
// pools. A pool's buffers are device buffers like cudaMalloc's (in the
// allocation table, named by the checks and traces, kept under memcheck once
// freed); the pool counts what they use, and keeps freed memory reserved
// until a synchronization finds it above the release threshold. In a
// capturing stream the calls become graph memory nodes (graphs.cpp).
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "cudalab/kernel_language.h"
#include "runtime/allocations.h"
#include "runtime/capture.h"
#include "runtime/errors.h"

struct CUmemPoolHandle_st {
  unsigned long long threshold = 0;
  size_t used = 0, kept = 0;  // live bytes; freed bytes still reserved
  size_t used_high = 0, reserved_high = 0;
  bool reuse[3] = {true, true, true};
  bool is_default = false;
  size_t reserved() const {
    constexpr size_t kChunk = size_t(2) << 20;
    const size_t r = used + kept;
    return (r + kChunk - 1) / kChunk * kChunk;
  }
  void changed() {
    used_high = std::max(used_high, used);
    reserved_high = std::max(reserved_high, reserved());
  }
};

namespace {
using cudalab::rt::api_result;
std::recursive_mutex g_pool_mutex;
CUmemPoolHandle_st g_default_pool;
cudaMemPool_t g_current_pool = nullptr;
std::set<const CUmemPoolHandle_st*> g_pools;
struct PoolBuffer {
  cudaMemPool_t pool;
  size_t size;
};
std::map<void*, PoolBuffer> g_pool_buffers;

cudaMemPool_t default_pool() {
  if (!g_default_pool.is_default) {
    g_default_pool.is_default = true;
    g_pools.insert(&g_default_pool);
  }
  return &g_default_pool;
}

bool known_pool(cudaMemPool_t pool) {
  default_pool();
  return pool && g_pools.count(pool);
}
}  // namespace

void cudalab::rt::pool_buffer_freed(void* ptr) {
  std::lock_guard lock(g_pool_mutex);
  auto it = g_pool_buffers.find(ptr);
  if (it == g_pool_buffers.end()) return;
  cudaMemPool_t pool = it->second.pool;
  pool->used -= std::min(pool->used, it->second.size);
  pool->kept += it->second.size;
  pool->changed();
  g_pool_buffers.erase(it);
}

void cudalab::rt::release_pool_memory() {
  std::lock_guard lock(g_pool_mutex);
  for (const CUmemPoolHandle_st* p : g_pools) {
    auto* pool = const_cast<CUmemPoolHandle_st*>(p);
    if (pool->reserved() > pool->threshold) pool->kept = 0;
  }
}

cudaError_t cudalab::detail::malloc_async(void** ptr, size_t bytes, cudaMemPool_t pool,
                                          cudaStream_t stream, const char* file, int line) {
  using namespace cudalab::rt;
  if (!ptr) return api_result(cudaErrorInvalidValue);
  {
    std::lock_guard lock(g_pool_mutex);
    if (pool && !known_pool(pool)) return api_result(cudaErrorInvalidValue);
    if (!pool) pool = g_current_pool ? g_current_pool : default_pool();
  }
  if (capturing_launches(stream)) {
    const std::string site = file ? std::string(file) + ":" + std::to_string(line) : "";
    return api_result(capture_alloc(stream, ptr, bytes, site, ""));
  }
  if (const cudaError_t e = capture_refuses_legacy(stream); e != cudaSuccess) return api_result(e);
  const cudaError_t e = malloc_device(ptr, bytes, file, line);
  if (e != cudaSuccess || !*ptr) return e;
  std::lock_guard lock(g_pool_mutex);
  g_pool_buffers[*ptr] = {pool, bytes};
  pool->used += bytes;
  pool->kept -= std::min(pool->kept, bytes);  // reused from what it kept
  pool->changed();
  return e;
}

cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream) {
  using namespace cudalab::rt;
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  if (!ptr) return api_result(cudaSuccess);
  if (cudalab::detail::capturing_launches(stream)) return api_result(capture_free(stream, ptr));
  if (const cudaError_t e = capture_refuses_legacy(stream); e != cudaSuccess) return api_result(e);
  return api_result(free_device_buffer(ptr, "cudaFreeAsync", __builtin_return_address(0)));
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) {
  if (!pool) return api_result(cudaErrorInvalidValue);
  if (device != 0) return api_result(cudaErrorInvalidDevice);
  std::lock_guard lock(g_pool_mutex);
  *pool = default_pool();
  return api_result(cudaSuccess);
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device) {
  if (!pool) return api_result(cudaErrorInvalidValue);
  if (device != 0) return api_result(cudaErrorInvalidDevice);
  std::lock_guard lock(g_pool_mutex);
  *pool = g_current_pool ? g_current_pool : default_pool();
  return api_result(cudaSuccess);
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool) {
  if (device != 0) return api_result(cudaErrorInvalidDevice);
  std::lock_guard lock(g_pool_mutex);
  if (!known_pool(pool)) return api_result(cudaErrorInvalidValue);
  g_current_pool = pool;
  return api_result(cudaSuccess);
}

cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const cudaMemPoolProps* props) {
  if (!pool || !props || props->allocType != cudaMemAllocationTypePinned ||
      props->location.type != cudaMemLocationTypeDevice)
    return api_result(cudaErrorInvalidValue);
  if (props->location.id != 0) return api_result(cudaErrorInvalidDevice);
  std::lock_guard lock(g_pool_mutex);
  auto* p = new CUmemPoolHandle_st;
  g_pools.insert(p);
  *pool = p;
  return api_result(cudaSuccess);
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
  std::lock_guard lock(g_pool_mutex);
  if (!known_pool(pool) || pool->is_default) return api_result(cudaErrorInvalidValue);
  // Its live buffers stay valid until freed, as on a GPU; they no longer count.
  for (auto& [ptr, b] : g_pool_buffers)
    if (b.pool == pool) b.pool = default_pool();
  if (g_current_pool == pool) g_current_pool = nullptr;
  g_pools.erase(pool);
  delete pool;
  return api_result(cudaSuccess);
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
  std::lock_guard lock(g_pool_mutex);
  if (!known_pool(pool) || !value) return api_result(cudaErrorInvalidValue);
  switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
      pool->reuse[attr - 1] = *static_cast<int*>(value) != 0;
      return api_result(cudaSuccess);
    case cudaMemPoolAttrReleaseThreshold:
      pool->threshold = *static_cast<unsigned long long*>(value);
      return api_result(cudaSuccess);
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemHigh:
      // Only a reset to zero: the mark becomes what is there now.
      if (*static_cast<unsigned long long*>(value) != 0) return api_result(cudaErrorInvalidValue);
      if (attr == cudaMemPoolAttrUsedMemHigh)
        pool->used_high = pool->used;
      else
        pool->reserved_high = pool->reserved();
      return api_result(cudaSuccess);
    default:
      return api_result(cudaErrorInvalidValue);
  }
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
  std::lock_guard lock(g_pool_mutex);
  if (!known_pool(pool) || !value) return api_result(cudaErrorInvalidValue);
  auto* out = static_cast<unsigned long long*>(value);
  switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
      *static_cast<int*>(value) = pool->reuse[attr - 1] ? 1 : 0;
      return api_result(cudaSuccess);
    case cudaMemPoolAttrReleaseThreshold:
      *out = pool->threshold;
      break;
    case cudaMemPoolAttrReservedMemCurrent:
      *out = pool->reserved();
      break;
    case cudaMemPoolAttrReservedMemHigh:
      *out = pool->reserved_high;
      break;
    case cudaMemPoolAttrUsedMemCurrent:
      *out = pool->used;
      break;
    case cudaMemPoolAttrUsedMemHigh:
      *out = pool->used_high;
      break;
    default:
      return api_result(cudaErrorInvalidValue);
  }
  return api_result(cudaSuccess);
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t keep) {
  std::lock_guard lock(g_pool_mutex);
  if (!known_pool(pool)) return api_result(cudaErrorInvalidValue);
  if (pool->reserved() > keep)
    pool->kept = keep > pool->used ? std::min(pool->kept, keep - pool->used) : 0;
  return api_result(cudaSuccess);
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const cudaMemAccessDesc* descs, size_t count) {
  std::lock_guard lock(g_pool_mutex);
  if (!known_pool(pool) || (count && !descs)) return api_result(cudaErrorInvalidValue);
  for (size_t i = 0; i < count; ++i) {
    if (descs[i].location.type != cudaMemLocationTypeDevice)
      return api_result(cudaErrorInvalidValue);
    if (descs[i].location.id != 0) return api_result(cudaErrorInvalidDevice);
    // The owning device always reads and writes its pool.
    if (descs[i].flags != cudaMemAccessFlagsProtReadWrite) return api_result(cudaErrorInvalidValue);
  }
  return api_result(cudaSuccess);
}

cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags* flags, cudaMemPool_t pool,
                                 cudaMemLocation* location) {
  std::lock_guard lock(g_pool_mutex);
  if (!flags || !location || !known_pool(pool)) return api_result(cudaErrorInvalidValue);
  if (location->type != cudaMemLocationTypeDevice) return api_result(cudaErrorInvalidValue);
  if (location->id != 0) return api_result(cudaErrorInvalidDevice);
  *flags = cudaMemAccessFlagsProtReadWrite;
  return api_result(cudaSuccess);
}
