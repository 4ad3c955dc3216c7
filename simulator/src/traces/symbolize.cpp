// Code addresses to source lines ("file.cu:12"), through llvm-symbolizer (or
// binutils' addr2line) reading this program's own debug line tables. Used after a launch (fault
// reports) and at the end of a traced run, never on a hot path.
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cudalab/support/process.h"
#include "grid/grid.h"
#include "runtime/modules.h"
#include "traces/symbols.h"

namespace cudalab::rt {

// Where the main program is loaded. dladdr names the main program by the
// argv[0] it was started with, which is not its file when a plain build has
// handed over to its instrumented twin; the load address tells for sure.
uintptr_t main_program_base() {
  uintptr_t base = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        *static_cast<uintptr_t*>(out) = info->dlpi_addr;
        return 1;  // the first object is the main program
      },
      &base);
  return base;
}

std::string main_program_file() {
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  return n > 0 ? std::string(exe, size_t(n)) : std::string();
}

namespace {
std::vector<std::string> symbolize_once(const std::vector<uintptr_t>& pcs);
}  // namespace

namespace {
std::vector<std::string> symbolize_lines(const std::vector<uintptr_t>& pcs);

// The main program's lines already found: a program whose launches repeat
// a finding (a race in a kernel launched in a loop) asks for the same
// addresses after each launch, and each question starts llvm-symbolizer.
// Only the main program's: a module loaded at run time may be unloaded
// and its addresses reused. Never destroyed (a traced run symbolizes in an
// exit handler, after the statics made later are gone), and only used when
// its lock is free (a fault report symbolizes from a signal handler).
struct KnownLines {
  std::mutex mutex;
  std::map<uintptr_t, std::string> lines;
};
KnownLines& known_lines() {
  static auto* known = new KnownLines;
  return *known;
}
}  // namespace

std::vector<std::string> symbolize(const std::vector<uintptr_t>& pcs) {
  KnownLines& known = known_lines();
  std::unique_lock lock(known.mutex, std::try_to_lock);
  if (!lock.owns_lock()) return symbolize_lines(pcs);
  std::vector<std::string> out(pcs.size());
  std::vector<uintptr_t> asked;
  std::vector<size_t> whose;
  const uintptr_t base = main_program_base();
  std::vector<bool> in_main(pcs.size(), false);
  for (size_t i = 0; i < pcs.size(); ++i) {
    Dl_info info{};
    in_main[i] = pcs[i] && dladdr(reinterpret_cast<void*>(pcs[i]), &info) &&
                 reinterpret_cast<uintptr_t>(info.dli_fbase) == base;
    if (auto it = known.lines.find(pcs[i]); in_main[i] && it != known.lines.end()) {
      out[i] = it->second;
      continue;
    }
    asked.push_back(pcs[i]);
    whose.push_back(i);
  }
  lock.unlock();
  if (asked.empty()) return out;
  const std::vector<std::string> found = symbolize_lines(asked);
  for (size_t k = 0; k < found.size(); ++k) out[whose[k]] = found[k];
  if (lock.try_lock())
    for (size_t k = 0; k < found.size(); ++k)
      if (in_main[whose[k]]) known.lines[asked[k]] = found[k];
  return out;
}

