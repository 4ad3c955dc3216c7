#include "trace_file.h"

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

namespace cudalab::trace {
namespace {

class Reader {
 public:
  Reader(const char* p, size_t n, const char* what) : p_(p), end_(p + n), what_(what) {}
  bool done() const { return p_ == end_; }
  template <class T>
  T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }
  std::string str() {
    const uint16_t n = get<uint16_t>();
    need(n);
    std::string s(p_, n);
    p_ += n;
    return s;
  }
  const char* take(size_t n) {
    need(n);
    const char* at = p_;
    p_ += n;
    return at;
  }

 private:
  void need(size_t n) {
    if (size_t(end_ - p_) < n)
      throw TraceError(std::string("a ") + what_ + " record is shorter than its contents");
  }
  const char* p_;
  const char* end_;
  const char* what_;
};

// How a request's other lanes are written (docs/trace-format.md).
enum LaneEncoding : uint8_t { kPattern = 0, kDeltas8, kDeltas16, kDeltas32, kEach };

// Bytes the other lanes take after the encoding byte; 0 for an unknown one.
size_t lane_bytes(uint8_t encoding, int others) {
  switch (encoding) {
    case kPattern:
      return 9;
    case kDeltas8:
      return size_t(others);
    case kDeltas16:
      return 2 * size_t(others);
    case kDeltas32:
      return 4 * size_t(others);
    case kEach:
      return 12 * size_t(others);
    default:
      return 0;
  }
}

template <class T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

}  // namespace

const Allocation* Trace::allocation(uint32_t id) const {
  auto it = allocation_index.find(id);
  return it == allocation_index.end() ? nullptr : &allocations[it->second];
}

int Launch::lanes_of(const Request& r, LaneAddress out[32]) const {
  const char* p = lane_data.data() + r.lanes_at;
  const uint8_t encoding = uint8_t(*p++);
  const uint32_t f = uint32_t(__builtin_ctz(r.mask));
  out[0] = {f, r.allocation, r.offset};
  int n = 1;
  if (encoding == kPattern) {
    const uint32_t log_w = uint8_t(p[0]);
    const int64_t sx = load<int32_t>(p + 1), sy = load<int32_t>(p + 5);
    const int64_t w = int64_t(1) << log_w;
    for (uint32_t m = r.mask & (r.mask - 1); m; m &= m - 1) {
      const uint32_t l = uint32_t(__builtin_ctz(m));
      const int64_t dx = int64_t(l) % w - int64_t(f) % w, dy = int64_t(l) / w - int64_t(f) / w;
      out[n++] = {l, r.allocation, r.offset + uint64_t(dx * sx + dy * sy)};
    }
    return n;
  }
  for (uint32_t m = r.mask & (r.mask - 1); m; m &= m - 1) {
    const uint32_t l = uint32_t(__builtin_ctz(m));
    switch (encoding) {
      case kDeltas8:
        out[n++] = {l, r.allocation, r.offset + uint64_t(int64_t(int8_t(*p)))};
        p += 1;
        break;
      case kDeltas16:
        out[n++] = {l, r.allocation, r.offset + uint64_t(int64_t(load<int16_t>(p)))};
        p += 2;
        break;
      case kDeltas32:
        out[n++] = {l, r.allocation, r.offset + uint64_t(int64_t(load<int32_t>(p)))};
        p += 4;
        break;
      default:
        out[n++] = {l, load<uint32_t>(p), load<uint64_t>(p + 4)};
        p += 12;
        break;
    }
  }
  return n;
}

std::vector<Access> Launch::all_accesses() const {
  std::vector<Access> all;
  all.reserve(accesses);
  for_each_access([&](const Access& a) { all.push_back(a); });
  return all;
}

std::string Trace::where(uint64_t pc) const {
  auto it = sites.find(pc);
  if (it == sites.end() || it->second.file.empty()) return "?";
  std::string f = it->second.file;
  if (auto slash = f.rfind('/'); slash != std::string::npos) f = f.substr(slash + 1);
  return f + ":" + std::to_string(it->second.line);
}

