// The device heap: cudaMalloc/cudaFree, copies and memsets, with the argument
// checks the CUDA runtime makes. Device memory is ordinary host memory here;
// the allocation table tells device addresses from others.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "checks/checks.h"
#include "checks/shadow.h"
#include "cudalab/kernel_language.h"
#include "runtime/allocations.h"
#include "runtime/capture.h"
#include "runtime/errors.h"
#include "runtime/textures.h"
#include "traces/symbols.h"
#include "traces/trace.h"

namespace cudalab::rt {

// Device memory: every buffer in a mapping of its own, away from the
// simulator's heap, with a red zone before and after it and guard pages
// around those that can be read (zeros) but not written. A kernel that
// writes past a buffer's end faults at the guard instead of writing over
// the simulator's memory; one that reads a little past it reads zeros, as a
// GPU reads whatever lies there, without a fault; the red zones (and the
// rest of the last page) take small overruns either way. memcheck names
// them all.

namespace {
constexpr size_t kGuardBefore = 64 << 10, kGuardAfter = 256 << 10;
size_t page_size() {
  static const size_t p = size_t(sysconf(_SC_PAGESIZE));
  return p;
}
// The mapping's usable bytes: the red zones and the buffer, to whole pages.
size_t usable_bytes(size_t bytes) {
  const size_t page = page_size();
  return (2 * kRedzone + bytes + page - 1) / page * page;
}

// Device buffers lie one after another in increasing addresses, as a GPU's
// cudaMalloc gives them, from an address far from the host's own mappings:
// a read far past one buffer's end (a loop that loads one grid-stride too
// far) reads the buffer allocated after it, as on a GPU, whatever else the
// process has mapped. Under ThreadSanitizer, which stops a program that
// asks for a place outside the ranges it keeps for the program's own
// mappings, they start near the end of the one for position-independent
// programs (its heap's is its allocator's). Where the place is taken, the
// system chooses.
#if defined(__SANITIZE_THREAD__)
#define CUDALAB_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CUDALAB_UNDER_TSAN 1
#endif
#endif
#ifdef CUDALAB_UNDER_TSAN
constexpr uintptr_t kFirstDeviceBlock = uintptr_t(0x5670) << 32;
#else
constexpr uintptr_t kFirstDeviceBlock = uintptr_t(0x2000) << 32;  // 32 TiB
#endif
void* place_device_block(size_t total) {
  static std::mutex mutex;
  static uintptr_t next = kFirstDeviceBlock;
  constexpr int kFlags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  std::lock_guard lock(mutex);
  void* m =
      mmap(reinterpret_cast<void*>(next), total, PROT_READ, kFlags | MAP_FIXED_NOREPLACE, -1, 0);
  if (m != MAP_FAILED && reinterpret_cast<uintptr_t>(m) == next) {
    next += total;
    return m;
  }
  if (m != MAP_FAILED) munmap(m, total);  // an older kernel took it as a hint only
  return mmap(nullptr, total, PROT_READ, kFlags, -1, 0);
}
}  // namespace

void* map_device_block(size_t bytes, void** block) {
  const size_t usable = usable_bytes(bytes);
  void* m = place_device_block(kGuardBefore + usable + kGuardAfter);
  if (m == MAP_FAILED) return nullptr;
  char* start = static_cast<char*>(m) + kGuardBefore;
  if (mprotect(start, usable, PROT_READ | PROT_WRITE) != 0) {
    munmap(m, kGuardBefore + usable + kGuardAfter);
    return nullptr;
  }
  // No request for 2 MiB pages (madvise): on virtual machines that hand
  // freed memory back to their host, each such page costs far more to
  // fault in than its 512 small ones (docs/measurements.md).
  *block = m;
  return start + kRedzone;
}

DeviceBlockSpan device_block_span(const void* block, size_t bytes) {
  const auto low = reinterpret_cast<uintptr_t>(block);
  const size_t usable = usable_bytes(bytes);
  return {low, low + kGuardBefore, low + kGuardBefore + usable,
          low + kGuardBefore + usable + kGuardAfter};
}

void unmap_device_block(void* block, size_t bytes) {
  if (block) munmap(block, kGuardBefore + usable_bytes(bytes) + kGuardAfter);
}

// Never destroyed: exit-time reports (leaks) read it after static destructors.
AllocationTable& allocations() {
  static AllocationTable* table = new AllocationTable;
  return *table;
}

Allocation* AllocationTable::add(void* p, size_t size, std::string site, void* block) {
  std::lock_guard lock(mutex_);
  auto a = std::make_unique<Allocation>();
  a->id = next_id_++;
  a->base = reinterpret_cast<uintptr_t>(p);
  a->block = block;
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
  uintptr_t low = 0, high = 0;
  if (!by_address_.empty()) {
    // Guard pages included: an access there is a buffer's, out of bounds.
    low = device_block_span(by_address_.front()->block, by_address_.front()->size).low;
    for (const Allocation* a : by_address_)
      high = std::max(high, device_block_span(a->block, a->size).high);
  }
  span_low_.store(low);
  span_high_.store(high);
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

const Allocation* AllocationTable::nearest(uintptr_t address, size_t margin) const {
  auto it = std::upper_bound(by_address_.begin(), by_address_.end(), address,
                             [](uintptr_t v, const Allocation* a) { return v < a->base; });
  // The one before the address, when the address is in the bytes its block
  // keeps after it (the rounding to 256 bytes, then the back red zone)...
  if (it != by_address_.begin()) {
    const Allocation* a = *(it - 1);
    const uintptr_t end = a->base + a->size,
                    block_end = a->base + (a->size + 255) / 256 * 256 + margin;
    if (address >= end && address < block_end) return a;
  }
  // ... or the one after it (its front red zone).
  if (it != by_address_.end() && (*it)->base - address <= margin) return *it;
  return nullptr;
}

const Allocation* AllocationTable::preceding(uintptr_t address) const {
  auto it = std::upper_bound(by_address_.begin(), by_address_.end(), address,
                             [](uintptr_t v, const Allocation* a) { return v < a->base; });
  return it == by_address_.begin() ? nullptr : *(it - 1);
}

const Allocation* AllocationTable::following(uintptr_t address) const {
  auto it = std::upper_bound(by_address_.begin(), by_address_.end(), address,
                             [](uintptr_t v, const Allocation* a) { return v < a->base; });
  return it == by_address_.end() ? nullptr : *it;
}

std::vector<Allocation*> AllocationTable::all() const {
  std::lock_guard lock(mutex_);
  return by_address_;
}

void AllocationTable::clear() {
  std::lock_guard lock(mutex_);
  for (auto& a : owned_) unmap_device_block(a->block, a->size);
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

namespace cudalab::rt {
thread_local std::pair<std::string, std::string> tl_next_allocation;

namespace {
// The variable a cudaMalloc call fills ("d_a" in `cudaMalloc(&d_a, n)` or
// `cudaMalloc((void**)&d_a, n)`), read from the source line; "" when the
// source is not there or the call does not look like that.
// The variable a cudaMalloc call at `at` in `text` fills: its first
// argument, without casts and the address-of ("" when it is not a name).
std::string first_argument_name(const std::string& text, size_t at) {
  at = text.find('(', at);
  if (at == std::string::npos) return "";
  // The first argument, up to a comma at depth 0.
  std::string arg;
  int depth = 0;
  for (size_t i = at + 1; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '(' || c == '<' || c == '[') ++depth;
    if (c == ')' || c == '>' || c == ']') {
      if (depth == 0) break;
      --depth;
    }
    if (c == ',' && depth == 0) break;
    arg += c;
  }
  // Drop casts and the address-of: what is left must be a name.
  for (const char* cast :
       {"reinterpret_cast<void**>", "reinterpret_cast<void **>", "(void**)", "(void **)", "&"})
    for (size_t p; (p = arg.find(cast)) != std::string::npos;) arg.erase(p, std::strlen(cast));
  std::string name;
  for (char c : arg)
    if (!std::isspace(static_cast<unsigned char>(c)) && c != '(' && c != ')') name += c;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-' &&
        c != '>' && c != '[' && c != ']')
      return "";
  return name;
}

std::string allocation_name(const char* file, int line) {
  if (!file || line <= 0) return "";
  const std::string text = source_line(file, line);
  // A line may allocate several buffers (`cudaMalloc(&a, n) || cudaMalloc(&b,
  // n)`): the k-th call from it fills the k-th, in turn.
  std::vector<std::string> names;
  for (size_t at = text.find("cudaMalloc"); at != std::string::npos;
       at = text.find("cudaMalloc", at + 1))
    names.push_back(first_argument_name(text, at));
  if (names.empty()) return "";
  static std::mutex mutex;
  static std::map<std::pair<std::string, int>, size_t> calls;
  std::lock_guard lock(mutex);
  return names[calls[{file, line}]++ % names.size()];
}
}  // namespace
}  // namespace cudalab::rt

cudaError_t cudalab::detail::malloc_device(void** ptr, size_t bytes, const char* file, int line) {
  if (!ptr) return api_result(cudaErrorInvalidValue);
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  if (bytes == 0) {
    *ptr = nullptr;
    return api_result(cudaSuccess);
  }
  if (const cudaError_t e = capture_refuses(CaptureRule::kUnsafe); e != cudaSuccess)
    return api_result(e);
  if (bytes > kDeviceMemory) return api_result(cudaErrorMemoryAllocation);
  start_checks();
  void* block = nullptr;
  void* p = map_device_block(bytes, &block);
  if (!p) return api_result(cudaErrorMemoryAllocation);
  std::string site = file ? std::string(file) + ":" + std::to_string(line) : "";
  // The variable, read from the source line: for checks and traces, and in a
  // judge, whose buffers go to a submission's process with their names.
  std::string name = allocation_name(file, line);
  if (!tl_next_allocation.first.empty()) {
    site = std::move(tl_next_allocation.first);
    name = std::move(tl_next_allocation.second);
    tl_next_allocation = {};
  }
  add_device_buffer(p, bytes, block, std::move(site), std::move(name));
  *ptr = p;
  return api_result(cudaSuccess);
}

Allocation* cudalab::rt::add_device_buffer(void* p, size_t bytes, void* block, std::string site,
                                           std::string name) {
  start_checks();
  Allocation* a = allocations().add(p, bytes, std::move(site), block);
  a->name = std::move(name);
  allocations_changed();
  if (writer_tracking()) ensure_writer_table(*a);
  if (shadow_enabled()) shadow_allocation(*a);
  trace_allocation(*a);
  return a;
}

cudaError_t cudalab::rt::free_device_buffer(void* ptr, const char* call, const void* caller) {
  Allocation* a = allocations().find_base(ptr);
  if (!a) {
    if (memcheck_enabled())
      memcheck_api_error(call, cudaErrorInvalidValue, caller, explain_bad_free(ptr));
    return cudaErrorInvalidValue;
  }
  trace_free(*a);
  void* block = a->block;
  const size_t size = a->size;
  const bool kept = memcheck_keep_freed(*a);
  allocations().remove(ptr);
  allocations_changed();
  pool_buffer_freed(ptr);
  const bool graph_owned = graph_buffer_freed(ptr);
  if (!kept && !graph_owned) unmap_device_block(block, size);
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  if (!ptr) return api_result(cudaSuccess);
  if (const cudaError_t e = capture_refuses(CaptureRule::kUnsafe); e != cudaSuccess)
    return api_result(e);
  return api_result(free_device_buffer(ptr, "cudaFree", __builtin_return_address(0)));
}

namespace {
std::mutex g_host_mutex;
std::vector<void*> g_host_allocations;
// Their ends, for memcheck: kernels may use this host memory.
std::map<uintptr_t, size_t> g_host_sizes;
}  // namespace

bool cudalab::rt::kernel_visible_host_memory(uintptr_t address) {
  std::lock_guard lock(g_host_mutex);
  auto it = g_host_sizes.upper_bound(address);
  if (it == g_host_sizes.begin()) return false;
  --it;
  return address - it->first < it->second;
}

cudaError_t cudaHostAlloc(void** ptr, size_t bytes, unsigned int flags) {
  if (!ptr || flags > (cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
    return api_result(cudaErrorInvalidValue);
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  void* p = std::aligned_alloc(256, (std::max<size_t>(bytes, 1) + 255) / 256 * 256);
  if (!p) return api_result(cudaErrorMemoryAllocation);
  std::lock_guard lock(g_host_mutex);
  g_host_allocations.push_back(p);
  g_host_sizes[reinterpret_cast<uintptr_t>(p)] = bytes;
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
  g_host_sizes.erase(reinterpret_cast<uintptr_t>(ptr));
  std::free(ptr);
  return api_result(cudaSuccess);
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  if (const cudaError_t e = capture_refuses_legacy(nullptr); e != cudaSuccess) return api_result(e);
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
    return api_result(cudaErrorInvalidMemcpyDirection);
  if (bytes == 0) return api_result(cudaSuccess);
  if (!dst || !src) return api_result(cudaErrorInvalidValue);
  if (!range_ok(dst, bytes) || !range_ok(src, bytes)) {
    if (memcheck_enabled())
      memcheck_api_error("cudaMemcpy", cudaErrorInvalidValue, __builtin_return_address(0),
                         explain_bad_range(dst, src, bytes));
    return api_result(cudaErrorInvalidValue);
  }
  if (const std::string why = direction_problem(dst, src, kind); !why.empty()) {
    if (memcheck_enabled())
      memcheck_api_error("cudaMemcpy", cudaErrorInvalidValue, __builtin_return_address(0), why);
    return api_result(cudaErrorInvalidValue);
  }
  std::memmove(dst, src, bytes);
  shadow_host_wrote(dst, bytes);
  return api_result(cudaSuccess);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  if (cudalab::detail::capturing_launches(stream)) {
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(const_cast<void*>(src), bytes, bytes, 1);
    p.dstPtr = make_cudaPitchedPtr(dst, bytes, bytes, 1);
    p.extent = make_cudaExtent(bytes, 1, 1);
    p.kind = kind;
    return api_result(capture_memcpy(stream, p));
  }
  if (const cudaError_t e = capture_refuses_legacy(stream); e != cudaSuccess) return api_result(e);
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
  shadow_host_wrote(ptr, bytes);
  return api_result(cudaSuccess);
}

cudaError_t cudaMemsetAsync(void* ptr, int value, size_t bytes, cudaStream_t stream) {
  if (cudalab::detail::capturing_launches(stream))
    return api_result(capture_memset(stream, ptr, bytes, unsigned(value) & 0xff, 1, bytes, 1));
  if (const cudaError_t e = capture_refuses_legacy(stream); e != cudaSuccess) return api_result(e);
  return cudaMemset(ptr, value, bytes);
}

cudaError_t cudaDeviceReset() {
  allocations().clear();
  allocations_changed();
  clear_errors();
  return cudaSuccess;
}

// ---- managed and mapped memory ---------------------------------------------------------

cudaError_t cudalab::detail::malloc_managed(void** ptr, size_t bytes, unsigned int flags,
                                            const char* file, int line) {
  // One address space: managed memory is device memory the host may touch.
  if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)
    return api_result(cudaErrorInvalidValue);
  const cudaError_t e = cudalab::detail::malloc_device(ptr, bytes, file, line);
  if (e == cudaSuccess && *ptr) {
    // The host writes it without the runtime seeing: always initialized.
    Allocation* a = allocations().find_base(*ptr);
    a->managed = true;
    shadow_host_wrote(*ptr, bytes);
  }
  return e;
}

// ---- Thrust's device memory -----------------------------------------------------------

namespace {
void* thrust_allocation(size_t bytes, const char* site, bool managed) {
  if (bytes == 0) return nullptr;
  tl_next_allocation = {site, ""};
  void* p = nullptr;
  const cudaError_t e =
      managed ? cudalab::detail::malloc_managed(&p, bytes, cudaMemAttachGlobal, nullptr, 0)
              : cudalab::detail::malloc_device(&p, bytes, nullptr, 0);
  tl_next_allocation = {};
  if (e != cudaSuccess || !p) return nullptr;
  Allocation* a = allocations().find_base(p);
  a->host_filled = true;
  shadow_host_wrote(p, bytes);
  return p;
}
}  // namespace

void* cudalab::detail::thrust_malloc(size_t bytes, const char* site) {
  return thrust_allocation(bytes, site, false);
}

void* cudalab::detail::thrust_malloc_managed(size_t bytes, const char* site) {
  return thrust_allocation(bytes, site, true);
}

void cudalab::detail::thrust_free(void* ptr) {
  if (ptr && allocations().find_base(ptr)) cudaFree(ptr);
}

cudaError_t cudaHostRegister(void* ptr, size_t bytes, unsigned int) {
  if (!ptr || bytes == 0) return api_result(cudaErrorInvalidValue);
  std::lock_guard lock(g_host_mutex);
  if (std::find(g_host_allocations.begin(), g_host_allocations.end(), ptr) !=
      g_host_allocations.end())
    return api_result(
        cudaErrorInvalidValue);  // already registered (CUDA: HostMemoryAlreadyRegistered)
  g_host_allocations.push_back(ptr);
  g_host_sizes[reinterpret_cast<uintptr_t>(ptr)] = bytes;
  return api_result(cudaSuccess);
}

cudaError_t cudaHostUnregister(void* ptr) {
  std::lock_guard lock(g_host_mutex);
  auto it = std::find(g_host_allocations.begin(), g_host_allocations.end(), ptr);
  if (it == g_host_allocations.end()) return api_result(cudaErrorInvalidValue);
  g_host_allocations.erase(it);
  g_host_sizes.erase(reinterpret_cast<uintptr_t>(ptr));
  return api_result(cudaSuccess);
}

cudaError_t cudaHostGetDevicePointer(void** device, void* host, unsigned int flags) {
  if (!device || !host || flags != 0) return api_result(cudaErrorInvalidValue);
  std::lock_guard lock(g_host_mutex);
  // Page-locked memory is mapped at the same address (unified addressing).
  if (std::find(g_host_allocations.begin(), g_host_allocations.end(), host) ==
      g_host_allocations.end())
    return api_result(cudaErrorInvalidValue);
  *device = host;
  return api_result(cudaSuccess);
}

cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  if (!free || !total) return api_result(cudaErrorInvalidValue);
  size_t used = 0;
  for (const Allocation* a : allocations().all()) used += (a->size + 255) / 256 * 256;
  *total = kDeviceMemory;
  *free = used < kDeviceMemory ? kDeviceMemory - used : 0;
  return api_result(cudaSuccess);
}

// Prefetches, advice and attachments: one address space and one device, so
// there is nothing to move; they check what a GPU's runtime checks.
namespace {
bool location_ok(cudaMemLocation location) {
  switch (location.type) {
    case cudaMemLocationTypeDevice:
      return location.id == 0;
    case cudaMemLocationTypeHost:
    case cudaMemLocationTypeHostNumaCurrent:
      return true;
    case cudaMemLocationTypeHostNuma:
      return location.id >= 0;
    default:
      return false;
  }
}
cudaError_t hint_result(const void* ptr, size_t bytes, bool location_ok) {
  if (!ptr || bytes == 0) return api_result(cudaErrorInvalidValue);
  return api_result(location_ok ? cudaSuccess : cudaErrorInvalidDevice);
}
bool advice_ok(cudaMemoryAdvise advice) {
  return advice >= cudaMemAdviseSetReadMostly && advice <= cudaMemAdviseUnsetAccessedBy;
}
}  // namespace

cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t bytes, int device, cudaStream_t) {
  return hint_result(ptr, bytes, device == 0 || device == cudaCpuDeviceId);
}

cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t bytes, cudaMemLocation location,
                                 unsigned int flags, cudaStream_t) {
  if (flags != 0) return api_result(cudaErrorInvalidValue);
  return hint_result(ptr, bytes, location_ok(location));
}

cudaError_t cudaMemAdvise(const void* ptr, size_t bytes, cudaMemoryAdvise advice, int device) {
  if (!advice_ok(advice)) return api_result(cudaErrorInvalidValue);
  return hint_result(ptr, bytes, device == 0 || device == cudaCpuDeviceId);
}

cudaError_t cudaMemAdvise(const void* ptr, size_t bytes, cudaMemoryAdvise advice,
                          cudaMemLocation location) {
  if (!advice_ok(advice)) return api_result(cudaErrorInvalidValue);
  return hint_result(ptr, bytes, location_ok(location));
}

cudaError_t cudaStreamAttachMemAsync(cudaStream_t, void* ptr, size_t, unsigned int flags) {
  if (!ptr) return api_result(cudaErrorInvalidValue);
  const bool known =
      flags == cudaMemAttachGlobal || flags == cudaMemAttachHost || flags == cudaMemAttachSingle;
  return api_result(known ? cudaSuccess : cudaErrorInvalidValue);
}

// ---- pitched memory and 2D/3D copies -----------------------------------------------------