namespace {
// Code the compiler made for no line of its own (line 0: one store made of
// two lines' stores, say) is said at the line of the code just before it.
// A report's few addresses ask for those earlier bytes at once, in the same
// process; a trace's many, only for the addresses that had no line.
std::vector<std::string> symbolize_lines(const std::vector<uintptr_t>& pcs) {
  constexpr long kSteps[] = {-2, -4, -8, -16, -32};
  const bool at_once = pcs.size() <= 32;
  std::vector<uintptr_t> asked = pcs;
  if (at_once)
    for (uintptr_t pc : pcs)
      for (const long step : kSteps) asked.push_back(pc > 64 ? pc + uintptr_t(step) : 0);
  std::vector<std::string> out = symbolize_once(asked);
  std::vector<uintptr_t> earlier;
  std::vector<size_t> whose;
  for (size_t i = 0; i < pcs.size(); ++i)
    if (out[i].empty() && pcs[i] > 64)
      for (size_t k = 0; k < std::size(kSteps); ++k) {
        if (at_once) {
          if (out[i].empty()) out[i] = out[pcs.size() + i * std::size(kSteps) + k];
        } else {
          earlier.push_back(pcs[i] + uintptr_t(kSteps[k]));
          whose.push_back(i);
        }
      }
  out.resize(pcs.size());
  if (earlier.empty()) return out;
  const std::vector<std::string> found = symbolize_once(earlier);
  for (size_t k = 0; k < found.size(); ++k)
    if (out[whose[k]].empty() && !found[k].empty()) out[whose[k]] = found[k];
  return out;
}

std::vector<std::string> symbolize_once(const std::vector<uintptr_t>& pcs) {
  std::vector<std::string> out(pcs.size());
  // Group by the object each address belongs to (the program or a library).
  std::map<std::string, std::vector<size_t>> by_object;
  std::vector<uintptr_t> offsets(pcs.size());
  for (size_t i = 0; i < pcs.size(); ++i) {
    Dl_info info{};
    if (!pcs[i] || !dladdr(reinterpret_cast<void*>(pcs[i]), &info) || !info.dli_fname) continue;
    offsets[i] = pcs[i] - reinterpret_cast<uintptr_t>(info.dli_fbase);
    std::string object = info.dli_fname;
    if (reinterpret_cast<uintptr_t>(info.dli_fbase) == main_program_base()) {
      if (const std::string exe = main_program_file(); !exe.empty()) object = exe;
    }
    by_object[object].push_back(i);
  }
  // llvm-symbolizer reads clang's DWARF 5 line tables right; binutils'
  // addr2line (2.40) can name the wrong file for them, so it is the fallback.
  // llvm-symbolizer takes each address with its object ("FILE" 0xOFFSET):
  // one process for them all, up to 64 KiB of arguments (each start costs a
  // tenth of a second or more on a busy machine, and a report waits for
  // them); addr2line, one per object. A name that needs both kinds of
  // quotes gets a process of its own too.
  static const bool have_llvm = !support::find_program("llvm-symbolizer").empty();
  struct Run {
    std::vector<std::string> argv;
    std::vector<size_t> indices;
    size_t bytes = 0;
    bool own = false;  // one object's (addr2line, or llvm-symbolizer --obj=)
  };
  std::vector<Run> runs;
  for (const auto& [object, indices] : by_object) {
    const char quote = object.find('"') == std::string::npos    ? '"'
                       : object.find('\'') == std::string::npos ? '\''
                                                                : 0;
    const bool own = !have_llvm || !quote;
    for (size_t i : indices) {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "0x%lx", static_cast<unsigned long>(offsets[i]));
      const std::string arg = own ? std::string(buf) : quote + object + quote + " " + buf;
      if (runs.empty() || runs.back().bytes + arg.size() > (64u << 10) ||
          (own && i == indices.front()) || runs.back().own != own) {
        Run r;
        r.own = own;
        r.argv = have_llvm ? std::vector<std::string>{"llvm-symbolizer", "--functions=none",
                                                      "--output-style=LLVM"}
                           : std::vector<std::string>{"addr2line", "-e", object};
        if (have_llvm && own) r.argv.push_back("--obj=" + object);
        runs.push_back(std::move(r));
      }
      runs.back().argv.push_back(arg);
      runs.back().indices.push_back(i);
      runs.back().bytes += arg.size() + 1;
    }
  }
  for (const Run& run : runs) {
    const std::vector<size_t>& indices = run.indices;
    support::OutputOf symbolizer(run.argv);
    FILE* p = symbolizer.file();
    if (!p) continue;
    char line[4096];
    size_t k = 0;
    // llvm-symbolizer lists the inlined frames of an address innermost
    // first, then a blank line. The student's line is the innermost frame
    // that is not in the simulator's own headers.
    std::string chosen;
    bool chosen_is_ours = true;
    while (k < indices.size() && std::fgets(line, sizeof(line), p)) {
      std::string s(line);
      while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
      if (have_llvm) {
        if (!s.empty()) {
          if (auto c = s.rfind(':'); c != std::string::npos) s.resize(c);  // drop the column
          // The simulator's headers, and the system's (an inlined
          // std::vector::operator[]): the student's line is the caller's.
          const bool ours = s.rfind(CUDALAB_SIM_INCLUDE_DIR, 0) == 0 || s.rfind("/usr/", 0) == 0;
          if (chosen.empty() || (chosen_is_ours && !ours)) {
            chosen = s;
            chosen_is_ours = ours;
          }
          continue;
        }
        s = chosen;
        chosen.clear();
        chosen_is_ours = true;
      } else if (auto d = s.find(" (discriminator"); d != std::string::npos) {
        s.resize(d);
      }
      // A kernel compiled while the program ran (NVRTC) is said at its
      // program's name (nvrtc.cpp compiles it in this made-up folder).
      if (s.rfind(kRuntimeCompileFolder, 0) == 0) s.erase(0, std::strlen(kRuntimeCompileFolder));
      if (s.rfind("??", 0) == 0 || s.size() < 3 || s.substr(s.size() - 2) == ":0" ||
          s.substr(s.size() - 2) == ":?")
        s.clear();
      out[indices[k++]] = s;
    }
  }
  return out;
}
}  // namespace

