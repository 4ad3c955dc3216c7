// Memory accesses seen by the compiler. An instrumented build (clang's
// -fsanitize-coverage=trace-loads,trace-stores) calls __sanitizer_cov_load<N>
// and __sanitizer_cov_store<N> before every load and store; here they are
// attributed to the CUDA thread running now and, when they hit device memory,
// counted, remembered as the last writer, and traced.
//
// A plain build pays nothing: it has no such calls. When a run asks for what
// needs them (CUDALAB_TRACE), a plain build replaces itself at start-up with
// its instrumented twin, `<program>.instrumented`, built beside it.
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "checks/checks.h"
#include "checks/shadow.h"
#include "cudalab/kernel_language.h"
#include "cudalab/sim.h"
#include "grid/block.h"
#include "grid/grid.h"
#include "runtime/allocations.h"
#include "traces/trace.h"

// The rewriter defines this in a program whose source has warp-synchronous
// code (volatile data in a file with __shared__ memory): where it is.
extern "C" __attribute__((weak)) const char* const cudalab_warp_synchronous_source;

namespace cudalab::rt {
namespace {
std::atomic<bool> g_instrumented{false};
std::atomic<bool> g_track_writers{false};
thread_local Allocation* tl_last_allocation = nullptr;
thread_local uint64_t tl_cache_epoch = 0;
std::atomic<uint64_t> g_allocation_epoch{1};
}  // namespace

bool instrumented_build() { return g_instrumented.load(std::memory_order_relaxed); }

const char* warp_synchronous_source() {
  return &cudalab_warp_synchronous_source ? cudalab_warp_synchronous_source : nullptr;
}

bool lockstep_wanted() {
  static const bool wanted = [] {
    switch (lockstep_setting()) {
      case Lockstep::kOn:
        return true;
      case Lockstep::kOff:
        return false;
      default:
        return warp_synchronous_source() != nullptr;
    }
  }();
  return wanted;
}

bool lockstep_enabled() {
  static const bool on = lockstep_wanted() && instrumented_build();
  return on;
}
bool writer_tracking() { return g_track_writers.load(std::memory_order_relaxed); }

void ensure_writer_table(Allocation& a) {
  if (!a.writers) {
    const size_t words = (a.size + 3) / 4;
    a.writers.reset(new std::atomic<uint64_t>[words]);
    for (size_t i = 0; i < words; ++i) a.writers[i].store(0, std::memory_order_relaxed);
  }
}

namespace {
// Whether shared-memory accesses need a look at all (checks or a trace).
bool watch_shared() {
  static const bool on = memcheck_enabled() || shadow_enabled() || tracing();
  return on;
}

// An atomic that only loads (atomic_ref::load) is checked as any atomic,
// and traced as the load a GPU makes of it (ld.relaxed, not an atomic
// operation of L2's): set around its on_access.
thread_local bool tl_atomic_load = false;
// A floating-point add (atomicAdd on a float or double), which a GPU's lanes
// make one by one: set around its on_access by atomic_float_access, traced
// as kind 3.
thread_local bool tl_atomic_float = false;

inline void on_access(const void* p, unsigned size, bool write, uint8_t atomic,
                      void* return_address) {
  // The kind of atomic the hook is for, taken (and cleared) first: below, a
  // lock-step warp's lane may wait while the worker runs the other lanes'
  // hooks, and a fault or a timeout leaves by a jump.
  const bool atomic_load = std::exchange(tl_atomic_load, false);
  const bool float_add = std::exchange(tl_atomic_float, false) && atomic && !atomic_load;
  SimThread* t = tl_thread;
  if (tl_in_runtime) return;  // the runtime's
  if (!t) {
    // Host code: a store into device memory (Thrust's algorithms run on
    // the host and fill device_vector and device_ptr ranges) leaves it
    // written for initcheck, as a kernel or cudaMemcpy would.
    if (write && shadow_enabled() && allocations().in_span(reinterpret_cast<uintptr_t>(p)))
      shadow_host_wrote(p, size);
    return;
  }
  // A launch that timed out stops its threads here, between two of their
  // accesses, rather than from the watchdog's signal inside this hook.
  if (tl_block->launch->timed_out.load(std::memory_order_relaxed))
    stop_thread_at_timeout(reinterpret_cast<uintptr_t>(return_address));
  // What follows is the runtime's: library code it calls (std::string in a
  // report, a vector growing) may be the instrumented copy the program's
  // own code made, whose accesses must not come back here.
  const RuntimeScope runtime;
  const auto address = reinterpret_cast<uintptr_t>(p);
  const auto pc = reinterpret_cast<uintptr_t>(return_address);
  if (tl_pending_writes) resolve_pending_writes();
  // Lock-step warps wait before each shared or global access (not before
  // one of a thread's own variables).
  const bool lockstep = lockstep_enabled();
  if (watch_shared() || lockstep) {
    if (!tl_shared.ready) prepare_shared_ranges();
    const SharedRanges& r = tl_shared;
    const bool dynamic = address - r.dynamic_low < r.dynamic_size;
    if (dynamic || address - r.static_low < r.static_size) {
      if (lockstep) tl_block->run->lockstep_access(pc);
      if (!watch_shared()) return;
      if (size >= 4 && (address & 3) && memcheck_enabled())
        memcheck_problem(kMisaligned, "__shared__", address, size, write, pc,
                         "not a multiple of 4 bytes: a GPU reads and writes 4-, 8- and "
                         "16-byte values only at addresses that are multiples of their size");
      if (memcheck_enabled() || shadow_enabled()) shared_access(address, size, write, atomic, pc);
      if (tracing())
        // From a 128-byte boundary, so that offset / 4 % 32 is the bank.
        record_shared_access_for_trace(
            dynamic, address - ((dynamic ? r.dynamic_low : r.static_low) & ~uintptr_t(127)), size,
            write && !atomic_load, atomic && !atomic_load, float_add, pc);
      return;
    }
    if (address - r.locals_low < r.locals_size) return;  // threadIdx and the like
  }
  const uint64_t epoch = g_allocation_epoch.load(std::memory_order_relaxed);
  Allocation* a = tl_cache_epoch == epoch ? tl_last_allocation : nullptr;
  if (!a || address - a->base >= a->size) {
    a = allocations().in_span(address) ? allocations().find(address) : nullptr;
    if (!a) {
      if (tracing())
        if (const DeviceGlobal* g = device_global_at(address)) {
          // A __device__ or __constant__ variable's: a trace records it.
          if (!g->constant)
            record_device_global_for_trace(*g, address, size, write && !atomic_load,
                                           atomic && !atomic_load, float_add, pc);
          else if (!write)
            record_constant_read_for_trace(address, pc);
        }
      // Not device memory: locals, constants, a red zone next to a buffer
      // (out of bounds, harmless), or what a GPU faults on (no memory, a
      // guard page past a buffer, host memory): the thread stops before
      // the access, which never reaches the simulator's own memory.
      StrayAccess stray;
      const bool harmless = outside_device_memory(address, size, write, pc, &stray);
      // The trace shows the mistake, the access that faults too.
      if (stray.mistake && tracing())
        record_stray_access_for_trace(stray, address, size, write, atomic, pc);
      if (!harmless) stop_thread_at_access(address, write, pc);
      return;
    }
    tl_last_allocation = a;
    tl_cache_epoch = epoch;
  }
  if (lockstep) tl_block->run->lockstep_access(pc);
  ++t->global_accesses;
  // An access that starts inside the buffer and ends past it (an 8- or
  // 16-byte load over its last elements): out of bounds, as compute-sanitizer
  // says, though its first bytes are the buffer's.
  if (address - a->base + size > a->size && memcheck_enabled())
    memcheck_problem(kOutOfBounds, "__global__", address, size, write, pc,
                     std::to_string(size) + " bytes long from " + describe_global(*a, address) +
                         ": its last " + std::to_string(address - a->base + size - a->size) +
                         " bytes lie past the buffer's end");
  if (size >= 4 && (address & 3) && memcheck_enabled())
    memcheck_problem(kMisaligned, "__global__", address, size, write, pc,
                     describe_global(*a, address) +
                         ", not a multiple of 4 bytes: a GPU reads and writes 4-, 8- and "
                         "16-byte values only at addresses that are multiples of their size");
  if (a->shadow) global_access(*a, address, size, write, atomic, pc);
  if (write && a->writers) {
    const uint64_t who = (uint64_t(tl_block->linear) << 32) | (uint64_t(t->linear) + 1);
    const size_t first = (address - a->base) / 4;
    const size_t last = (address - a->base + size - 1) / 4;
    for (size_t w = first; w <= last && w * 4 < a->size; ++w)
      a->writers[w].store(who, std::memory_order_relaxed);
  }
  if (tracing())
    record_access_for_trace(*a, address, size, write && !atomic_load, atomic && !atomic_load,
                            float_add, pc);
}

// A probe (simulator/passes/source_accesses.cpp): a load the source makes
// that the optimized code no longer makes there (moved under a branch, or
// dropped since its value is never used). Only checked: a load outside
// every buffer or shared variable is a memcheck finding at its line, as it
// would be on a GPU's unoptimized build; the thread goes on, since the
// optimized code does not make it, and nothing is counted or traced.
inline void on_source_load(const void* p, unsigned size, void* return_address) {
  constexpr bool write = false;
  if (!tl_thread || tl_in_runtime || !memcheck_enabled()) return;
  stop_if_timed_out(return_address);  // as in on_access
  const RuntimeScope runtime;
  const auto address = reinterpret_cast<uintptr_t>(p);
  if (!tl_shared.ready) prepare_shared_ranges();
  const SharedRanges& r = tl_shared;
  if (address - r.dynamic_low < r.dynamic_size || address - r.static_low < r.static_size) {
    (void)shared_out_of_bounds(address, size, write, reinterpret_cast<uintptr_t>(return_address));
    return;
  }
  if (address - r.locals_low < r.locals_size) return;
  if (allocations().in_span(address))
    if (const Allocation* a = allocations().find(address); a && address - a->base < a->size) return;
  StrayAccess stray;
  (void)outside_device_memory(address, size, write, reinterpret_cast<uintptr_t>(return_address),
                              &stray);
}
}  // namespace

// Called when the allocation table changes: every worker's cached
// allocation may be gone.
void allocations_changed() { g_allocation_epoch.fetch_add(1); }

}  // namespace cudalab::rt

