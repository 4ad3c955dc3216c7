#include "atomic_tells.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <map>
#include <unordered_map>

#include "headline.h"

namespace cudalab::viz {
namespace {

// The line number of a "file.cu:12" place; 0 when it has none.
long line_of(const std::string& where) {
  const size_t colon = where.rfind(':');
  return colon == std::string::npos ? 0 : std::strtol(where.c_str() + colon + 1, nullptr, 10);
}

// One shared-memory word of one block in one phase: its first plain access
// and its first atomic, each with the thread (linear in the block) and pc.
struct WordUse {
  int64_t plain_thread = -1, atomic_thread = -1;
  uint64_t plain_pc = 0, atomic_pc = 0;
  bool plain_write = false;
};

struct WordKey {
  uint32_t block, phase, allocation;
  uint64_t word;
  bool operator==(const WordKey&) const = default;
};

struct WordKeyHash {
  size_t operator()(const WordKey& k) const {
    uint64_t h = k.word * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t(k.block) << 32 | k.phase) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
    return size_t(h ^ k.allocation);
  }
};

}  // namespace

std::string shared_atomic_hazard(const trace::Trace& t, const trace::Launch& l) {
  std::unordered_map<WordKey, WordUse, WordKeyHash> words;
  constexpr size_t kMaxWords = size_t(1) << 22;  // about 200 MB of map at most
  trace::LaneAddress lanes[32];
  uint64_t hazards = 0;
  // The first hazard: the earlier access (thread, pc, what) and the later.
  int64_t first_thread = -1, later_thread = -1;
  uint64_t first_pc = 0, later_pc = 0;
  uint32_t block = 0;
  bool first_atomic = false, first_plain_write = false, later_write = false;
  for (const trace::Request& r : l.requests) {
    if (!r.shared() || r.mask == 0 || r.lanes_at >= l.lane_data.size()) continue;
    const int n = l.lanes_of(r, lanes);
    for (int i = 0; i < n; ++i) {
      const WordKey key{r.block, r.phase, lanes[i].allocation, lanes[i].offset / 4};
      auto found = words.find(key);
      if (found == words.end()) {
        if (words.size() >= kMaxWords) continue;
        found = words.emplace(key, WordUse{}).first;
      }
      WordUse& w = found->second;
      const int64_t thread = int64_t(r.warp) * 32 + lanes[i].lane;
      // The other side: a plain access for an atomic, an atomic for a
      // plain one, by a thread of another warp.
      const int64_t other = r.atomic() ? w.plain_thread : w.atomic_thread;
      if (other >= 0 && other / 32 != thread / 32) {
        if (hazards++ == 0) {
          first_thread = other;
          first_pc = r.atomic() ? w.plain_pc : w.atomic_pc;
          first_atomic = !r.atomic();
          first_plain_write = r.atomic() && w.plain_write;
          later_thread = thread;
          later_pc = r.pc;
          later_write = r.write();
          block = r.block;
        }
      }
      if (r.atomic() && w.atomic_thread < 0) w.atomic_thread = thread, w.atomic_pc = r.pc;
      if (!r.atomic() && (w.plain_thread < 0 || (r.write() && !w.plain_write)))
        w.plain_thread = thread, w.plain_pc = r.pc, w.plain_write = r.write();
    }
  }
  if (hazards == 0) return "";
  const std::string first_at = file_name(t.where(first_pc)),
                    later_at = file_name(t.where(later_pc));
  const long a = line_of(first_at), b = line_of(later_at);
  const std::string who_first = whose(l, block, first_thread),
                    who_later = whose(l, block, later_thread);
  std::string s;
  if (first_atomic && later_write)
    s = who_later + " wrote a shared element at " + later_at + " after " + who_first +
        " had added to it at " + first_at + " (an atomic): the write wipes out what was added";
  else if (first_atomic)
    s = who_later + " read a shared element at " + later_at + " that " + who_first +
        " added to at " + first_at +
        " (an atomic), and nothing made the read wait for the block's other additions";
  else if (first_plain_write)
    s = who_first + " wrote a shared element at " + first_at + " and " + who_later +
        " added to it at " + later_at +
        " (an atomic), and nothing made the write come first (on a GPU it may come after, "
        "and wipe out what was added)";
  else
    s = who_first + " read a shared element at " + first_at + " before " + who_later +
        " added to it at " + later_at + " (an atomic): what is added after the read is lost";
  s += ". No __syncthreads() comes between the two";
  if (a > 0 && b > 0 && a != b)
    s += ": put one between lines " + std::to_string(std::min(a, b)) + " and " +
         std::to_string(std::max(a, b));
  return s + " (racecheck, like compute-sanitizer's, does not pair atomics with plain accesses)";
}

std::string atomic_lanes(const trace::Trace& t, const trace::Launch& l, uint32_t id,
                         uint64_t max_elements) {
  const trace::Allocation* buffer = t.allocation(id);
  if (buffer == nullptr || l.block.count() <= 32) return "";
  // Per element and block: the warp whose lanes added to it (-2: lanes
  // of more than one warp) and those lanes.
  struct Adders {
    int32_t warp = -1;
    uint32_t lanes = 0;
    uint64_t pc = 0;
  };
  std::map<std::pair<uint64_t, uint32_t>, Adders> adders;
  uint64_t element_bytes = 0;
  trace::LaneAddress lanes[32];
  for (const trace::Request& r : l.requests) {
    if (!r.atomic() || r.shared() || r.mask == 0 || r.lanes_at >= l.lane_data.size()) continue;
    const int n = l.lanes_of(r, lanes);
    for (int i = 0; i < n; ++i) {
      if (lanes[i].allocation != id) continue;
      element_bytes = std::max<uint64_t>(element_bytes, r.size);
      Adders& a = adders[{lanes[i].offset, r.block}];
      if (a.warp == -1) a.warp = r.warp, a.pc = r.pc;
      if (a.warp != int32_t(r.warp)) a.warp = -2;
      a.lanes |= 1u << lanes[i].lane;
    }
  }
  if (adders.empty() || element_bytes == 0 || buffer->size / element_bytes > max_elements)
    return "";
  // Every block's additions to an element come from several lanes of one
  // warp, the same number in each block.
  int lanes_each = -1;
  uint64_t pc = 0, element = 0;
  for (const auto& [key, a] : adders) {
    const int count = std::popcount(a.lanes);
    if (a.warp < 0 || count < 2 || (lanes_each >= 0 && count != lanes_each)) return "";
    if (lanes_each < 0) lanes_each = count, pc = a.pc, element = key.first / element_bytes;
  }
  const std::string name = buffer->name.empty() ? "the result" : buffer->name;
  return std::to_string(lanes_each) + " threads of one warp in each block added to " + name +
         (buffer->size / element_bytes > 1 ? "[" + std::to_string(element) + "]" : "") + " at " +
         file_name(t.where(pc)) +
         " (an atomic): when one thread holds the block's result (lane 0 after a warp's "
         "shuffles, thread 0 after a tree), only that thread should add it";
}

}  // namespace cudalab::viz
