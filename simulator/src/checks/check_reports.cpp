// What the checks found in a run: findings counted as the threads make them
// (one lock-free table per launch, folded by kind and code address),
// printed after each launch with like findings of one source line folded
// into one, written to the trace; at exit the summary, the leaks
// (CUDALAB_CHECK_LEAKS), the JSON report (CUDALAB_CHECK_JSON) and the exit
// status (CUDALAB_CHECK_EXITCODE). How a finding reads is finding.cpp's.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "checks/checks.h"
#include "checks/finding.h"
#include "grid/grid.h"
#include "runtime/allocations.h"
#include "traces/symbols.h"
#include "traces/trace.h"

namespace cudalab::rt {

// Read once, before main (a wrong CUDALAB_CHECK stops the program there).
const CheckFlags g_check_flags = check_settings().flags;

namespace {

std::mutex g_mutex;
std::vector<std::string> g_json_findings;  // every report, as JSON objects
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

// CUDALAB_CHECK_JSON=FILE: the findings for graders and the visualizer.
void write_json() {
  const std::string& path = check_settings().json_path;
  if (path.empty()) return;
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "cudalab: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
    return;
  }
  std::string text = "{\"version\": 1, \"errors\": " + std::to_string(g_errors) + ", ";
  if (report_key()) {
    // A graded run: which checks ran, and (last) the signature of all that
    // comes before it, which only this run's key gives.
    text += "\"checks\": " + json_string(check_settings().text) + ", ";
  }
  text += "\"findings\": [";
  for (size_t i = 0; i < g_json_findings.size(); ++i)
    text += (i ? ",\n  " : "\n  ") + g_json_findings[i];
  text += "\n]";
  if (const trace::ReportKey* key = report_key())
    text += ", \"signature\": \"" + trace::report_mac(*key, text) + "\"";
  text += "}\n";
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
}

void print_summary() {
  if (check_settings().leaks) {
    // Opt-in, as compute-sanitizer's --leak-check full.
    for (const Allocation* a : allocations().all()) {
      Finding f;
      f.subject = Finding::Subject::kLeak;
      f.kind = "leak";
      f.size = a->size;
      f.address = a->base;
      f.where = a->site;
      // Counted and printed; the JSON report has never listed leaks (its
      // findings are what graders judge a run by).
      std::fputs(finding_text(f).c_str(), stderr);
      std::lock_guard lock(g_mutex);
      ++g_errors;
    }
  }
  std::lock_guard lock(g_mutex);
  std::fprintf(stderr, "========= ERROR SUMMARY: %" PRIu64 " error%s\n", g_errors,
               g_errors == 1 ? "" : "s");
  write_json();
  if (g_errors) {
    if (const std::optional<int> code = check_settings().exit_code) {
      std::fflush(nullptr);  // the program's own output first
      std::_Exit(*code);
    }
  }
}

// synccheck: reported once per barrier line and kind in a launch (the
// kernel and line are filled in then).
std::map<std::pair<uintptr_t, std::string>, Finding> g_barrier_findings;

// racecheck: whether both accesses of a race are known to be one block's.
bool one_block(bool other_known, const uint3& block, const uint3& other) {
  return other_known && other.x == block.x && other.y == block.y && other.z == block.z;
}

// A line of source without its // comment.
std::string code_of(std::string line) {
  if (const size_t comment = line.find("//"); comment != std::string::npos) line.erase(comment);
  return line;
}

// An array element, its array's name captured: name[...], one level of
// brackets inside (bins[in[i] % 16]).
const std::string kElement = R"(([A-Za-z_][A-Za-z0-9_]*)\s*\[(?:[^\[\]]|\[[^\[\]]*\])*\])";

// An element of an array of one or more dimensions (tile[ty][tx]), its
// array's name captured.
const std::string kElements = kElement + R"((?:\s*\[(?:[^\[\]]|\[[^\[\]]*\])*\])*)";

// A line's statement without the heads that govern it on the same line:
// `if (...)`, `else`, `for (...)`, `while (...)` (if (c < w) out[i] = v;
// stores into out as out[i] = v; does).
std::string statement_of(const std::string& line) {
  const std::string text = code_of(line);
  auto word_at = [&](size_t i, const char* w) {
    const size_t n = std::strlen(w);
    return text.compare(i, n, w) == 0 &&
           (i + n == text.size() ||
            !(std::isalnum(static_cast<unsigned char>(text[i + n])) || text[i + n] == '_'));
  };
  size_t i = text.find_first_not_of(" \t{");
  while (i != std::string::npos) {
    if (word_at(i, "else")) {
      i = text.find_first_not_of(" \t{", i + 4);
      continue;
    }
    if (!word_at(i, "if") && !word_at(i, "for") && !word_at(i, "while")) break;
    const size_t open = text.find_first_not_of(" \t", i + (text[i] == 'i'   ? 2
                                                           : text[i] == 'f' ? 3
                                                                            : 5));
    if (open == std::string::npos || text[open] != '(') return "";
    int depth = 0;
    size_t k = open;
    for (; k < text.size(); ++k) {
      if (text[k] == '(') ++depth;
      if (text[k] == ')' && --depth == 0) break;
    }
    if (k >= text.size()) return "";  // the condition goes on to the next line
    i = text.find_first_not_of(" \t{", k + 1);
  }
  return i == std::string::npos ? "" : text.substr(i);
}

// Whether `text` indexes array `name` (name[...]).
bool indexes(const std::string& text, const std::string& name) {
  return std::regex_search(text, std::regex("(^|[^A-Za-z0-9_])" + name + "\\s*\\["));
}

// The innermost loop of `file` around lines first..last (a line with
// `for`, `while` or `do` at or above `first` whose braces close at or after
// `last`), as far as the source text shows: its first and last lines, or
// false when there is none.
bool loop_around(const std::string& file, long first, long last, long* begin, long* end) {
  // A loop's head: for (...), while (...) or do, outside a // comment (the
  // word "for" in a comment above the kernel made the whole kernel a loop).
  static const std::regex loop(R"((^|[^A-Za-z0-9_])(for\s*\(|while\s*\(|do([^A-Za-z0-9_]|$)))");
  for (long k = first; k >= std::max(1L, first - 80); --k) {
    const std::string head = code_of(source_line(file, k));
    if (!std::regex_search(head, loop)) continue;
    int depth = 0;
    bool opened = false;
    for (long m = k; m <= k + 600; ++m) {
      const std::string text = m == k ? head : source_line(file, m);
      for (char c : text) {
        if (c == '{') {
          ++depth;
          opened = true;
        } else if (c == '}') {
          --depth;
        }
      }
      if (opened && depth <= 0) {
        if (m >= last) {
          *begin = k;
          *end = m;
          return true;
        }
        break;  // this loop ends before the later line: look further up
      }
      if (!opened && m > k + 1) break;  // a loop of one statement
    }
  }
  return false;
}

// Whether a line updates one element in place (bins[b]++, ++bins[b],
// count[k] += v) without reading another element of the same array: many
// threads reading, changing and writing back one place, which an atomic
// does in one step. (partial[tid] += partial[tid + s] reads another
// thread's element: a barrier's business, not an atomic's.)
bool updates_one_element(const std::string& line) {
  const std::string text = code_of(line);
  if (text.find("atomic") != std::string::npos) return false;
  static const std::regex after(kElement + R"(\s*(\+\+|--|[-+*/%&|^]=))");
  static const std::regex before(R"((\+\+|--)\s*([A-Za-z_][A-Za-z0-9_]*)\s*\[)");
  std::smatch m;
  if (std::regex_search(text, m, after)) return !indexes(m.suffix().str(), m[1].str());
  if (std::regex_search(text, m, before)) return !indexes(m.suffix().str(), m[2].str());
  return false;
}

// The array a line stores into (`out` in out[i] = in[i - 1] + in[i + 1])
// and whether it reads that array too: "" when the line stores into no
// array element with a plain `=`.
std::string stored_array(const std::string& line, bool* reads_it) {
  static const std::regex store("^\\s*" + kElements + "\\s*=[^=]");
  const std::string text = statement_of(line);
  std::smatch m;
  if (!std::regex_search(text, m, store)) return "";
  *reads_it = indexes(m.suffix().str(), m[1].str());
  return m[1].str();
}

// Whether lines begin..end of `file` hold a __syncthreads().
bool has_block_barrier(const std::string& file, long begin, long end) {
  for (long k = begin; k <= end; ++k)
    if (source_line(file, k).find("__syncthreads") != std::string::npos) return true;
  return false;
}

// racecheck: what to change so that the two accesses no longer race.
std::string race_advice(const Finding& f) {
  const bool same_block = one_block(f.other_known, f.block, f.other_block);
  // An asynchronous copy (libcu++'s or cooperative groups' memcpy_async)
  // and a read of what it copies before the wait that says it is done.
  for (const std::string* w : {&f.where, &f.where_other}) {
    const size_t colon = w->rfind(':');
    if (colon == std::string::npos) continue;
    const long n = std::strtol(w->c_str() + colon + 1, nullptr, 10);
    if (source_line(w->substr(0, colon), n).find("memcpy_async") != std::string::npos)
      return "line " + std::to_string(n) +
             " copies asynchronously (memcpy_async): the data is there for every thread only "
             "after the wait that goes with it (cg::wait(group), the pipeline's "
             "consumer_wait(), the barrier's wait or arrive_and_wait); read it after that";
  }
  // cuRAND's own code on one side (its generator reads and writes back its
  // state at every draw): the threads share one generator's state.
  for (const std::string* w : {&f.where, &f.where_other})
    if (w->find("curand") != std::string::npos)
      return "the threads share one curandState, which each draw reads and writes back: give "
             "each thread its own";
  // Two lines of one loop with a barrier between them: within an iteration
  // the barrier orders them, so the two accesses are in different
  // iterations (a fast thread's next iteration, at the earlier line, while
  // a slow one still works on this one, at the later line), whichever came
  // first, and a barrier between the two lines in the code would not be
  // between them in time: the one missing is at the end of the loop body.
  // Without a barrier between the lines, the later thread may simply have
  // been slower in the same iteration (a thread reads the max from
  // partial[0] while a faster one already writes its sum there): a barrier
  // between the lines is the fix.
  auto split = [](const std::string& w, std::string* file) {
    const size_t colon = w.rfind(':');
    if (colon == std::string::npos) return 0L;
    *file = w.substr(0, colon);
    return std::strtol(w.c_str() + colon + 1, nullptr, 10);
  };
  std::string file, file_other;
  const long line = split(f.where, &file), line_other = split(f.where_other, &file_other);
  const long lo = std::min(line, line_other), hi = std::max(line, line_other);
  if (long begin = 0, end = 0;
      lo > 0 && lo < hi && file == file_other && (!f.other_known || same_block) &&
      has_block_barrier(file, lo + 1, hi - 1) && loop_around(file, lo, hi, &begin, &end))
    return "the two are in different iterations of a loop: one thread's next iteration (line " +
           std::to_string(lo) + ") runs while another still works on this one (line " +
           std::to_string(hi) +
           "). Put a __syncthreads() at the end of the loop body, after line " +
           std::to_string(std::max(hi, end - 1)) +
           ", so that no thread starts the next iteration early";
  if (f.where == f.where_other && line > 0 && updates_one_element(source_line(file, line)))
    return "line " + std::to_string(line) +
           " reads, changes and writes back one element that other threads update too: two "
           "that read it at once write back the same value and one update is lost. Use an "
           "atomic (atomicAdd(&x[i], v)), or give each thread an element of its own";
  // One line storing into an array from others (out[i] = in[i - 1] + ...)
  // whose read and write race on one buffer: the two names are one buffer
  // (the host passed it twice: an update in place).
  bool reads_itself = false;
  const std::string stored = line > 0 && f.where == f.where_other
                                 ? stored_array(source_line(file, line), &reads_itself)
                                 : "";
  if (!stored.empty() && !reads_itself && f.hazard != kWriteWrite &&
      std::strcmp(f.space, "__global__") == 0)
    return "line " + std::to_string(line) + " writes " + stored +
           " and reads another array, yet the two accesses are to one buffer: the array it "
           "reads and " +
           stored +
           " are the same memory (the host passed one buffer for both). Give the kernel two "
           "buffers, one to read and one to write, and swap them between steps";
  if (!stored.empty() && f.hazard == kWriteWrite)
    return "two threads store into one element of " + stored + " on line " + std::to_string(line) +
           ": their index gives both the same place. Each thread's index must be its own "
           "(check the row length and the offsets it is made of)";
  if (f.where == f.where_other && f.hazard == kWriteWrite)
    return "the same line in two threads: if they must update one place, use an "
           "atomic (atomicAdd, ...); if not, give each thread its own element";
  // One line that reads another thread's element and writes its own, inside
  // a loop with no barrier in its body: the rounds of the loop run into each
  // other (a tree whose rounds are not waited for).
  if (long begin = 0, end = 0;
      f.where == f.where_other && line > 0 && (!f.other_known || same_block) &&
      loop_around(file, line, line, &begin, &end) && !has_block_barrier(file, begin + 1, end))
    return "line " + std::to_string(line) + " is inside a loop (lines " + std::to_string(begin) +
           " to " + std::to_string(end) +
           ") with no __syncthreads() in its body: a thread goes on to the next round and "
           "writes while another still reads what the round before left. Put a __syncthreads() "
           "at the end of the loop body, after line " +
           std::to_string(end - 1) + ", so that each round starts when the last one is done";
  if (f.where == f.where_other && (!f.other_known || same_block))
    return "one line both reads what another thread writes and writes: read into "
           "a variable, then __syncthreads() (or __syncwarp() within a warp), then "
           "write";
  if (!f.other_known || same_block)
    return "nothing orders the two: put a __syncthreads() between them (or "
           "__syncwarp() when both are in one warp)";
  if (f.hazard == kWriteWrite)
    return "two blocks write the same element, and threads of different blocks are never "
           "ordered within one launch: let one thread write each element (look at the index "
           "of the block that should not write there), or, to add to one place, use an atomic";
  return "threads of different blocks are never ordered within one launch: "
         "split the work into two launches, or use atomics";
}

// initcheck, shared memory: why the element read has no value, from the
// lines of the kernel above the read that store into the same array
// (`message` names it: "byte 12 of `local` in ..."). A store with no
// __syncthreads() between it and the read: the read may come first (a
// barrier is missing). Stores with one between: they leave this element
// out (their index or their condition). None: nothing gives the array its
// values (shared memory starts with whatever was there, not 0).
std::string uninit_advice(const Finding& f) {
  if (std::strcmp(f.space, "__shared__") != 0) return "";
  const size_t open = f.message.find('`'), close = f.message.find('`', open + 1);
  const size_t colon = f.where.rfind(':');
  if (open == std::string::npos || close == std::string::npos || colon == std::string::npos)
    return "";
  const std::string name = f.message.substr(open + 1, close - open - 1);
  const std::string file = f.where.substr(0, colon);
  const long read = std::strtol(f.where.c_str() + colon + 1, nullptr, 10);
  if (name.empty() || read <= 0) return "";
  static const std::regex element(kElements + R"(\s*([-+*/%&|^]?=)[^=])");
  std::vector<long> stores;  // nearest first
  for (long k = read - 1; k >= std::max(1L, read - 150); --k) {
    const std::string code = code_of(source_line(file, k));
    const std::string text = statement_of(code);
    std::smatch m;
    if (std::regex_search(text, m, element) && m[1].str() == name && m.position(0) == 0)
      stores.push_back(k);
    if (code.find("__global__") != std::string::npos) break;  // the kernel's first line
  }
  const std::string r = std::to_string(read), array = "`" + name + "`";
  if (stores.empty())
    return "no line of the kernel before line " + r + " gives " + array +
           " its values, and shared memory starts with whatever was there, not 0: set each "
           "element first (to 0 for a sum), then __syncthreads(), then use it";
  const std::string w = std::to_string(stores.front());
  if (!has_block_barrier(file, stores.front() + 1, read - 1))
    return "line " + w + " writes " + array + " and line " + r +
           " reads it with no __syncthreads() between them: a thread can get to line " + r +
           " before the thread that writes its element has. Put a __syncthreads() after line " + w +
           " (after its loop, when it is in one)";
  std::string lines;
  for (size_t i = stores.size(); i-- > 0;)
    lines += (lines.empty() ? "" : i == 0 ? " and " : ", ") + std::to_string(stores[i]);
  return "no thread of the block had written this element when line " + r + " read it: the line" +
         std::string(stores.size() > 1 ? "s that write " : " that writes ") + array + " (" + lines +
         (stores.size() > 1 ? ") leave it out, by their index or their condition"
                            : ") leaves it out, by its index or its condition") +
         " (an if with no else), and it keeps "
         "whatever shared memory held. Give every element line " +
         r +
         " reads a value: 0 where there is nothing to load, a loop when there are more "
         "elements than threads";
}

// Whether a finding belongs to the workings of CUB's device-wide algorithms
// (its agents, cub/agent/, which only CUB's own kernels run, on memory CUB
// owns), which a GPU runs as meant and the student's code has no part in:
// - a race in global memory between two blocks, both accesses there (or one
//   there and the other's line unknown): the blocks pass each other partial
//   results through volatile and cache-global accesses, which a GPU keeps
//   coherent;
// - a read of uninitialized shared memory there or in CUB's block merge
//   sort: its merges read one element past a run and do not use it
//   (compute-sanitizer does not look at shared memory for those).
// What the block and warp collectives a student calls do stays a finding: a
// TempStorage used again without a __syncthreads(), a BlockStore whose
// blocks write over each other, an uninitialized array given to a BlockLoad.
bool cub_workings(uint8_t tool, std::string_view space, const std::string& where,
                  const std::string& other, bool other_block) {
  // (Paths come as the compiler read them: cub/device/dispatch/../../agent/.)
  auto agent = [](const std::string& w) {
    return w.find("/cub/") != std::string::npos &&
           (w.find("/agent/") != std::string::npos ||
            w.find("/block_merge_sort.cuh:") != std::string::npos);
  };
  auto unknown = [](const std::string& w) { return w.empty() || w[0] == '('; };
  if (tool == kInitcheck) return space == "__shared__" && agent(where);
  if (tool != kRacecheck || space != "__global__" || !other_block) return false;
  return (agent(where) || agent(other)) && (agent(where) || unknown(where)) &&
         (agent(other) || unknown(other));
}

// The finding of an access, `count` times at lines `where` (and, for a race,
// `where_other`), in launch `l`.
Finding access_finding_of(const Launch& l, const FindingKey& k, const FindingDetails& d,
                          uint64_t count, const std::string& where,
                          const std::string& where_other) {
  Finding f;
  f.subject = Finding::Subject::kAccess;
  f.tool = Tool(k.tool);
  f.space = d.space;
  f.size = k.size;
  f.address = d.address;
  f.kernel = l.site.kernel;
  f.launch = l.id;
  f.where = where;
  f.where_other = where_other;
  f.thread = d.thread;
  f.block = d.block;
  f.other_known = d.other_known;
  f.other_thread = d.other_thread;
  f.other_block = d.other_block;
  f.message = d.location;
  f.count = count;
  if (f.tool == kRacecheck) {
    f.hazard = Hazard(k.kind);
    f.kind = f.hazard == kWriteWrite  ? "write-after-write"
             : f.hazard == kWriteRead ? "read-after-write"
                                      : "write-after-read";
    f.advice = race_advice(f);
  } else if (f.tool == kInitcheck) {
    f.kind = "uninitialized";
    f.advice = uninit_advice(f);
  } else {
    f.problem = Problem(k.kind);
    f.write = k.write;
    f.kind = f.problem == kFreed        ? "use-after-free"
             : f.problem == kMisaligned ? "misaligned"
             : f.problem == kHostMemory ? "host-pointer"
                                        : (f.write ? "write" : "read");
  }
  return f;
}

}  // namespace