using cudalab::rt::on_access;

#define CUDALAB_ACCESS_CALLBACKS(N, T)                          \
  extern "C" void __sanitizer_cov_load##N(T* p) {               \
    on_access(p, N, false, false, __builtin_return_address(0)); \
  }                                                             \
  extern "C" void __sanitizer_cov_store##N(T* p) {              \
    on_access(p, N, true, false, __builtin_return_address(0));  \
  }
CUDALAB_ACCESS_CALLBACKS(1, uint8_t)
CUDALAB_ACCESS_CALLBACKS(2, uint16_t)
CUDALAB_ACCESS_CALLBACKS(4, uint32_t)
CUDALAB_ACCESS_CALLBACKS(8, uint64_t)
CUDALAB_ACCESS_CALLBACKS(16, __int128)
#undef CUDALAB_ACCESS_CALLBACKS

// A copy or fill of memory in one call (simulator/passes/source_accesses.cpp):
// its span as the accesses a GPU makes for it, `unit` bytes each (1, 2, 4,
// 8 or 16; what is left over at its end, in smaller pieces), from the
// kernel's line.
extern "C" void __cudalab_access_span(const uint8_t* p, uint64_t bytes, uint32_t unit, bool write) {
  using namespace cudalab::rt;
  // Host code's copies matter only where they write device memory.
  if (!tl_thread && !(write && shadow_enabled() && allocations().in_span(uintptr_t(p)))) return;
  void* line = __builtin_return_address(0);
  for (uint64_t at = 0; at < bytes;) {
    while (unit > 1 && at + unit > bytes) unit /= 2;
    on_access(p + at, unit, write, false, line);
    at += unit;
  }
}

