// racecheck and initcheck: shadow memory of global and shared memory
// (shadow.cpp), and where a block's shared memory and static __shared__
// variables are (static_shared.cpp). Not a public header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "checks/checks.h"

namespace cudalab::rt {

struct Allocation;
struct BlockContext;

inline bool racecheck_enabled() { return g_check_flags.racecheck; }
inline bool initcheck_enabled() { return g_check_flags.initcheck; }
inline bool shadow_enabled() { return racecheck_enabled() || initcheck_enabled(); }
// The static __shared__ variables of this program (offset in the program's
// thread-local block, size, name), and this thread's base for them.
struct StaticSharedVariable {
  size_t offset = 0, size = 0;
  std::string name;
};
const std::vector<StaticSharedVariable>& static_shared_variables();
// The program's other thread-locals (threadIdx, pointers to dynamic shared
// memory, ...): not shared memory even when they lie between variables.
const std::vector<StaticSharedVariable>& other_thread_locals();
const StaticSharedVariable* static_shared_variable_at(size_t offset);
// The variable that ends last at or before `offset` (none: nullptr).
const StaticSharedVariable* static_shared_variable_before(size_t offset);
uintptr_t static_shared_base();
// The end of the guard after the static __shared__ variables (this thread's).
constexpr size_t kSharedGuard = 4096;
uintptr_t shared_guard_end();
// The block's shared memory on this worker, for the access callbacks.
struct SharedRanges {
  uintptr_t dynamic_low = 0, dynamic_size = 0;  // the whole arena
  uintptr_t static_low = 0, static_size = 0;    // first to last static variable
  // The worker's thread-locals (threadIdx, ...): never device memory.
  uintptr_t locals_low = 0, locals_size = 0;
  bool ready = false;
};
extern thread_local SharedRanges tl_shared;
void prepare_shared_ranges();

// `atomic`: 0 for a plain access, kAtomicReads for an atomic that reads
// (read-modify-write; initcheck looks), kAtomicStore for one that only
// writes.
constexpr uint8_t kAtomicReads = 1, kAtomicStore = 2;
// An access to the block's shared memory (inside tl_shared's ranges).
void shared_access(uintptr_t address, unsigned size, bool write, uint8_t atomic, uintptr_t pc);
// Whether a shared-memory address is outside the block's own variables
// (memcheck then has reported it); memcheck on.
bool shared_out_of_bounds(uintptr_t address, unsigned size, bool write, uintptr_t pc);
// An access to a device allocation with a shadow.
void global_access(Allocation& a, uintptr_t address, unsigned size, bool write, uint8_t atomic,
                   uintptr_t pc);
void shadow_allocation(Allocation& a);
uint32_t next_shadow_phase();
// Host copies and memsets initialize device memory.
void shadow_host_wrote(const void* device_address, size_t bytes);
void shadow_block_start(BlockContext& b, uint32_t threads);
// Write-after-write hazards wait until their store is done (same value: no
// hazard); the next access or the block's end settles them.
extern constinit thread_local bool tl_pending_writes;
void resolve_pending_writes();
void shadow_barrier(BlockContext& b);
// __syncwarp among `lanes` of warp `warp` of the block running now.
void shadow_warp_sync(uint32_t warp, unsigned lanes);

}  // namespace cudalab::rt
