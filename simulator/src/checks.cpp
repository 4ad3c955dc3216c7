// CUDALAB_CHECK: the checks (memcheck, synccheck), their reports and summary.
// memcheck: out-of-bounds accesses to global memory, found by
// the instrumented build. Every cudaMalloc gets a red zone before and after
// it; an access that lands in one is reported the way compute-sanitizer
// reports it, with the source line, thread, block and where the buffer was
// allocated. Repeated findings at one line are folded into one report.
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "internal.h"

namespace cudalab::rt {
namespace {

struct Checks {
  bool memcheck = false, racecheck = false, synccheck = false, initcheck = false;
  bool any = false;
  Checks() {
    const char* env = std::getenv("CUDALAB_CHECK");
    if (!env || !*env) return;
    std::stringstream ss(env);
    for (std::string tool; std::getline(ss, tool, ',');) {
      const bool all = tool == "all";
      if (all || tool == "memcheck") memcheck = true;
      if (all || tool == "racecheck") racecheck = true;
      if (all || tool == "synccheck") synccheck = true;
      if (all || tool == "initcheck") initcheck = true;
      if (!all && tool != "memcheck" && tool != "racecheck" && tool != "synccheck" &&
          tool != "initcheck") {
        std::fprintf(stderr,
                     "cudalab: CUDALAB_CHECK names '%s', which is not a check: use "
                     "memcheck, racecheck, synccheck, initcheck or all (several with commas)\n",
                     tool.c_str());
        std::exit(2);
      }
    }
    any = memcheck || racecheck || synccheck || initcheck;
  }
};

const Checks& checks() {
  static const Checks c;
  return c;
}

}  // namespace

// Read once, before main (a wrong CUDALAB_CHECK stops the program there).
const CheckFlags g_check_flags = [] {
  const Checks& c = checks();
  return CheckFlags{c.memcheck, c.racecheck, c.synccheck, c.initcheck};
}();

namespace {

// Freed allocations kept under memcheck (their memory is never reused).
struct Freed {
  uintptr_t base;
  size_t size;
  std::string site;
};

std::mutex g_mutex;
std::vector<std::string> g_json_findings;  // every report, as JSON objects
std::vector<Freed> g_freed;
size_t g_freed_bytes = 0;
// The span of all kept freed buffers: most accesses (locals, shared memory)
// fall outside it and need no lock.
std::atomic<uintptr_t> g_freed_low{UINTPTR_MAX}, g_freed_high{0};
constexpr size_t kKeepFreedBytes = size_t(1) << 30;
uint64_t g_errors = 0;

// This launch's findings: counted without a lock in an open-addressing
// table keyed by a hash of the FindingKey; described once under the lock.
struct Slot {
  std::atomic<uint64_t> hash{0};
  std::atomic<uint64_t> count{0};
};
constexpr size_t kSlots = 4096;
Slot g_slots[kSlots];
std::atomic<size_t> g_used_slots{0};  // none: no need to look at the table
std::map<uint64_t, std::pair<FindingKey, FindingDetails>> g_details;

uint64_t hash_of(const FindingKey& k) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  auto mix = [&](uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
  };
  mix(k.tool);
  mix(k.kind);
  mix(k.size);
  mix(k.write);
  mix(k.pc);
  mix(k.pc_other);
  return h ? h : 1;
}

std::string json_string(const std::string& v) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (c == '\n')
      out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20)
      out += ' ';
    else
      out += c;
  }
  return out + "\"";
}

// CUDALAB_CHECK_JSON=FILE: the findings for graders and the visualizer.
void write_json() {
  const char* path = std::getenv("CUDALAB_CHECK_JSON");
  if (!path || !*path) return;
  FILE* f = std::fopen(path, "w");
  if (!f) {
    std::fprintf(stderr, "cudalab: cannot write %s: %s\n", path, std::strerror(errno));
    return;
  }
  std::fprintf(f, "{\"version\": 1, \"errors\": %" PRIu64 ", \"findings\": [", g_errors);
  for (size_t i = 0; i < g_json_findings.size(); ++i)
    std::fprintf(f, "%s\n  %s", i ? "," : "", g_json_findings[i].c_str());
  std::fprintf(f, "\n]}\n");
  std::fclose(f);
}