#define CUDALAB_SOURCE_LOAD_PROBE(N)                                \
  extern "C" void __cudalab_source_load##N(const void* p) {         \
    cudalab::rt::on_source_load(p, N, __builtin_return_address(0)); \
  }
CUDALAB_SOURCE_LOAD_PROBE(1)
CUDALAB_SOURCE_LOAD_PROBE(2)
CUDALAB_SOURCE_LOAD_PROBE(4)
CUDALAB_SOURCE_LOAD_PROBE(8)
CUDALAB_SOURCE_LOAD_PROBE(16)
#undef CUDALAB_SOURCE_LOAD_PROBE

// Atomics: the instrumented build calls this (their own loads and stores
// are not instrumented), so that they are checked but never race.
namespace cudalab::detail {
void fence_executed() {
  if (cudalab::rt::tl_block) cudalab::rt::tl_block->fenced = true;
}

__attribute__((noinline)) void atomic_access(const void* p, unsigned size) {
  cudalab::rt::on_access(p, size, true, cudalab::rt::kAtomicReads, __builtin_return_address(0));
}
__attribute__((noinline)) void atomic_load_access(const void* p, unsigned size) {
  cudalab::rt::tl_atomic_load = true;
  cudalab::rt::on_access(p, size, true, cudalab::rt::kAtomicReads, __builtin_return_address(0));
  cudalab::rt::tl_atomic_load = false;
}
__attribute__((noinline)) void atomic_float_access(const void* p, unsigned size) {
  cudalab::rt::tl_atomic_float = true;
  cudalab::rt::on_access(p, size, true, cudalab::rt::kAtomicReads, __builtin_return_address(0));
  cudalab::rt::tl_atomic_float = false;
}
__attribute__((noinline)) void atomic_store_access(const void* p, unsigned size) {
  cudalab::rt::on_access(p, size, true, cudalab::rt::kAtomicStore, __builtin_return_address(0));
}
}  // namespace cudalab::detail

