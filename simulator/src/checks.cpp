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
  bool memcheck = false;
  bool synccheck = false;
  bool any = false;
  Checks() {
    const char* env = std::getenv("CUDALAB_CHECK");
    if (!env || !*env) return;
    std::stringstream ss(env);
    for (std::string tool; std::getline(ss, tool, ',');) {
      if (tool == "memcheck" || tool == "all") memcheck = true;
      if (tool == "synccheck" || tool == "all") synccheck = true;
      if (tool == "memcheck" || tool == "synccheck" || tool == "all") {
        continue;
      } else if (tool == "racecheck" || tool == "initcheck") {
        std::fprintf(stderr,
                     "cudalab: %s is not available in this version of the simulator; "
                     "only memcheck runs\n",
                     tool.c_str());
      } else {
        std::fprintf(stderr,
                     "cudalab: CUDALAB_CHECK names '%s', which is not a check: use "
                     "memcheck, racecheck, synccheck, initcheck or all\n",
                     tool.c_str());
        std::exit(2);
      }
    }
    any = memcheck || synccheck;
  }
};

const Checks& checks() {
  static const Checks c;
  return c;
}

// Freed allocations kept under memcheck (their memory is never reused).
struct Freed {
  uintptr_t base;
  size_t size;
  std::string site;
};

struct Finding {
  uintptr_t pc = 0;
  std::string what;  // for findings that are not near a live buffer
  bool write = false;
  unsigned size = 0;
  uintptr_t address = 0;
  uint3 thread{0, 0, 0}, block{0, 0, 0};
  const Allocation* nearest = nullptr;
  uint64_t count = 0;
};

std::mutex g_mutex;
std::vector<std::string> g_json_findings;  // every report, as JSON objects
std::vector<Freed> g_freed;
size_t g_freed_bytes = 0;
// The span of all kept freed buffers: most accesses (locals, shared memory)
// fall outside it and need no lock.
std::atomic<uintptr_t> g_freed_low{UINTPTR_MAX}, g_freed_high{0};
constexpr size_t kKeepFreedBytes = size_t(1) << 30;
std::map<std::pair<uintptr_t, bool>, Finding> g_findings;  // this launch's, by line and kind
uint64_t g_errors = 0;

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

bool memcheck_enabled() { return checks().memcheck; }
bool synccheck_enabled() { return checks().synccheck; }

// synccheck: reported once per barrier line and kind in a launch.
namespace {
struct BarrierFinding {
  std::string what;
  uint3 block{0, 0, 0};
  uint64_t count = 0;
};
std::map<std::pair<uintptr_t, int>, BarrierFinding> g_barrier_findings;
}  // namespace

