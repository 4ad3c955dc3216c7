// Stacks for the fibers that run a block's CUDA threads: made on demand,
// kept by each worker for its next blocks, with a guard page below each (or,
// for cooperative launches, in unguarded chunks with a canary).
#include "grid/stack_pool.h"

#include <sanitizer/asan_interface.h>
#include <sys/mman.h>

#include <cstring>
#include <new>
#include <vector>

#include "grid/grid.h"

namespace cudalab::rt {

namespace ctx = boost::context;

namespace {

// Far more than a GPU thread gets (1 KiB by default), enough for printf,
// large local arrays and a kernel's largest parameters (32,764 bytes since
// CUDA 12.1: NVIDIA's LargeKernelParameter), which a thread's call copies;
// virtual until touched.
constexpr size_t kFiberStack = 128 * 1024;
constexpr size_t kStackGuard = 4096;

// Stacks are reused across blocks and launches: a worker keeps the ones it
// has made. Each has a guard page below it, so overflowing the stack faults
// instead of silently overwriting memory.
//
// A cooperative launch keeps every thread of the grid alive at once (up to
// 270,000 on an H100), more than the kernel allows memory mappings for with
// a guard page each; its stacks come in chunks of 64, unguarded, and a
// canary at the bottom of each tells afterwards if one overflowed.
constexpr size_t kChunkStacks = 64;
constexpr uint64_t kCanary = 0x6375646c61627374ull;  // "cudlabst"
thread_local bool tl_unguarded_stacks = false;
thread_local bool tl_stack_overflowed = false;

struct StackPool {
  std::vector<void*> free_stacks;     // guarded: the guard page's address
  std::vector<void*> free_unguarded;  // unguarded: the stack's lowest address
  std::vector<void*> chunks;
  ~StackPool() {
    for (void* p : free_stacks) munmap(p, kFiberStack + kStackGuard);
    for (void* c : chunks) munmap(c, kFiberStack * kChunkStacks);
  }
};
thread_local StackPool tl_stacks;

}  // namespace

ctx::stack_context PooledStack::allocate() {
  ctx::stack_context sc;
  sc.size = kFiberStack;
  if (tl_unguarded_stacks) {
    if (tl_stacks.free_unguarded.empty()) {
      void* chunk = mmap(nullptr, kFiberStack * kChunkStacks, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (chunk == MAP_FAILED) throw std::bad_alloc();
      tl_stacks.chunks.push_back(chunk);
      for (size_t i = 0; i < kChunkStacks; ++i)
        tl_stacks.free_unguarded.push_back(static_cast<char*>(chunk) + i * kFiberStack);
    }
    char* low = static_cast<char*>(tl_stacks.free_unguarded.back());
    tl_stacks.free_unguarded.pop_back();
    std::memcpy(low, &kCanary, sizeof(kCanary));
    sc.sp = low + kFiberStack;
    return sc;
  }
  void* base;
  if (!tl_stacks.free_stacks.empty()) {
    base = tl_stacks.free_stacks.back();
    tl_stacks.free_stacks.pop_back();
  } else {
    base = mmap(nullptr, kFiberStack + kStackGuard, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) throw std::bad_alloc();
    mprotect(base, kStackGuard, PROT_NONE);
  }
  sc.sp = static_cast<char*>(base) + kStackGuard + kFiberStack;
  return sc;
}

void PooledStack::deallocate(ctx::stack_context& sc) noexcept {
  char* low = static_cast<char*>(sc.sp) - kFiberStack;
  // A thread cut short (a fault, an abort) leaves its frames' red zones
  // behind: the next fiber on this stack starts clean (the sanitizer build).
  ASAN_UNPOISON_MEMORY_REGION(low, kFiberStack);
  if (tl_unguarded_stacks) {
    uint64_t canary;
    std::memcpy(&canary, low, sizeof(canary));
    if (canary != kCanary) tl_stack_overflowed = true;
    tl_stacks.free_unguarded.push_back(low);
    return;
  }
  tl_stacks.free_stacks.push_back(low - kStackGuard);
}

void use_unguarded_stacks() { tl_unguarded_stacks = true; }
bool unguarded_stack_overflowed() { return tl_stack_overflowed; }

}  // namespace cudalab::rt