namespace {
// Lines of the simulator (its headers and sources) and of the system's
// headers and libraries: never the student's.
bool not_the_students(const std::string& line) {
  return line.rfind(CUDALAB_SIM_INCLUDE_DIR, 0) == 0 ||
         line.rfind(CUDALAB_SIM_SOURCE_DIR, 0) == 0 || line.rfind("/usr/", 0) == 0 ||
         line.rfind("./", 0) == 0;  // the C library's own sources
}
}  // namespace

std::string student_line(const FaultInfo& f) {
  std::vector<uintptr_t> pcs = {f.pc};
  // A return address is just past its call: the call's line is one byte back.
  for (int i = 0; i < f.caller_count; ++i)
    if (f.callers[i]) pcs.push_back(f.callers[i] - 1);
  const auto lines = symbolize(pcs);
  for (const auto& line : lines)
    if (!line.empty() && !not_the_students(line)) return line;
  return "";  // never a line of the simulator's own
}

bool same_source_line(uintptr_t a, uintptr_t b) {
  static std::mutex mutex;
  static std::map<uintptr_t, std::string> lines;
  std::lock_guard lock(mutex);
  std::vector<uintptr_t> missing;
  for (uintptr_t pc : {a, b})
    if (!lines.count(pc)) missing.push_back(pc);
  if (!missing.empty()) {
    std::vector<uintptr_t> calls;
    for (uintptr_t pc : missing) calls.push_back(pc - 1);
    const auto found = symbolize(calls);
    for (size_t i = 0; i < missing.size(); ++i) lines[missing[i]] = found[i];
  }
  return !lines[a].empty() && lines[a] == lines[b];
}

// Line `line` of the program's source `file`, as the compiler was given it,
// or beside the program, or here ("" if none of them can be read). Each
// file is read once, into a cache never destroyed (a traced run reads
// lines in an exit handler, after the statics made later are gone).
std::string source_line(const std::string& file, long line) {
  static auto* mutex = new std::mutex;
  static auto* sources = new std::map<std::string, std::vector<std::string>>;
  if (line <= 0) return "";
  std::lock_guard lock(*mutex);
  auto [it, fresh] = sources->try_emplace(file);
  if (fresh) {
    const std::string base = std::filesystem::path(file).filename().string();
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    for (const std::string& candidate :
         {file, ec ? base : (exe.parent_path() / base).string(), base}) {
      std::ifstream in(candidate);
      if (!in) continue;
      for (std::string l; std::getline(in, l);) it->second.push_back(l);
      break;
    }
  }
  return size_t(line) > it->second.size() ? "" : it->second[size_t(line) - 1];
}

}  // namespace cudalab::rt
