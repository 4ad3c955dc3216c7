// Device memory: the allocation table, each buffer's mapping, red zones and
// writer table (memory.cpp; the writer tables in checks/instrument.cpp). Not
// a public header.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/driver_types.h"

namespace cudalab::rt {

// racecheck and initcheck's records of device memory (shadow.cpp says what
// they hold): 10.5 bytes per 4-byte word, within the checks' 3x budget.
struct GlobalShadow {
  std::unique_ptr<uint64_t[]> race;    // per word: last writer and readers
  std::unique_ptr<uint16_t[]> sites;   // per word: their code addresses
  std::unique_ptr<uint8_t[]> written;  // per word, 4 bits: bytes initialized
};

// The site and variable name_next_allocation gave the next cudaMalloc.
extern thread_local std::pair<std::string, std::string> tl_next_allocation;

struct Allocation {
  uint32_t id = 0;
  uintptr_t base = 0;
  void* block = nullptr;  // its mapping (map_device_block), guard pages and red zones included
  size_t size = 0;
  std::string site;  // "file.cu:31", where cudaMalloc was called
  std::string name;  // "d_a", the variable of that call when the source shows it
  // Writer tracking: one entry per 4-byte word, (block << 32) | (thread + 1);
  // 0 means not written while tracking was on.
  std::unique_ptr<std::atomic<uint64_t>[]> writers;
  // racecheck and initcheck: one entry per 4-byte word (see shadow.cpp).
  std::unique_ptr<GlobalShadow> shadow;
  std::atomic<uint32_t> shadow_launch{0};  // the launch its race fields belong to
  std::mutex shadow_mutex;
  bool managed = false;      // host code writes it too: always initialized
  bool host_filled = false;  // device memory Thrust's host code fills: always initialized
};

// The device heap. Lookups during a launch need no lock: allocations only
// change in host API calls, and the host waits while a launch runs.
class AllocationTable {
 public:
  // `block`: the mapping the buffer is in (map_device_block).
  Allocation* add(void* p, size_t size, std::string site, void* block);
  bool remove(void* p);  // false: not the start of a live allocation
  Allocation* find(uintptr_t address) const;
  Allocation* find_base(const void* p) const;
  // The allocation whose red zones (`margin` bytes either side) hold
  // `address`, when it is in no allocation.
  const Allocation* nearest(uintptr_t address, size_t margin) const;
  // The allocation that starts last at or before `address`, if any.
  const Allocation* preceding(uintptr_t address) const;
  // The allocation that starts first after `address`, if any.
  const Allocation* following(uintptr_t address) const;
  // Whether `address` is between the lowest and highest allocation (with
  // red zones): most other accesses (locals, shared memory) are not.
  bool in_span(uintptr_t address) const {
    return address >= span_low_.load(std::memory_order_relaxed) &&
           address < span_high_.load(std::memory_order_relaxed);
  }
  std::vector<Allocation*> all() const;
  // Calls f(allocation) for each live one, holding the table's lock: one
  // freed by another host thread meanwhile (cudaFree removes it here before
  // it unmaps its memory) is either still mapped or not visited.
  template <class F>
  void for_each_live(F f) const {
    std::lock_guard lock(mutex_);
    for (const Allocation* a : by_address_) f(*a);
  }
  void clear();

 private:
  void rebuild_index();
  mutable std::mutex mutex_;
  std::atomic<uintptr_t> span_low_{0}, span_high_{0};
  std::vector<std::unique_ptr<Allocation>> owned_;
  std::vector<Allocation*> by_address_;
  uint32_t next_id_ = 1;
};
AllocationTable& allocations();
// Pinned, mapped and registered host memory (cudaHostAlloc, cudaHostRegister):
// kernels may use it.
bool kernel_visible_host_memory(uintptr_t address);

constexpr size_t kRedzone = 256;  // bytes guarded before and after each allocation
// A device buffer of `bytes` in a mapping of its own (memory.cpp); `block`
// is the mapping, for unmap_device_block.
void* map_device_block(size_t bytes, void** block);
void unmap_device_block(void* block, size_t bytes);
// Where a buffer's mapping lies: [low, high) in all, guard pages included,
// of which [usable_low, usable_high) (red zones, buffer, the rest of its
// last page) may be touched.
struct DeviceBlockSpan {
  uintptr_t low, usable_low, usable_high, high;
};
DeviceBlockSpan device_block_span(const void* block, size_t bytes);

// A device buffer in the allocation table, as cudaMalloc makes one (memory.cpp).
Allocation* add_device_buffer(void* p, size_t bytes, void* block, std::string site,
                              std::string name);
// cudaFree's work for `call` (cudaFree, cudaFreeAsync, a graph's free node):
// the buffer leaves the table; its mapping goes unless memcheck keeps it or
// a graph owns it.
cudaError_t free_device_buffer(void* ptr, const char* call, const void* caller);
// Whether a graph's memory node owns the buffer at `ptr` (then the graph
// Writer tracking (checks/instrument.cpp): which thread wrote each word
// last, for the judge and the trace.
bool writer_tracking();
void ensure_writer_table(Allocation& a);
void allocations_changed();

}  // namespace cudalab::rt
