// CUDALAB_CHECK=memcheck: out-of-bounds accesses to global memory, found by
// the instrumented build. Every cudaMalloc gets a red zone before and after
// it; an access that lands in one is reported the way compute-sanitizer
// reports it, with the source line, thread, block and where the buffer was
// allocated. Repeated findings at one line are folded into one report.
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <string>

#include "internal.h"

namespace cudalab::rt {
namespace {

struct Checks {
  bool memcheck = false;
  bool any = false;
  Checks() {
    const char* env = std::getenv("CUDALAB_CHECK");
    if (!env || !*env) return;
    std::stringstream ss(env);
    for (std::string tool; std::getline(ss, tool, ',');) {
      if (tool == "memcheck" || tool == "all") {
        memcheck = true;
      } else if (tool == "racecheck" || tool == "synccheck" || tool == "initcheck") {
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
    any = memcheck;
  }
};

const Checks& checks() {
  static const Checks c;
  return c;
}

struct Finding {
  uintptr_t pc = 0;
  bool write = false;
  unsigned size = 0;
  uintptr_t address = 0;
  uint3 thread{0, 0, 0}, block{0, 0, 0};
  const Allocation* nearest = nullptr;
  uint64_t count = 0;
};

std::mutex g_mutex;
std::map<std::pair<uintptr_t, bool>, Finding> g_findings;  // this launch's, by line and kind
uint64_t g_errors = 0;

void print_summary() {
  std::lock_guard lock(g_mutex);
  std::fprintf(stderr, "========= ERROR SUMMARY: %" PRIu64 " error%s\n", g_errors,
               g_errors == 1 ? "" : "s");
  if (g_errors) {
    if (const char* code = std::getenv("CUDALAB_CHECK_EXITCODE"); code && *code) {
      std::fflush(nullptr);  // the program's own output first
      std::_Exit(std::atoi(code));
    }
  }
}

}  // namespace

bool memcheck_enabled() { return checks().memcheck; }
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

void memcheck_access(uintptr_t address, unsigned size, bool write, uintptr_t pc) {
  const Allocation* nearest = allocations().nearest(address, kRedzone);
  if (!nearest) return;  // not near device memory: locals, shared memory, host memory
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
  }
}

bool memcheck_report_launch(const Launch& l) {
  std::map<std::pair<uintptr_t, bool>, Finding> findings;
  {
    std::lock_guard lock(g_mutex);
    findings.swap(g_findings);
    g_errors += findings.size();
  }
  if (findings.empty()) return false;
  std::vector<uintptr_t> pcs;
  for (const auto& [key, f] : findings) pcs.push_back(f.pc ? f.pc - 1 : 0);
  const auto lines = symbolize(pcs);
  size_t k = 0;
  for (const auto& [key, f] : findings) {
    const std::string& where = lines[k++];
    const Allocation& a = *f.nearest;
    std::fprintf(stderr, "========= Invalid __global__ %s of size %u bytes\n",
                 f.write ? "write" : "read", f.size);
    std::fprintf(stderr, "=========     at %s in %s\n", l.site.kernel,
                 where.empty() ? "(unknown line)" : where.c_str());
    std::fprintf(stderr, "=========     by thread (%u,%u,%u) in block (%u,%u,%u)\n", f.thread.x,
                 f.thread.y, f.thread.z, f.block.x, f.block.y, f.block.z);
    std::fprintf(stderr, "=========     Address 0x%" PRIxPTR " is out of bounds\n", f.address);
    if (f.address >= a.base + a.size)
      std::fprintf(stderr,
                   "=========     and is %zu bytes after the last byte of the %zu-byte buffer "
                   "allocated at %s\n",
                   size_t(f.address - (a.base + a.size)) + 1, a.size, a.site.c_str());
    else
      std::fprintf(stderr,
                   "=========     and is %zu bytes before the start of the %zu-byte buffer "
                   "allocated at %s\n",
                   size_t(a.base - f.address), a.size, a.site.c_str());
    if (f.count > 1)
      std::fprintf(stderr, "=========     (%" PRIu64 " accesses like it at this line)\n", f.count);
  }
  return true;
}

}  // namespace cudalab::rt