void print_summary() {
  if (const char* leaks = std::getenv("CUDALAB_CHECK_LEAKS"); leaks && *leaks && *leaks != '0') {
    // Opt-in, as compute-sanitizer's --leak-check full.
    for (const Allocation* a : allocations().all()) {
      std::fprintf(stderr,
                   "========= Leaked %zu bytes at 0x%" PRIxPTR
                   " (allocated at %s and never freed)\n",
                   a->size, a->base, a->site.c_str());
      std::lock_guard lock(g_mutex);
      ++g_errors;
    }
  }
  std::lock_guard lock(g_mutex);
  std::fprintf(stderr, "========= ERROR SUMMARY: %" PRIu64 " error%s\n", g_errors,
               g_errors == 1 ? "" : "s");
  write_json();
  if (g_errors) {
    if (const char* code = std::getenv("CUDALAB_CHECK_EXITCODE"); code && *code) {
      std::fflush(nullptr);  // the program's own output first
      std::_Exit(std::atoi(code));
    }
  }
}

}  // namespace

// synccheck: reported once per barrier line and kind in a launch.
namespace {
struct BarrierFinding {
  std::string kind, what;
  uint3 block{0, 0, 0};
  uint64_t count = 0;
};
std::map<std::pair<uintptr_t, std::string>, BarrierFinding> g_barrier_findings;
}  // namespace

void synccheck_barrier(const char* kind, uintptr_t pc, const std::string& what) {
  std::lock_guard lock(g_mutex);
  BarrierFinding& f = g_barrier_findings[{pc, kind}];
  if (f.count++ == 0) {
    f.kind = kind;
    f.what = what;
    f.block = tl_block->index;
  }
}
bool checks_requested() {
  const char* env = std::getenv("CUDALAB_CHECK");
  return env && *env;
}

void start_checks() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (!checks().any) return;
    std::fprintf(stderr, "========= CUDALAB-SANITIZER (the cudalab simulator's checks)\n");
    std::atexit(print_summary);
  });
}

bool memcheck_keep_freed(const Allocation& a) {
  if (!memcheck_enabled()) return false;
  std::lock_guard lock(g_mutex);
  if (g_freed_bytes + a.size > kKeepFreedBytes) return false;
  g_freed.push_back({a.base, a.size, a.site});
  g_freed_bytes += a.size;
  if (a.base < g_freed_low.load()) g_freed_low.store(a.base);
  if (a.base + a.size > g_freed_high.load()) g_freed_high.store(a.base + a.size);
  return true;
}