namespace {
constexpr size_t kPitchAlignment = 512;  // an H100's texture pitch alignment

cudaError_t copy_rows(char* dst, size_t dpitch, const char* src, size_t spitch, size_t width,
                      size_t rows, cudaMemcpyKind kind) {
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  if (width > dpitch || width > spitch) return cudaErrorInvalidPitchValue;
  if (width == 0 || rows == 0) return cudaSuccess;
  if (!dst || !src) return cudaErrorInvalidValue;
  const size_t dspan = dpitch * (rows - 1) + width, sspan = spitch * (rows - 1) + width;
  if (!range_ok(dst, dspan) || !range_ok(src, sspan)) return cudaErrorInvalidValue;
  if (!direction_problem(dst, src, kind).empty()) return cudaErrorInvalidValue;
  for (size_t r = 0; r < rows; ++r) {
    std::memmove(dst + r * dpitch, src + r * spitch, width);
    shadow_host_wrote(dst + r * dpitch, width);
  }
  return cudaSuccess;
}
}  // namespace

cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height) {
  if (!ptr || !pitch) return api_result(cudaErrorInvalidValue);
  const size_t p = (width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
  *pitch = p;
  return cudalab::detail::malloc_device(ptr, p * height, "cudaMallocPitch", 0);
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind kind) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  return api_result(copy_rows(static_cast<char*>(dst), dpitch, static_cast<const char*>(src),
                              spitch, width, height, kind));
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream) {
  if (cudalab::detail::capturing_launches(stream)) {
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(const_cast<void*>(src), spitch, width, height);
    p.dstPtr = make_cudaPitchedPtr(dst, dpitch, width, height);
    p.extent = make_cudaExtent(width, height, 1);
    p.kind = kind;
    return api_result(capture_memcpy(stream, p));
  }
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}