void synccheck_barrier(const char* kind, uintptr_t pc, const std::string& what) {
  std::lock_guard lock(g_mutex);
  auto [it, fresh] = g_barrier_findings.try_emplace({pc, kind});
  Finding& f = it->second;
  if (fresh) {
    f.subject = Finding::Subject::kBarrier;
    f.tool = kSynccheck;
    f.kind = kind;
    f.message = what;
    f.block = tl_block->index;
    f.count = 0;
  }
  ++f.count;
}

void start_checks() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (!check_settings().any) return;
    std::fprintf(stderr, "========= CUDALAB-SANITIZER (the cudalab simulator's checks)\n");
    std::atexit(print_summary);
  });
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

void memcheck_api_error(const char* call, cudaError_t e, const void* caller,
                        const std::string& why) {
  const auto lines = symbolize({reinterpret_cast<uintptr_t>(caller) - 1});
  Finding f;
  f.subject = Finding::Subject::kApiCall;
  f.kind = "api";
  f.call = call;
  f.error = e;
  f.where = lines.empty() || lines[0].empty() ? "(unknown line)" : lines[0];
  f.message = why;
  std::fputs(finding_text(f).c_str(), stderr);
  std::lock_guard lock(g_mutex);
  ++g_errors;
  g_json_findings.push_back(finding_json(f));
}

