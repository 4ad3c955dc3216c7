// memcheck: is an address a kernel touched host memory? On a GPU a kernel
// that uses a pointer from malloc, new or the host's stack faults; here the
// host's memory is reachable, so the check has to say it. Only addresses in
// no device allocation and no shared memory get here.
//
// A kernel may still use, outside device memory: its own locals (the fiber
// stack it runs on), its arguments (the launch's objects on the launching
// thread's stack), the thread-local block of its worker (threadIdx, ...),
// the program's globals (__device__, __constant__, string literals), and
// pinned or registered host memory. Host memory is the main thread's stack,
// the brk heap, and glibc's separately mapped large blocks; kernels never run
// on the main thread while memcheck is on (see run_grid), so nothing of
// theirs is there.
#include <fcntl.h>
#include <link.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUDALAB_ASAN 1
#endif
#elif defined(__SANITIZE_ADDRESS__)
#define CUDALAB_ASAN 1
#endif
#if defined(CUDALAB_ASAN)
#include <sanitizer/asan_interface.h>
#endif
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CUDALAB_TSAN 1
// ThreadSanitizer's own answer to "whose memory is this?" (its runtime has
// it; its headers do not declare it).
extern "C" const char* __tsan_locate_address(uintptr_t address, char* name, size_t name_size,
                                             uintptr_t* region, size_t* region_size);
#endif
#endif

#include <array>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "checks/checks.h"
#include "grid/grid.h"
#include "runtime/allocations.h"

namespace cudalab::rt {
namespace {

struct Mapping {
  uintptr_t low = 0, high = 0;
  enum Kind { kOther, kStack, kHeap, kLargeBlock } kind = kOther;
};

std::mutex g_host_mutex;
std::vector<Mapping> g_mappings;

constexpr const char* kHeapWords =
    "host heap memory (from malloc, new or a std::vector in host code)";

// glibc gives a large malloc its own mapping, starting with a chunk header
// whose size has the "mapped" bit (2) and spans the mapping. Mappings made
// one after another sit side by side, and the kernel shows them as one: walk
// the blocks from its start, each header giving the next one's place, and
// file each as a large block; what follows the last one is something else.
// The headers are read as the kernel reads another process's memory, not
// through a pointer: the mapping may be one the program never allocated (a
// sanitizer's own shadow, or its heap), and another thread may unmap it
// (a fiber's stack) between the listing and the read, which then fails
// instead of faulting inside the check (with its lock held).
bool read_word(uintptr_t at, size_t* word) {
  iovec local{word, sizeof *word};
  iovec remote{reinterpret_cast<void*>(at), sizeof *word};
  const ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  if (got == ssize_t(sizeof *word)) return true;
  if (got < 0 && errno == EFAULT) return false;  // not mapped (any more)
  // A sandbox may refuse the call (seccomp): /proc/self/mem reads the same
  // way, failing where nothing is mapped.
  static const int mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
  return mem >= 0 && pread(mem, word, sizeof *word, off_t(at)) == ssize_t(sizeof *word);
}

void add_anonymous(const Mapping& m) {
  uintptr_t p = m.low;
  while (m.high - p >= 4096) {
    size_t size = 0;
    if (!read_word(p + sizeof(size_t), &size)) break;
    const size_t bytes = (size & ~size_t(7)) + 4095 & ~size_t(4095);
    if (!(size & 2) || bytes == 0 || bytes > m.high - p) break;
    g_mappings.push_back({p, p + bytes, Mapping::kLargeBlock});
    p += bytes;
  }
  if (p < m.high) g_mappings.push_back({p, m.high, Mapping::kOther});
}

void read_mappings() {
  g_mappings.clear();
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    std::istringstream in(line);
    std::string range, perms, offset, dev, inode, name;
    in >> range >> perms >> offset >> dev >> inode;
    std::getline(in >> std::ws, name);
    Mapping m;
    m.low = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
    m.high = std::stoull(range.substr(range.find('-') + 1), nullptr, 16);
    if (name == "[stack]")
      m.kind = Mapping::kStack;
    else if (name == "[heap]")
      m.kind = Mapping::kHeap;
    else if (name.empty() && perms.rfind("rw", 0) == 0 && inode == "0") {
      add_anonymous(m);
      continue;
    }
    g_mappings.push_back(m);
  }
}

// This worker's thread-local blocks (every module's) and its thread control
// block right after them.
struct ThreadLocals {
  uintptr_t low = UINTPTR_MAX, high = 0;
};
thread_local ThreadLocals tl_locals;
const ThreadLocals& thread_locals() {
  if (!tl_locals.high) {
    // The static thread-local blocks sit just below the thread pointer; a
    // module's block allocated elsewhere (dynamic TLS, on the heap) must not
    // stretch the range over device memory.
    // Past the thread pointer only the first words of the control block
    // (what %fs:0 reads): a device buffer may be mapped right after it.
    tl_locals.high = reinterpret_cast<uintptr_t>(__builtin_thread_pointer()) + 64;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* out) {
          auto* r = static_cast<ThreadLocals*>(out);
          const auto data = reinterpret_cast<uintptr_t>(info->dlpi_tls_data);
          if (data && data < r->high && r->high - data < (uintptr_t(1) << 20))
            r->low = std::min(r->low, data);
          return 0;
        },
        &tl_locals);
    if (tl_locals.low > tl_locals.high) tl_locals.low = tl_locals.high;
  }
  return tl_locals;
}

}  // namespace

