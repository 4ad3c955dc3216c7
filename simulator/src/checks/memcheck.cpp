// memcheck's judgement of addresses and runtime calls: where a bad address
// lies, in words a student can act on ("4 bytes after the last byte of the
// 4000-byte buffer `d_c` allocated at main.cu:3"); what a global access
// outside every live buffer hit (a red zone, a guard page, a freed buffer,
// host memory, nothing) and whether a GPU would fault on it; freed buffers
// kept so that a use after free can be named; why cudaFree or cudaMemcpy was
// refused. Every cudaMalloc gets a 256-byte red zone before and after it.
// The findings go to check_reports.cpp.
#include <atomic>
#include <climits>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "checks/checks.h"
#include "grid/grid.h"
#include "runtime/allocations.h"

namespace cudalab::rt {

namespace {

// Freed allocations kept under memcheck (their memory is never reused).
struct Freed {
  uintptr_t base;
  size_t size;
  std::string site;
};

std::mutex g_freed_mutex;
std::vector<Freed> g_freed;
size_t g_freed_bytes = 0;
// The span of all kept freed buffers: most accesses (locals, shared memory)
// fall outside it and need no lock.
std::atomic<uintptr_t> g_freed_low{UINTPTR_MAX}, g_freed_high{0};
constexpr size_t kKeepFreedBytes = size_t(1) << 30;

}  // namespace

bool memcheck_keep_freed(const Allocation& a) {
  if (!memcheck_enabled()) return false;
  std::lock_guard lock(g_freed_mutex);
  if (g_freed_bytes + a.size > kKeepFreedBytes) return false;
  g_freed.push_back({a.base, a.size, a.site});
  g_freed_bytes += a.size;
  if (a.base < g_freed_low.load()) g_freed_low.store(a.base);
  if (a.base + a.size > g_freed_high.load()) g_freed_high.store(a.base + a.size);
  return true;
}

std::string buffer_words(const Allocation& a) {
  return "the " + std::to_string(a.size) + "-byte buffer " +
         (a.name.empty() ? std::string() : "`" + a.name + "` ") + "allocated at " +
         (a.site.empty() ? std::string("an unknown line") : a.site);
}

std::string describe_global(const Allocation& a, uintptr_t address) {
  return "byte " + std::to_string(address - a.base) + " of " + buffer_words(a);
}

namespace {
std::string bytes_word(uintptr_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

// The buffer whose mapping (red zones and guard pages included) holds
// `address`; *guard: in a guard page, where a GPU faults too.
const Allocation* owner_of(uintptr_t address, bool* guard) {
  for (const Allocation* a : {allocations().preceding(address), allocations().following(address)}) {
    if (!a) continue;
    const DeviceBlockSpan s = device_block_span(a->block, a->size);
    if (address >= s.low && address < s.high) {
      *guard = address < s.usable_low || address >= s.usable_high;
      return a;
    }
  }
  return nullptr;
}

std::string relative_to(const Allocation& a, uintptr_t address) {
  if (address >= a.base + a.size)
    return bytes_word(address - (a.base + a.size) + 1) + " after the last byte of " +
           buffer_words(a);
  return bytes_word(a.base - address) + " before the start of " + buffer_words(a);
}
}  // namespace

std::string describe_bad_address(uintptr_t address) {
  bool guard = false;
  if (const Allocation* a = owner_of(address, &guard)) return relative_to(*a, address);
  if (address < 65536)
    return "a null pointer (was the buffer allocated with cudaMalloc, and that pointer passed "
           "to the kernel?)";
  if (const Allocation* a = allocations().preceding(address);
      a && address - (a->base + a->size) < (uintptr_t(1) << 32))
    return relative_to(*a, address) +
           ", far past its end (an index computed wrong: rows and columns swapped, or a "
           "missing bounds check?)";
  return "";
}

// Global accesses that hit no live allocation: a buffer's red zone (out of
// bounds, harmless), its guard pages (reads harmless, writes fault), no
// memory at all (a GPU faults), freed memory, or host memory (a GPU faults).
bool outside_device_memory(uintptr_t address, unsigned size, bool write, uintptr_t pc,
                           StrayAccess* stray) {
  const bool checking = memcheck_enabled();
  bool guard = false;
  // A buffer's red zones and guards, and freed buffers, first: they may lie
  // right next to the fiber stack, which kernel_own_memory takes broadly.
  if (const Allocation* a = allocations().in_span(address) ? owner_of(address, &guard) : nullptr) {
    *stray = {true, a};
    if (checking) {
      std::string where = relative_to(*a, address);
      // Running past the end of the buffer before it lands here too, and is
      // the more common mistake: say so.
      const Allocation* before = allocations().preceding(address);
      if (address < a->base && before && address >= before->base + before->size &&
          address - (before->base + before->size) < 4096)
        where += "; it is also " + bytes_word(address - (before->base + before->size) + 1) +
                 " after the last byte of " + buffer_words(*before) +
                 " (a thread that runs past that buffer's end lands here)";
      memcheck_problem(kOutOfBounds, "__global__", address, size, write, pc, where);
    }
    return !guard || !write;  // a guard page reads as zeros; a write there faults
  }
  if (checking && address >= g_freed_low.load(std::memory_order_relaxed) &&
      address < g_freed_high.load(std::memory_order_relaxed)) {
    std::string where;
    {
      std::lock_guard lock(g_freed_mutex);
      for (const Freed& fr : g_freed)
        if (address - fr.base < fr.size)
          where = "inside the " + std::to_string(fr.size) + "-byte buffer allocated at " + fr.site +
                  ", which was already freed (cudaFree)";
    }
    if (!where.empty()) {
      stray->mistake = true;
      memcheck_problem(kFreed, "__global__", address, size, write, pc, where);
      return true;  // kept mapped under memcheck: the access harms nothing
    }
  }
  if (kernel_own_memory(address)) return true;
  // A read further past a buffer's end, within twice as many bytes again as
  // the buffer has: a thread that ran on past the end (a prefetch, a
  // grid-stride step too far). A GPU reads whatever lies there; so does this, without a fault.
  // Never a write: past the guard it would land on the simulator's memory.
  if (const Allocation* a = allocations().preceding(address);
      !write && a && address >= a->base + a->size && address - (a->base + a->size) < 2 * a->size) {
    *stray = {true, a};
    if (checking)
      memcheck_problem(kOutOfBounds, "__global__", address, size, write, pc,
                       relative_to(*a, address) + ", far past its end");
    bool unmapped = false;
    host_memory_kind(address, &unmapped);
    return !unmapped;  // no memory there at all: a fault, as on a GPU
  }
  bool unmapped = false;
  const std::string host = host_memory_kind(address, &unmapped);
  if (host.empty() && !unmapped) return true;  // the program's globals, pinned host memory
  stray->mistake = true;
  if (const Allocation* a = allocations().preceding(address);
      !host.empty() || !a || address - (a->base + a->size) >= (uintptr_t(1) << 32))
    stray->buffer = nullptr;  // host memory, or a null or wild pointer
  else
    stray->buffer = a;  // far past that buffer's end
  if (checking) {
    if (!host.empty())
      memcheck_problem(kHostMemory, "__global__", address, size, write, pc,
                       host +
                           "; a kernel can use only device memory: cudaMalloc a buffer, "
                           "cudaMemcpy the data into it and pass that pointer");
    else {
      const std::string where = describe_bad_address(address);
      memcheck_problem(kOutOfBounds, "__global__", address, size, write, pc,
                       where.empty() ? "not memory of this program (a pointer never set, or "
                                       "set wrong)"
                                     : where);
    }
  }
  return false;
}

// ---- runtime calls -------------------------------------------------------------------

std::string explain_bad_free(const void* ptr) {
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  {
    std::lock_guard lock(g_freed_mutex);
    for (const Freed& fr : g_freed)
      if (p == fr.base)
        return "it was freed before (a double free) : the " + std::to_string(fr.size) +
               "-byte buffer allocated at " + fr.site;
  }
  if (const Allocation* a = allocations().find(p))
    return "it points " + std::to_string(p - a->base) + " bytes into " + buffer_words(*a) +
           "; cudaFree takes the pointer cudaMalloc returned";
  return "it is not a pointer that cudaMalloc returned (host memory, or a buffer already freed)";
}

std::string explain_bad_range(const void* dst, const void* src, size_t bytes) {
  for (const void* p : {dst, src}) {
    const auto u = reinterpret_cast<uintptr_t>(p);
    if (const Allocation* a = allocations().find(u); a && u - a->base + bytes > a->size)
      return std::string("the ") + (p == dst ? "destination" : "source") + ", " +
             std::to_string(bytes) + " bytes from byte " + std::to_string(u - a->base) + " of " +
             buffer_words(*a) + ", runs " + std::to_string(u - a->base + bytes - a->size) +
             " bytes past its end";
  }
  return "a pointer or size is wrong";
}

std::string direction_problem(const void* dst, const void* src, cudaMemcpyKind kind) {
  // Measured on an H100: a copy whose host side is device memory fails
  // with cudaErrorInvalidValue.
  auto device = [](const void* p) -> const Allocation* {
    const Allocation* a = allocations().find(reinterpret_cast<uintptr_t>(p));
    return a && !a->managed ? a : nullptr;
  };
  if (const Allocation* s = device(src);
      s && (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyHostToHost))
    return "the source is device memory (" + buffer_words(*s) +
           "), but the direction says it is host memory: is it cudaMemcpyDeviceToHost, or are "
           "the two pointers swapped?";
  if (const Allocation* d = device(dst);
      d && (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyHostToHost))
    return "the destination is device memory (" + buffer_words(*d) +
           "), but the direction says it is host memory: is it cudaMemcpyHostToDevice, or are "
           "the two pointers swapped?";
  return "";
}

}  // namespace cudalab::rt
