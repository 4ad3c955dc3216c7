// The device heap: cudaMalloc/cudaFree, copies and memsets, with the argument
// checks the CUDA runtime makes. Device memory is ordinary host memory here;
// the allocation table tells device addresses from others.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "internal.h"

namespace cudalab::rt {

AllocationTable& allocations() {
  static AllocationTable table;
  return table;
}

Allocation* AllocationTable::add(void* p, size_t size, std::string site) {
  std::lock_guard lock(mutex_);
  auto a = std::make_unique<Allocation>();
  a->id = next_id_++;
  a->base = reinterpret_cast<uintptr_t>(p);
  a->size = size;
  a->site = std::move(site);
  Allocation* raw = a.get();
  owned_.push_back(std::move(a));
  rebuild_index();
  return raw;
}

bool AllocationTable::remove(void* p) {
  std::lock_guard lock(mutex_);
  auto it = std::find_if(owned_.begin(), owned_.end(),
                         [&](const auto& a) { return a->base == reinterpret_cast<uintptr_t>(p); });
  if (it == owned_.end()) return false;
  owned_.erase(it);
  rebuild_index();
  return true;
}

void AllocationTable::rebuild_index() {
  by_address_.clear();
  for (auto& a : owned_) by_address_.push_back(a.get());
  std::sort(by_address_.begin(), by_address_.end(),
            [](const Allocation* x, const Allocation* y) { return x->base < y->base; });
}

Allocation* AllocationTable::find(uintptr_t address) const {
  auto it = std::upper_bound(by_address_.begin(), by_address_.end(), address,
                             [](uintptr_t v, const Allocation* a) { return v < a->base; });
  if (it == by_address_.begin()) return nullptr;
  Allocation* a = *(it - 1);
  return address - a->base < a->size ? a : nullptr;
}

Allocation* AllocationTable::find_base(const void* p) const {
  Allocation* a = find(reinterpret_cast<uintptr_t>(p));
  return a && a->base == reinterpret_cast<uintptr_t>(p) ? a : nullptr;
}

std::vector<Allocation*> AllocationTable::all() const {
  std::lock_guard lock(mutex_);
  return by_address_;
}

void AllocationTable::clear() {
  std::lock_guard lock(mutex_);
  for (auto& a : owned_) std::free(reinterpret_cast<void*>(a->base));
  owned_.clear();
  by_address_.clear();
}

namespace {
constexpr size_t kDeviceMemory = 85031714816ull;  // an H100's

// A pointer range [p, p+bytes) is acceptable when it is wholly inside one
// device allocation, or wholly outside every one (host memory).
bool range_ok(const void* p, size_t bytes) {
  Allocation* a = allocations().find(reinterpret_cast<uintptr_t>(p));
  if (!a) return true;
  return reinterpret_cast<uintptr_t>(p) - a->base + bytes <= a->size;
}
}  // namespace

}  // namespace cudalab::rt

using namespace cudalab::rt;

cudaError_t cudaMallocImpl(void** ptr, size_t bytes, const char* file, int line) {
  if (!ptr) return api_result(cudaErrorInvalidValue);
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  if (bytes == 0) {
    *ptr = nullptr;
    return api_result(cudaSuccess);
  }
  if (bytes > kDeviceMemory) return api_result(cudaErrorMemoryAllocation);
  size_t rounded = (bytes + 255) / 256 * 256;
  void* p = std::aligned_alloc(256, rounded);
  if (!p) return api_result(cudaErrorMemoryAllocation);
  std::string site = file ? std::string(file) + ":" + std::to_string(line) : "";
  Allocation* a = allocations().add(p, bytes, site);
  allocations_changed();
  if (writer_tracking()) ensure_writer_table(*a);
  trace_allocation(*a);
  *ptr = p;
  return api_result(cudaSuccess);
}

cudaError_t cudaFree(void* ptr) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  if (!ptr) return api_result(cudaSuccess);
  Allocation* a = allocations().find_base(ptr);
  if (!a) return api_result(cudaErrorInvalidValue);
  trace_free(*a);
  allocations().remove(ptr);
  allocations_changed();
  std::free(ptr);
  return api_result(cudaSuccess);
}

namespace {
std::mutex g_host_mutex;
std::vector<void*> g_host_allocations;
}  // namespace

cudaError_t cudaHostAlloc(void** ptr, size_t bytes, unsigned int flags) {
  if (!ptr || flags > (cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
    return api_result(cudaErrorInvalidValue);
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  void* p = std::aligned_alloc(256, (std::max<size_t>(bytes, 1) + 255) / 256 * 256);
  if (!p) return api_result(cudaErrorMemoryAllocation);
  std::lock_guard lock(g_host_mutex);
  g_host_allocations.push_back(p);
  *ptr = p;
  return api_result(cudaSuccess);
}

cudaError_t cudaMallocHost(void** ptr, size_t bytes) {
  return cudaHostAlloc(ptr, bytes, cudaHostAllocDefault);
}

cudaError_t cudaFreeHost(void* ptr) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  if (!ptr) return api_result(cudaSuccess);
  std::lock_guard lock(g_host_mutex);
  auto it = std::find(g_host_allocations.begin(), g_host_allocations.end(), ptr);
  if (it == g_host_allocations.end()) return api_result(cudaErrorInvalidValue);
  g_host_allocations.erase(it);
  std::free(ptr);
  return api_result(cudaSuccess);
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
    return api_result(cudaErrorInvalidMemcpyDirection);
  if (bytes == 0) return api_result(cudaSuccess);
  if (!dst || !src) return api_result(cudaErrorInvalidValue);
  if (!range_ok(dst, bytes) || !range_ok(src, bytes)) return api_result(cudaErrorInvalidValue);
  std::memmove(dst, src, bytes);
  return api_result(cudaSuccess);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t) {
  // Streams run in order and the host waits for each operation: an
  // asynchronous copy is a copy.
  return cudaMemcpy(dst, src, bytes, kind);
}

cudaError_t cudaMemset(void* ptr, int value, size_t bytes) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  if (bytes == 0) return api_result(cudaSuccess);
  if (!ptr) return api_result(cudaErrorInvalidValue);
  Allocation* a = allocations().find(reinterpret_cast<uintptr_t>(ptr));
  if (!a || !range_ok(ptr, bytes)) return api_result(cudaErrorInvalidValue);
  std::memset(ptr, value, bytes);
  return api_result(cudaSuccess);
}

cudaError_t cudaMemsetAsync(void* ptr, int value, size_t bytes, cudaStream_t) {
  return cudaMemset(ptr, value, bytes);
}

cudaError_t cudaDeviceReset() {
  allocations().clear();
  allocations_changed();
  clear_errors();
  return cudaSuccess;
}