bool count_finding(const FindingKey& key) {
  const uint64_t h = hash_of(key);
  for (size_t probe = 0; probe < 64; ++probe) {
    Slot& s = g_slots[(h + probe) % kSlots];
    uint64_t cur = s.hash.load(std::memory_order_acquire);
    if (cur == 0) {
      if (s.hash.compare_exchange_strong(cur, h)) {
        s.count.fetch_add(1, std::memory_order_relaxed);
        g_used_slots.fetch_add(1, std::memory_order_relaxed);
        return true;
      }
    }
    if (cur == h) {
      s.count.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
  }
  return false;  // the table is full: counted nowhere
}

void describe_finding(const FindingKey& key, FindingDetails details) {
  std::lock_guard lock(g_mutex);
  g_details.try_emplace(hash_of(key), key, std::move(details));
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
bool outside_device_memory(uintptr_t address, unsigned size, bool write, uintptr_t pc) {
  const bool checking = memcheck_enabled();
  bool guard = false;
  // A buffer's red zones and guards, and freed buffers, first: they may lie
  // right next to the fiber stack, which kernel_own_memory takes broadly.
  if (const Allocation* a = allocations().in_span(address) ? owner_of(address, &guard) : nullptr) {
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
      std::lock_guard lock(g_mutex);
      for (const Freed& fr : g_freed)
        if (address - fr.base < fr.size)
          where = "inside the " + std::to_string(fr.size) + "-byte buffer allocated at " + fr.site +
                  ", which was already freed (cudaFree)";
    }
    if (!where.empty()) {
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

void access_finding(const FindingKey& key, const char* space, uintptr_t address,
                    const std::string& location) {
  if (!count_finding(key)) return;
  FindingDetails d;
  d.space = space;
  d.address = address;
  d.thread = tl_thread->index;
  d.block = tl_block->index;
  d.location = location;
  describe_finding(key, std::move(d));
}

void memcheck_problem(Problem p, const char* space, uintptr_t address, unsigned size, bool write,
                      uintptr_t pc, const std::string& location) {
  access_finding({kMemcheck, p, uint8_t(size), write, pc, 0}, space, address, location);
}

// ---- runtime calls (memcheck) ---------------------------------------------------------

std::string explain_bad_free(const void* ptr) {
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  {
    std::lock_guard lock(g_mutex);
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

void memcheck_api_error(const char* call, cudaError_t e, const void* caller,
                        const std::string& why) {
  const auto lines = symbolize({reinterpret_cast<uintptr_t>(caller) - 1});
  const std::string where = lines.empty() || lines[0].empty() ? "(unknown line)" : lines[0];
  std::fprintf(stderr,
               "========= Program hit %s (error %d) due to \"%s\" on CUDA API call to %s.\n",
               cudaGetErrorName(e), int(e), cudaGetErrorString(e), call);
  std::fprintf(stderr, "=========     at %s\n=========     %s\n", where.c_str(), why.c_str());
  std::ostringstream j;
  j << "{\"tool\": \"memcheck\", \"kind\": \"api\", \"call\": " << json_string(call)
    << ", \"error\": " << json_string(cudaGetErrorName(e)) << ", \"where\": " << json_string(where)
    << ", \"message\": " << json_string(why) << ", \"count\": 1}";
  std::lock_guard lock(g_mutex);
  ++g_errors;
  g_json_findings.push_back(j.str());
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

namespace {

std::string triple(uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}
std::string json_triple(uint3 v) {
  return "[" + std::to_string(v.x) + ", " + std::to_string(v.y) + ", " + std::to_string(v.z) + "]";
}

const char* tool_name(uint8_t t) {
  return t == kMemcheck ? "memcheck" : t == kRacecheck ? "racecheck" : "initcheck";
}

// compute-sanitizer's names for the two accesses of a hazard, earlier first.
const char* first_access(uint8_t kind) { return kind == 2 ? "Read" : "Write"; }
const char* second_access(uint8_t kind) { return kind == 1 ? "Read" : "Write"; }

void report_finding(const Launch& l, const FindingKey& k, const FindingDetails& d, uint64_t count,
                    const std::string& where, const std::string& where_other) {
  const std::string at =
      std::string(l.site.kernel) + " in " + (where.empty() ? std::string("(unknown line)") : where);
  const std::string at_other =
      std::string(l.site.kernel) + " in " +
      (where_other.empty() ? std::string("(line not known)") : where_other);
  std::string kind, advice;
  if (k.tool == kRacecheck) {
    const bool same_block = d.other_known && d.other_block.x == d.block.x &&
                            d.other_block.y == d.block.y && d.other_block.z == d.block.z;
    std::fprintf(stderr, "========= Error: Race reported between %s access at %s\n",
                 first_access(k.kind), at_other.c_str());
    std::fprintf(stderr, "=========     and %s access at %s [%" PRIu64 " hazard%s]\n",
                 second_access(k.kind), at.c_str(), count, count == 1 ? "" : "s");
    std::fprintf(stderr, "=========     on %s memory: %s\n", d.space, d.location.c_str());
    const std::string earlier =
        d.other_known ? "thread " + triple(d.other_thread) + " in block " + triple(d.other_block)
                      : std::string("another thread");
    const char* verb1 = k.kind == 2 ? "read" : "wrote";
    const char* verb2 = k.kind == 1 ? "read" : "wrote";
    // The later access on an earlier line of the same file: the two are in
    // different iterations of a loop (the next one's write, say, while
    // another thread still reads this one's), and a barrier between the two
    // lines in the code would not be between them in time.
    auto split = [](const std::string& w, std::string* file) {
      const size_t colon = w.rfind(':');
      if (colon == std::string::npos) return 0L;
      *file = w.substr(0, colon);
      return std::strtol(w.c_str() + colon + 1, nullptr, 10);
    };
    std::string file, file_other;
    const long line = split(where, &file), line_other = split(where_other, &file_other);
    const bool across_iterations =
        line > 0 && line_other > line && file == file_other && (!d.other_known || same_block);
    const std::string loop_advice =
        "the two are in different iterations of a loop: one thread's next iteration (line " +
        std::to_string(line) + ") runs while another still works on this one (line " +
        std::to_string(line_other) +
        "). Put a __syncthreads() at the end of the loop body, after line " +
        std::to_string(line_other) + ", so that no thread starts the next iteration early";
    advice = across_iterations ? loop_advice
             : where == where_other && k.kind == 0
                 ? "the same line in two threads: if they must update one place, use an "
                   "atomic (atomicAdd, ...); if not, give each thread its own element"
             : where == where_other && (!d.other_known || same_block)
                 ? "one line both reads what another thread writes and writes: read into "
                   "a variable, then __syncthreads() (or __syncwarp() within a warp), then "
                   "write"
             : !d.other_known || same_block
                 ? "nothing orders the two: put a __syncthreads() between them (or "
                   "__syncwarp() when both are in one warp)"
                 : "threads of different blocks are never ordered within one launch: "
                   "split the work into two launches, or use atomics";
    std::fprintf(stderr, "=========     %s %s it and thread %s in block %s %s it; %s\n",
                 earlier.c_str(), verb1, triple(d.thread).c_str(), triple(d.block).c_str(), verb2,
                 advice.c_str());
    kind = k.kind == 0   ? "write-after-write"
           : k.kind == 1 ? "read-after-write"
                         : "write-after-read";
  } else if (k.tool == kInitcheck) {
    std::fprintf(stderr, "========= Uninitialized %s memory read of size %u bytes\n", d.space,
                 k.size);
    std::fprintf(stderr, "=========     at %s\n", at.c_str());
    std::fprintf(stderr, "=========     by thread %s in block %s\n", triple(d.thread).c_str(),
                 triple(d.block).c_str());
    std::fprintf(stderr, "=========     Address 0x%" PRIxPTR " is %s\n", d.address,
                 d.location.c_str());
    if (count > 1)
      std::fprintf(stderr, "=========     (%" PRIu64 " reads like it at this line)\n", count);
    kind = "uninitialized";
  } else {
    std::fprintf(stderr, "========= Invalid %s %s of size %u bytes\n", d.space,
                 k.write ? "write" : "read", k.size);
    std::fprintf(stderr, "=========     at %s\n", at.c_str());
    std::fprintf(stderr, "=========     by thread %s in block %s\n", triple(d.thread).c_str(),
                 triple(d.block).c_str());
    const char* what = k.kind == kFreed        ? "in memory that was freed"
                       : k.kind == kMisaligned ? "misaligned"
                       : k.kind == kHostMemory ? "host memory, not device memory"
                                               : "out of bounds";
    std::fprintf(stderr, "=========     Address 0x%" PRIxPTR " is %s\n", d.address, what);
    std::fprintf(stderr, "=========     and is %s\n", d.location.c_str());
    if (count > 1)
      std::fprintf(stderr, "=========     (%" PRIu64 " accesses like it at this line)\n", count);
    kind = k.kind == kFreed        ? "use-after-free"
           : k.kind == kMisaligned ? "misaligned"
           : k.kind == kHostMemory ? "host-pointer"
                                   : (k.write ? "write" : "read");
  }
  std::ostringstream j;
  j << "{\"tool\": \"" << tool_name(k.tool) << "\", \"kind\": " << json_string(kind)
    << ", \"space\": " << json_string(d.space) << ", \"size\": " << unsigned(k.size)
    << ", \"kernel\": " << json_string(l.site.kernel) << ", \"where\": " << json_string(where);
  if (k.tool == kRacecheck) j << ", \"where_other\": " << json_string(where_other);
  j << ", \"thread\": " << json_triple(d.thread) << ", \"block\": " << json_triple(d.block);
  if (d.other_known)
    j << ", \"other_thread\": " << json_triple(d.other_thread)
      << ", \"other_block\": " << json_triple(d.other_block);
  j << ", \"message\": " << json_string(d.location);
  if (!advice.empty()) j << ", \"advice\": " << json_string(advice);
  j << ", \"count\": " << count << "}";
  trace_finding(l, j.str());
  std::lock_guard lock(g_mutex);
  g_json_findings.push_back(j.str());
}

}  // namespace

bool memcheck_report_launch(const Launch& l) {
  // This launch's access findings, in a stable order.
  std::vector<std::tuple<FindingKey, FindingDetails, uint64_t>> found;
  std::map<std::pair<uintptr_t, std::string>, BarrierFinding> barriers;
  if (g_used_slots.load() == 0 && g_barrier_findings.empty()) return false;
  {
    std::lock_guard lock(g_mutex);
    g_used_slots.store(0);
    for (Slot& s : g_slots) {
      const uint64_t h = s.hash.load();
      if (!h) continue;
      if (auto it = g_details.find(h); it != g_details.end())
        found.emplace_back(it->second.first, it->second.second, s.count.load());
      s.count.store(0);
      s.hash.store(0);
    }
    g_details.clear();
    barriers.swap(g_barrier_findings);
    g_errors += found.size() + barriers.size();
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  if (!barriers.empty()) {
    std::vector<uintptr_t> pcs;
    for (const auto& [key, f] : barriers) pcs.push_back(key.first ? key.first - 1 : 0);
    const auto lines = symbolize(pcs);
    size_t k = 0;
    for (const auto& [key, f] : barriers) {
      const std::string& where = lines[k++];
      std::fprintf(stderr, "========= Barrier error detected. %s\n", f.what.c_str());
      std::fprintf(stderr, "=========     at %s in %s\n", l.site.kernel,
                   where.empty() ? "(unknown line)" : where.c_str());
      std::fprintf(stderr, "=========     in block (%u,%u,%u)%s\n", f.block.x, f.block.y, f.block.z,
                   f.count > 1
                       ? (" (found " + std::to_string(f.count) + " times in this launch)").c_str()
                       : "");
      std::ostringstream j;
      j << "{\"tool\": \"synccheck\", \"kind\": " << json_string(f.kind)
        << ", \"kernel\": " << json_string(l.site.kernel) << ", \"where\": " << json_string(where)
        << ", \"block\": " << json_triple(f.block) << ", \"message\": " << json_string(f.what)
        << ", \"count\": " << f.count << "}";
      trace_finding(l, j.str());
      std::lock_guard lock(g_mutex);
      g_json_findings.push_back(j.str());
    }
  }
  if (found.empty()) return !barriers.empty();
  std::vector<uintptr_t> pcs;
  for (const auto& [key, d, count] : found) {
    pcs.push_back(key.pc ? key.pc - 1 : 0);
    pcs.push_back(key.pc_other ? key.pc_other - 1 : 0);
  }
  const auto lines = symbolize(pcs);
  // Code addresses of one source line (an unrolled loop, say) fold into one
  // report.
  std::map<std::tuple<uint8_t, uint8_t, uint8_t, bool, std::string, std::string>, size_t> by_line;
  std::vector<uint64_t> counts(found.size());
  std::vector<size_t> order;
  for (size_t i = 0; i < found.size(); ++i) {
    const auto& [key, d, count] = found[i];
    const std::string other = key.pc_other ? lines[2 * i + 1] : "";
    auto [it, fresh] =
        by_line.try_emplace({key.tool, key.kind, key.size, key.write, lines[2 * i], other}, i);
    counts[it->second] += count;
    if (fresh) order.push_back(i);
  }
  {
    std::lock_guard lock(g_mutex);
    g_errors -= found.size() - order.size();
  }
  for (size_t i : order) {
    const auto& [key, d, count] = found[i];
    report_finding(l, key, d, counts[i], lines[2 * i], key.pc_other ? lines[2 * i + 1] : "");
  }
  return true;
}

}  // namespace cudalab::rt