cudaError_t cudaMemset2D(void* ptr, size_t pitch, int value, size_t width, size_t height) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  if (width > pitch) return api_result(cudaErrorInvalidPitchValue);
  if (width == 0 || height == 0) return api_result(cudaSuccess);
  if (!ptr || !range_ok(ptr, pitch * (height - 1) + width))
    return api_result(cudaErrorInvalidValue);
  for (size_t r = 0; r < height; ++r) {
    std::memset(static_cast<char*>(ptr) + r * pitch, value, width);
    shadow_host_wrote(static_cast<char*>(ptr) + r * pitch, width);
  }
  return api_result(cudaSuccess);
}

cudaError_t cudaMalloc3D(cudaPitchedPtr* pitched, cudaExtent extent) {
  if (!pitched) return api_result(cudaErrorInvalidValue);
  size_t pitch = 0;
  void* p = nullptr;
  const cudaError_t e = cudaMallocPitch(&p, &pitch, extent.width, extent.height * extent.depth);
  if (e != cudaSuccess) return e;
  *pitched = make_cudaPitchedPtr(p, pitch, extent.width, extent.height);
  return cudaSuccess;
}

cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  if (!p) return api_result(cudaErrorInvalidValue);
  if (p->srcArray || p->dstArray) return api_result(memcpy3d_with_arrays(p));  // textures.cpp
  const cudaExtent e = p->extent;
  for (size_t z = 0; z < e.depth; ++z) {
    char* dst = static_cast<char*>(p->dstPtr.ptr) +
                ((p->dstPos.z + z) * p->dstPtr.ysize + p->dstPos.y) * p->dstPtr.pitch + p->dstPos.x;
    const char* src = static_cast<const char*>(p->srcPtr.ptr) +
                      ((p->srcPos.z + z) * p->srcPtr.ysize + p->srcPos.y) * p->srcPtr.pitch +
                      p->srcPos.x;
    const cudaError_t r =
        copy_rows(dst, p->dstPtr.pitch, src, p->srcPtr.pitch, e.width, e.height, p->kind);
    if (r != cudaSuccess) return api_result(r);
  }
  return api_result(cudaSuccess);
}

cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t stream) {
  if (p && cudalab::detail::capturing_launches(stream))
    return api_result(capture_memcpy(stream, *p));
  return cudaMemcpy3D(p);
}

cudaError_t cudaMemset3D(cudaPitchedPtr pitched, int value, cudaExtent extent) {
  for (size_t z = 0; z < extent.depth; ++z) {
    char* slice = static_cast<char*>(pitched.ptr) + z * pitched.ysize * pitched.pitch;
    const cudaError_t e = cudaMemset2D(slice, pitched.pitch, value, extent.width, extent.height);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

// ---- symbols --------------------------------------------------------------------------------

cudaError_t cudalab::detail::memcpy_to_symbol(void* symbol, size_t symbol_size, const void* src,
                                              size_t count, size_t offset, cudaMemcpyKind kind) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault)
    return api_result(cudaErrorInvalidMemcpyDirection);
  if (offset > symbol_size || count > symbol_size - offset)
    return api_result(cudaErrorInvalidValue);
  if (count && !src) return api_result(cudaErrorInvalidValue);
  std::memmove(static_cast<char*>(symbol) + offset, src, count);
  return api_result(cudaSuccess);
}

cudaError_t cudalab::detail::memcpy_from_symbol(void* dst, const void* symbol, size_t symbol_size,
                                                size_t count, size_t offset, cudaMemcpyKind kind) {
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault)
    return api_result(cudaErrorInvalidMemcpyDirection);
  if (offset > symbol_size || count > symbol_size - offset)
    return api_result(cudaErrorInvalidValue);
  if (count && !dst) return api_result(cudaErrorInvalidValue);
  std::memmove(dst, static_cast<const char*>(symbol) + offset, count);
  return api_result(cudaSuccess);
}