void synccheck_barrier(int kind, uintptr_t pc, const std::string& what) {
  std::lock_guard lock(g_mutex);
  BarrierFinding& f = g_barrier_findings[{pc, kind}];
  if (f.count++ == 0) {
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

void memcheck_access(uintptr_t address, unsigned size, bool write, uintptr_t pc) {
  const Allocation* nearest =
      allocations().in_span(address) ? allocations().nearest(address, kRedzone) : nullptr;
  std::string what;
  if (!nearest) {
    // Past the end of this block's dynamic shared memory?
    const uintptr_t shared = dynamic_shared_base();
    const size_t shmem = tl_block->launch->shmem;
    if (shared && address >= shared + shmem && address < shared + 228 * 1024) {
      what = "__shared__:" + std::to_string(address - (shared + shmem) + 1) +
             " bytes after the "
             "last byte of the block's " +
             std::to_string(shmem) +
             " bytes of dynamic shared memory (the launch's third <<<>>> argument)";
    } else if (address >= g_freed_low.load(std::memory_order_relaxed) &&
               address < g_freed_high.load(std::memory_order_relaxed)) {
      std::lock_guard lock(g_mutex);
      for (const Freed& fr : g_freed)
        if (address - fr.base < fr.size)
          what = "__global__:inside the " + std::to_string(fr.size) + "-byte buffer allocated at " +
                 fr.site + ", which was already freed (cudaFree)";
    }
    if (what.empty()) return;  // locals, static shared memory, host memory
  }
  std::lock_guard lock(g_mutex);
  Finding& f = g_findings[{pc, write}];
  if (f.count++ == 0) {
    f.pc = pc;
    f.write = write;
    f.size = size;
    f.address = address;
    f.thread = tl_thread->index;
    f.block = tl_block->index;
    f.nearest = nearest;
    f.what = what;
  }
}

bool memcheck_report_launch(const Launch& l) {
  std::map<std::pair<uintptr_t, bool>, Finding> findings;
  std::map<std::pair<uintptr_t, int>, BarrierFinding> barriers;
  {
    std::lock_guard lock(g_mutex);
    findings.swap(g_findings);
    barriers.swap(g_barrier_findings);
    g_errors += findings.size() + barriers.size();
  }
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
      std::fprintf(
          stderr, "=========     in block (%u,%u,%u)%s\n", f.block.x, f.block.y, f.block.z,
          f.count > 1 ? (" and " + std::to_string(f.count - 1) + " more blocks").c_str() : "");
      std::ostringstream j;
      j << "{\"tool\": \"synccheck\", \"kind\": "
        << json_string(key.second ? "divergent" : "partial")
        << ", \"kernel\": " << json_string(l.site.kernel) << ", \"where\": " << json_string(where)
        << ", \"block\": [" << f.block.x << ", " << f.block.y << ", " << f.block.z
        << "], \"message\": " << json_string(f.what) << ", \"count\": " << f.count << "}";
      std::lock_guard lock(g_mutex);
      g_json_findings.push_back(j.str());
    }
  }
  if (findings.empty()) return !barriers.empty();
  std::vector<uintptr_t> pcs;
  for (const auto& [key, f] : findings) pcs.push_back(f.pc ? f.pc - 1 : 0);
  const auto lines = symbolize(pcs);
  size_t k = 0;
  for (const auto& [key, f] : findings) {
    const std::string& where = lines[k++];
    const std::string space = f.nearest ? "__global__" : f.what.substr(0, f.what.find(':'));
    std::fprintf(stderr, "========= Invalid %s %s of size %u bytes\n", space.c_str(),
                 f.write ? "write" : "read", f.size);
    std::fprintf(stderr, "=========     at %s in %s\n", l.site.kernel,
                 where.empty() ? "(unknown line)" : where.c_str());
    std::fprintf(stderr, "=========     by thread (%u,%u,%u) in block (%u,%u,%u)\n", f.thread.x,
                 f.thread.y, f.thread.z, f.block.x, f.block.y, f.block.z);
    const bool freed = f.what.find("already freed") != std::string::npos;
    std::fprintf(stderr, "=========     Address 0x%" PRIxPTR " is %s\n", f.address,
                 freed ? "in memory that was freed" : "out of bounds");
    if (!f.nearest) {
      std::fprintf(stderr, "=========     and is %s\n",
                   f.what.substr(f.what.find(':') + 1).c_str());
    } else if (const Allocation& a = *f.nearest; f.address >= a.base + a.size)
      std::fprintf(stderr,
                   "=========     and is %zu bytes after the last byte of the %zu-byte buffer "
                   "allocated at %s\n",
                   size_t(f.address - (a.base + a.size)) + 1, a.size, a.site.c_str());
    else
      std::fprintf(stderr,
                   "=========     and is %zu bytes before the start of the %zu-byte buffer "
                   "allocated at %s\n",
                   size_t(f.nearest->base - f.address), f.nearest->size, f.nearest->site.c_str());
    if (f.count > 1)
      std::fprintf(stderr, "=========     (%" PRIu64 " accesses like it at this line)\n", f.count);
    std::ostringstream j;
    j << "{\"tool\": \"memcheck\", \"kind\": " << json_string(f.write ? "write" : "read")
      << ", \"space\": " << json_string(space) << ", \"size\": " << f.size
      << ", \"kernel\": " << json_string(l.site.kernel) << ", \"where\": " << json_string(where)
      << ", \"thread\": [" << f.thread.x << ", " << f.thread.y << ", " << f.thread.z
      << "], \"block\": [" << f.block.x << ", " << f.block.y << ", " << f.block.z
      << "], \"buffer\": "
      << json_string(f.nearest ? f.nearest->site : f.what.substr(f.what.find(':') + 1))
      << ", \"count\": " << f.count << "}";
    std::lock_guard lock(g_mutex);
    g_json_findings.push_back(j.str());
  }
  return true;
}

}  // namespace cudalab::rt