bool memcheck_report_launch(const Launch& l) {
  // This launch's access findings, in a stable order.
  std::vector<std::tuple<FindingKey, FindingDetails, uint64_t>> found;
  std::map<std::pair<uintptr_t, std::string>, Finding> barriers;
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
    for (const auto& [key, counted] : barriers) {
      Finding f = counted;
      f.kernel = l.site.kernel;
      f.launch = l.id;
      f.where = lines[k++];
      std::fputs(finding_text(f).c_str(), stderr);
      const std::string j = finding_json(f);
      trace_finding(l, j);
      std::lock_guard lock(g_mutex);
      g_json_findings.push_back(j);
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
  size_t dropped = 0;
  for (size_t i = 0; i < found.size(); ++i) {
    const auto& [key, d, count] = found[i];
    const std::string other = key.pc_other ? lines[2 * i + 1] : "";
    const bool other_block = d.other_known && !one_block(true, d.block, d.other_block);
    if (cub_workings(key.tool, d.space, lines[2 * i], other, other_block)) {
      ++dropped;
      continue;
    }
    auto [it, fresh] =
        by_line.try_emplace({key.tool, key.kind, key.size, key.write, lines[2 * i], other}, i);
    counts[it->second] += count;
    if (fresh) order.push_back(i);
  }
  {
    std::lock_guard lock(g_mutex);
    g_errors -= found.size() - order.size();
  }
  if (order.empty() && dropped == found.size()) return !barriers.empty();
  for (size_t i : order) {
    const auto& [key, d, count] = found[i];
    const Finding f =
        access_finding_of(l, key, d, counts[i], lines[2 * i], key.pc_other ? lines[2 * i + 1] : "");
    std::fputs(finding_text(f).c_str(), stderr);
    const std::string j = finding_json(f);
    trace_finding(l, j);
    std::lock_guard lock(g_mutex);
    g_json_findings.push_back(j);
  }
  return true;
}

}  // namespace cudalab::rt