Dim3 unflatten(uint32_t linear, const Dim3& d) {
  return Dim3{linear % d.x, (linear / d.x) % d.y, linear / (d.x * d.y)};
}

Trace read_trace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError("cannot open " + path + ": " + std::strerror(errno));
  // In one read: traces run to hundreds of megabytes.
  in.seekg(0, std::ios::end);
  const std::streamoff length = in.tellg();
  in.seekg(0, std::ios::beg);
  std::vector<char> data(length > 0 ? size_t(length) : 0);
  if (!data.empty() && !in.read(data.data(), std::streamsize(data.size())))
    throw TraceError("cannot read " + path + ": " + std::strerror(errno));
  if (data.size() < 16 || std::memcmp(data.data(), "CLTRACE", 8) != 0)
    throw TraceError(path +
                     " is not a cudalab trace (it does not start with the trace "
                     "header). Record one with CUDALAB_TRACE=" +
                     path + " ./program");
  Trace t;
  std::memcpy(&t.version, data.data() + 8, 4);
  if (t.version != kTraceVersion)
    throw TraceError(path + " is a version " + std::to_string(t.version) +
                     " trace; this cudalab reads version " + std::to_string(kTraceVersion) +
                     ". Record it again with this cudalab.");
  size_t pos = 16;
  bool ended = false;
  std::map<uint32_t, size_t> launch_index;
  // The launch a record names, which must have come before it.
  auto launch_of = [&](Reader& r, const char* what) -> Launch& {
    const uint32_t id = r.get<uint32_t>();
    auto it = launch_index.find(id);
    if (it == launch_index.end())
      throw TraceError(path + " is corrupt: " + what + " of launch " + std::to_string(id) +
                       " come before the launch");
    return t.launches[it->second];
  };
  while (pos < data.size()) {
    if (data.size() - pos < 5)
      throw TraceError(path + " is truncated: it ends in the middle of a record header");
    const uint8_t type = static_cast<uint8_t>(data[pos]);
    uint32_t len;
    std::memcpy(&len, data.data() + pos + 1, 4);
    pos += 5;
    if (data.size() - pos < len)
      throw TraceError(path +
                       " is truncated: its last record is cut short (the program was "
                       "probably killed while it wrote the trace)");
    Reader r(data.data() + pos, len, "trace");
    pos += len;
    switch (type) {
      case 1:
        t.program = r.str();
        break;
      case 2: {
        Allocation a;
        a.id = r.get<uint32_t>();
        a.base = r.get<uint64_t>();
        a.size = r.get<uint64_t>();
        a.site = r.str();
        a.name = r.str();
        t.allocation_index[a.id] = t.allocations.size();
        t.allocations.push_back(a);
        break;
      }
      case 3: {
        const uint32_t id = r.get<uint32_t>();
        for (auto& a : t.allocations)
          if (a.id == id) a.freed = true;
        break;
      }
      case 4: {
        Launch l;
        l.id = r.get<uint32_t>();
        l.kernel = r.str();
        l.file = r.str();
        l.line = r.get<uint32_t>();
        l.grid = {r.get<uint32_t>(), r.get<uint32_t>(), r.get<uint32_t>()};
        l.block = {r.get<uint32_t>(), r.get<uint32_t>(), r.get<uint32_t>()};
        l.shared_bytes = r.get<uint64_t>();
        if (l.grid.count() == 0 || l.block.count() == 0)
          throw TraceError(path + " is corrupt: launch " + std::to_string(l.id) +
                           " has a zero grid or block dimension");
        launch_index[l.id] = t.launches.size();
        t.launches.push_back(std::move(l));
        break;
      }
      case 6: {
        Launch& l = launch_of(r, "the end");
        l.ended = true;
        l.faulted = r.get<uint8_t>() != 0;
        l.idle_threads = r.get<uint64_t>();
        break;
      }
      case 7: {
        const uint64_t pc = r.get<uint64_t>();
        Site s;
        s.file = r.str();
        s.line = r.get<uint32_t>();
        t.sites[pc] = s;
        break;
      }
      case 8:
        t.notes.push_back(r.str());
        break;
      case 9:
        ended = true;
        break;
      case 10: {
        Launch& l = launch_of(r, "findings");
        const std::string text = r.str();
        const auto json = nlohmann::json::parse(text, nullptr, false);
        if (!json.is_object())
          throw TraceError(path + " is corrupt: a finding of launch " + std::to_string(l.id) +
                           " is not a JSON object");
        Finding f;
        f.tool = json.value("tool", "");
        f.kind = json.value("kind", "");
        f.where = json.value("where", "");
        f.message = json.value("message", "");
        f.count = json.value("count", uint64_t(1));
        l.findings.push_back(std::move(f));
        break;
      }
      case 11: {
        Launch& l = launch_of(r, "requests");
        const uint32_t block = r.get<uint32_t>(), phase = r.get<uint32_t>();
        r.get<uint64_t>();  // the barrier that ended the phase
        const uint32_t count = r.get<uint32_t>();
        if (block >= l.grid.count())
          throw TraceError(path + " is corrupt: requests name a block outside launch " +
                           std::to_string(l.id) + "'s grid");
        const uint64_t threads = l.block.count();
        for (uint32_t k = 0; k < count; ++k) {
          Request q;
          q.block = block;
          q.phase = phase;
          q.pc = r.get<uint64_t>();
          q.warp = r.get<uint16_t>();
          q.kind = r.get<uint8_t>();
          q.size = r.get<uint8_t>();
          q.mask = r.get<uint32_t>();
          q.allocation = r.get<uint32_t>();
          q.offset = r.get<uint64_t>();
          const uint8_t encoding = r.get<uint8_t>();
          const int others = __builtin_popcount(q.mask) - 1;
          const size_t bytes = lane_bytes(encoding, others);
          const uint64_t last_thread =
              uint64_t(q.warp) * 32 + 31 - uint64_t(__builtin_clz(q.mask | 1));
          if (q.mask == 0 || q.kind > 2 || (bytes == 0 && others > 0 && encoding != kPattern) ||
              encoding > kEach || last_thread >= threads)
            throw TraceError(path + " is corrupt: a request of launch " + std::to_string(l.id) +
                             " has no lanes, lanes outside its block, or an unknown kind");
          const char* lanes = r.take(bytes);
          q.lanes_at = l.lane_data.size();
          l.lane_data.push_back(char(encoding));
          l.lane_data.insert(l.lane_data.end(), lanes, lanes + bytes);
          l.accesses += uint64_t(others + 1);
          t.accesses_total += uint64_t(others + 1);
          l.requests.push_back(q);
        }
        break;
      }
      case 12: {
        Launch& l = launch_of(r, "warp steps");
        const uint32_t count = r.get<uint32_t>();
        for (uint32_t k = 0; k < count; ++k) {
          WarpSteps w;
          w.pc = r.get<uint64_t>();
          w.steps = r.get<uint64_t>();
          w.lanes = r.get<uint64_t>();
          w.divergent = r.get<uint64_t>();
          l.steps.push_back(w);
        }
        break;
      }
      case 13: {
        const uint32_t count = r.get<uint32_t>();
        for (uint32_t k = 0; k < count; ++k) {
          const uint64_t pc = r.get<uint64_t>();
          FloatOps ops;
          ops.single_ops = r.get<uint32_t>();
          ops.double_ops = r.get<uint32_t>();
          t.float_ops[pc] = ops;
        }
        t.float_ops_counted = true;
        break;
      }
      default:
        break;  // a record of a later version: the format lets readers skip it
    }
  }
  if (!ended)
    throw TraceError(path +
                     " is truncated: it has no end record, so the program stopped "
                     "before it finished (crashed or was killed). Run it again to "
                     "record a whole trace.");
  return t;
}

}  // namespace cudalab::trace