// Called by every instrumented object's constructor with its basic blocks'
// guards (-fsanitize-coverage=bb,trace-pc-guard); it is also how the runtime
// knows it is the instrumented build.
extern "C" void __sanitizer_cov_trace_pc_guard_init(uint32_t* first, uint32_t* last) {
  cudalab::rt::g_instrumented.store(true);
  cudalab::rt::number_basic_blocks(first, last);
}

// Every basic block of instrumented code, as it starts: traced runs record
// which ones each thread ran (warp steps, divergent branches).
extern "C" void __sanitizer_cov_trace_pc_guard(uint32_t* guard) {
  using namespace cudalab::rt;
  const BlockContext* b = tl_block;
  if (!b || !b->trace || tl_in_runtime || !tl_thread) return;
  stop_if_timed_out(__builtin_return_address(0));  // as in on_access: a loop without accesses
  const RuntimeScope runtime;                      // as in on_access
  record_basic_block(*guard, reinterpret_cast<uintptr_t>(__builtin_return_address(0)));
}

namespace cudalab::sim {

void track_writers(bool on) {
  using namespace cudalab::rt;
  g_track_writers.store(on);
  if (on)
    for (Allocation* a : allocations().all()) ensure_writer_table(*a);
}

bool find_allocation(const void* address, void** base, size_t* size) {
  const cudalab::rt::Allocation* a =
      cudalab::rt::allocations().find(reinterpret_cast<uintptr_t>(address));
  if (!a) return false;
  *base = reinterpret_cast<void*>(a->base);
  *size = a->size;
  return true;
}

uint32_t allocation_id(const void* address) {
  const cudalab::rt::Allocation* a =
      cudalab::rt::allocations().find(reinterpret_cast<uintptr_t>(address));
  return a ? a->id : 0;
}

bool allocation_source(const void* address, std::string* site, std::string* name) {
  const cudalab::rt::Allocation* a =
      cudalab::rt::allocations().find(reinterpret_cast<uintptr_t>(address));
  if (!a) return false;
  *site = a->site;
  *name = a->name;
  return true;
}

void name_next_allocation(const std::string& site, const std::string& name) {
  cudalab::rt::tl_next_allocation = {site, name};
}

void host_wrote(const void* device_address, size_t bytes) {
  cudalab::rt::shadow_host_wrote(device_address, bytes);
}

Writer last_writer(const void* device_address) {
  using namespace cudalab::rt;
  Writer w;
  Allocation* a = allocations().find(reinterpret_cast<uintptr_t>(device_address));
  if (!a || !a->writers) return w;
  const uint64_t who =
      a->writers[(reinterpret_cast<uintptr_t>(device_address) - a->base) / 4].load();
  if (!who) return w;
  // The writer's launch configuration is the last launch's.
  const LaunchSummary s = last_launch();
  const uint32_t block = uint32_t(who >> 32), thread = uint32_t(who & 0xffffffffu) - 1;
  w.known = true;
  w.block = uint3{block % s.grid.x, (block / s.grid.x) % s.grid.y, block / (s.grid.x * s.grid.y)};
  w.thread =
      uint3{thread % s.block.x, (thread / s.block.x) % s.block.y, thread / (s.block.x * s.block.y)};
  return w;
}

}  // namespace cudalab::sim

