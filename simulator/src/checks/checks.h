// The checks (CUDALAB_CHECK): which are on, what memcheck says of addresses
// and calls, and findings as threads find them (memcheck.cpp,
// host_memory.cpp, check_reports.cpp, finding.h). Not a public header.
#pragma once

#include <cstdint>
#include <string>

#include "cudalab/driver_types.h"
#include "runtime/settings.h"

namespace cudalab::rt {

struct Allocation;
struct Launch;

// check_settings().flags, read before main: the checks' hot paths test these.
extern const CheckFlags g_check_flags;
inline bool memcheck_enabled() { return g_check_flags.memcheck; }
inline bool synccheck_enabled() { return g_check_flags.synccheck; }
// A barrier finding of the block running now: "partial" (reached by part of
// the block, the others returned), "divergent" (threads wait at different
// barriers), "warp-mask" (a __syncwarp or shuffle mask that leaves out the
// calling lane or names lanes that exited or wait elsewhere).
void synccheck_barrier(const char* kind, uintptr_t pc, const std::string& what);
void start_checks();
// Runtime calls that fail or misuse memory, reported with the caller's line.
void memcheck_api_error(const char* call, cudaError_t e, const void* caller,
                        const std::string& why);
std::string explain_bad_free(const void* ptr);
std::string explain_bad_range(const void* dst, const void* src, size_t bytes);
// Why a copy's direction does not fit its pointers ("" when it does).
std::string direction_problem(const void* dst, const void* src, cudaMemcpyKind kind);
// Under memcheck, freed device memory is kept (never reused) so that a use
// after free can be named; returns whether it kept `a`.
bool memcheck_keep_freed(const Allocation& a);
// Prints this launch's findings; true when there were any.
bool memcheck_report_launch(const Launch& l);

// What checks found, as threads find it (check_reports.cpp). Findings are
// folded by kind and code address(es): each is counted, and the first of a
// kind is described; after the launch each becomes a Finding (finding.h).
struct FindingKey {
  uint8_t tool = 0;  // kMemcheck, kRacecheck, kInitcheck
  uint8_t kind = 0;  // memcheck: Problem; racecheck: Hazard
  uint8_t size = 0;
  bool write = false;
  uintptr_t pc = 0, pc_other = 0;
  auto operator<=>(const FindingKey&) const = default;
};
enum Tool : uint8_t { kMemcheck = 1, kRacecheck = 2, kInitcheck = 3, kSynccheck = 4 };
enum Problem : uint8_t { kOutOfBounds, kFreed, kMisaligned, kHostMemory };
// racecheck: the two accesses of a hazard, earlier then later (kWriteRead: a
// read after another thread's write).
enum Hazard : uint8_t { kWriteWrite, kWriteRead, kReadWrite };
struct FindingDetails {
  const char* space = "__global__";
  uintptr_t address = 0;
  uint3 thread{0, 0, 0}, block{0, 0, 0};
  bool other_known = false;  // racecheck: the other thread
  uint3 other_thread{0, 0, 0}, other_block{0, 0, 0};
  std::string location;  // where the address is, in words
};
// Counts one finding; true when it is the first of its kind in this launch
// (the caller then describes it).
bool count_finding(const FindingKey& key);
void describe_finding(const FindingKey& key, FindingDetails details);
// A finding about the access the running thread makes now.
void access_finding(const FindingKey& key, const char* space, uintptr_t address,
                    const std::string& location);
void memcheck_problem(Problem p, const char* space, uintptr_t address, unsigned size, bool write,
                      uintptr_t pc, const std::string& location);
// "the 4000-byte buffer `d_a` allocated at main.cu:31"
std::string buffer_words(const Allocation& a);
// "byte 4 of the 4000-byte buffer `d_a` allocated at main.cu:31"
std::string describe_global(const Allocation& a, uintptr_t address);

// "" when a kernel may use `address` (not device memory), or what host
// memory it is; *unmapped when no memory is there at all.
std::string host_memory_kind(uintptr_t address, bool* unmapped);
// A kernel's own memory outside device buffers: its locals, its arguments,
// its worker's thread-locals (cheap checks first, for every such access).
bool kernel_own_memory(uintptr_t address);
// What outside_device_memory found of an access, for the trace: `mistake`
// when the access is one (out of bounds, a freed buffer, host memory, no
// memory at all), and the buffer it missed when one is near.
struct StrayAccess {
  bool mistake = false;
  const Allocation* buffer = nullptr;
};
// A kernel's access that hit no live device buffer and no shared memory.
// memcheck (when on) reports what is wrong with it; false when a GPU would
// fault on it (the caller stops the thread before the access).
bool outside_device_memory(uintptr_t address, unsigned size, bool write, uintptr_t pc,
                           StrayAccess* stray);
// This thread's thread-local blocks (every module's) and its control block.
void thread_local_span(uintptr_t* low, uintptr_t* high);

}  // namespace cudalab::rt