void thread_local_span(uintptr_t* low, uintptr_t* high) {
  const ThreadLocals& t = thread_locals();
  *low = t.low;
  *high = t.high;
}

bool kernel_own_memory(uintptr_t address) {
  // The running thread's locals: its fiber stack, above the stack pointer,
  // up to the frame that started the thread (what lies past a 64 KiB
  // fiber stack can be a host block of the program's), else a bound.
  const auto sp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  constexpr uintptr_t kLocals = 256 * 1024;
  uintptr_t top = sp + kLocals;
  if (tl_thread && tl_thread->stack_top > sp && tl_thread->stack_top - sp < kLocals)
    top = tl_thread->stack_top;
  if (address + 256 >= sp && address < top) return true;
  // Outside a kernel (a fault described after its launch): no block's own.
  if (!tl_block) return false;
  const Launch& l = *tl_block->launch;
  if (address >= l.frame_low && address < l.frame_high) return true;
  if (address >= tl_block->scratch_low && address < tl_block->scratch_high) return true;
  const ThreadLocals& tls = thread_locals();
  return address >= tls.low && address < tls.high;
}

std::string host_memory_kind(uintptr_t address, bool* unmapped) {
  *unmapped = false;
  if (kernel_own_memory(address)) return "";
  // The program's globals, say: the last mappings found to be no host
  // memory of the program's (a kernel reading `__constant__` tables, some
  // const and some not, alternates between the executable's read-only and
  // writable segments: one remembered mapping took a lock at every access).
  thread_local std::array<Mapping, 4> tl_others{};
  thread_local size_t tl_next_other = 0;
  for (const Mapping& o : tl_others)
    if (address >= o.low && address < o.high) return "";
  if (kernel_visible_host_memory(address)) return "";
#if defined(CUDALAB_ASAN)
  // In the sanitizer build malloc is AddressSanitizer's, whose blocks are
  // not glibc's heap: ask it.
  char name[16];
  void* region = nullptr;
  size_t region_size = 0;
  if (std::string(__asan_locate_address(reinterpret_cast<void*>(address), name, sizeof(name),
                                        &region, &region_size)) == "heap")
    return kHeapWords;
#elif defined(CUDALAB_TSAN)
  // In the tsan build malloc is ThreadSanitizer's: ask it too.
  char name[16];
  uintptr_t region = 0;
  size_t region_size = 0;
  if (std::string(__tsan_locate_address(address, name, sizeof(name), &region, &region_size)) ==
      "heap")
    return kHeapWords;
#endif
  std::lock_guard lock(g_host_mutex);
  auto find = [&]() -> const Mapping* {
    for (const Mapping& m : g_mappings)
      if (address >= m.low && address < m.high) return &m;
    return nullptr;
  };
  const Mapping* m = find();
  if (!m) {
    read_mappings();  // the heap grows; new blocks get mapped
    m = find();
  }
  if (!m) {
    *unmapped = true;  // no memory there at all
    return "";
  }
  if (m->kind == Mapping::kOther) tl_others[tl_next_other++ % tl_others.size()] = *m;
  switch (m->kind) {
    case Mapping::kStack:
      return "on the host's stack (a local variable or array of host code, such as main's)";
    case Mapping::kHeap:
      return kHeapWords;
    case Mapping::kLargeBlock:
      return "host heap memory (a large block from malloc, new or a std::vector in host code)";
    default:
      return "";
  }
}

}  // namespace cudalab::rt