namespace {
// Runs after every object's constructors of higher priority, among them the
// instrumented objects' coverage constructors.
__attribute__((constructor)) void switch_to_instrumented_twin(int argc, char** argv, char**) {
  (void)argc;
  if (cudalab::rt::instrumented_build()) return;
  const bool lockstep = cudalab::rt::lockstep_wanted();
  const bool wants_twin = !cudalab::rt::trace_settings().path.empty() ||
                          cudalab::rt::check_settings().requested || lockstep;
  if (!wants_twin) return;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) return;
  exe[n] = 0;
  std::string twin = std::string(exe) + ".instrumented";
  if (access(twin.c_str(), X_OK) == 0) {
    // With the settings (and a graded run's key) the run started with,
    // whatever the program's static initializers did to its environment.
    const std::vector<std::string> env = cudalab::rt::environment_for_twin();
    std::vector<char*> envp;
    for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    execve(twin.c_str(), argv, envp.data());
    std::fprintf(stderr, "cudalab: could not start %s: %s\n", twin.c_str(), std::strerror(errno));
    std::_Exit(1);
  }
  if (lockstep && cudalab::rt::trace_settings().path.empty() &&
      !cudalab::rt::check_settings().requested &&
      cudalab::rt::lockstep_setting() == cudalab::rt::Lockstep::kAuto) {
    // Only warp-synchronous code asked for the twin: run without lock-step.
    std::fprintf(stderr,
                 "cudalab: warp-synchronous code (%s) runs with its warps in lock-step only in "
                 "this program's instrumented build, which is not there (a --fast build); "
                 "without it, lanes that read each other's values without __syncwarp() may "
                 "get other results than on a GPU.\n",
                 cudalab::rt::warp_synchronous_source());
    return;
  }
  std::fprintf(stderr,
               "cudalab: CUDALAB_TRACE, CUDALAB_CHECK and CUDALAB_LOCKSTEP=on need this program's "
               "instrumented build, "
               "%s, which is not there.\ncudalab: rebuild it with cudalab-cc (without --fast), "
               "or unset them.\n",
               twin.c_str());
  std::_Exit(1);
}
}  // namespace
