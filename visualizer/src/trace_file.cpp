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

constexpr size_t kAccessBytes = 30;

}  // namespace

const Allocation* Trace::allocation(uint32_t id) const {
  for (const auto& a : allocations)
    if (a.id == id) return &a;
  return nullptr;
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
  if (t.version < 1 || t.version > kTraceVersion)
    throw TraceError(path + " is a version " + std::to_string(t.version) +
                     " trace; this cudalab-viz reads version " + std::to_string(kTraceVersion) +
                     ". Record it again with this cudalab.");
  // A first pass over the record headers: how many accesses each launch
  // has, so that their vectors are allocated once.
  std::map<uint32_t, size_t> accesses_of;
  for (size_t p = 16; p + 5 <= data.size();) {
    uint32_t n;
    std::memcpy(&n, data.data() + p + 1, 4);
    if (data[p] == 5 && p + 13 <= data.size()) {
      uint32_t id, count;
      std::memcpy(&id, data.data() + p + 5, 4);
      std::memcpy(&count, data.data() + p + 9, 4);
      accesses_of[id] += count;
    }
    if (data.size() - p - 5 < n) break;
    p += 5 + size_t(n);
  }
  size_t pos = 16;
  bool ended = false;
  std::map<uint32_t, size_t> launch_index;
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
        if (t.version >= 2) a.name = r.str();
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
        if (auto n = accesses_of.find(l.id); n != accesses_of.end())
          l.accesses.reserve(std::min<size_t>(n->second, data.size() / kAccessBytes));
        launch_index[l.id] = t.launches.size();
        t.launches.push_back(std::move(l));
        break;
      }
      case 5: {
        const uint32_t id = r.get<uint32_t>();
        const uint32_t n = r.get<uint32_t>();
        auto it = launch_index.find(id);
        if (it == launch_index.end())
          throw TraceError(path + " is corrupt: accesses of launch " + std::to_string(id) +
                           " come before the launch");
        Launch& l = t.launches[it->second];
        const char* raw = r.take(size_t(n) * kAccessBytes);
        for (uint32_t k = 0; k < n; ++k) {
          Reader a(raw + size_t(k) * kAccessBytes, kAccessBytes, "access");
          Access x;
          x.block = a.get<uint32_t>();
          x.thread = a.get<uint32_t>();
          x.allocation = a.get<uint32_t>();
          x.offset = a.get<uint64_t>();
          x.pc = a.get<uint64_t>();
          x.size = a.get<uint8_t>();
          const uint8_t kind = a.get<uint8_t>();
          x.write = kind != 0;
          x.atomic = kind == 2;
          if (x.block >= l.grid.count() || x.thread >= l.block.count())
            throw TraceError(path +
                             " is corrupt: an access names a block or thread outside "
                             "launch " +
                             std::to_string(id) + "'s grid");
          l.accesses.push_back(x);
        }
        t.accesses_total += n;
        break;
      }
      case 6: {
        const uint32_t id = r.get<uint32_t>();
        auto it = launch_index.find(id);
        if (it == launch_index.end())
          throw TraceError(path + " is corrupt: the end of launch " + std::to_string(id) +
                           " comes before the launch");
        Launch& l = t.launches[it->second];
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
        const uint32_t id = r.get<uint32_t>();
        auto it = launch_index.find(id);
        if (it == launch_index.end())
          throw TraceError(path + " is corrupt: a finding of launch " + std::to_string(id) +
                           " comes before the launch");
        const std::string text = r.str();
        const auto json = nlohmann::json::parse(text, nullptr, false);
        if (!json.is_object())
          throw TraceError(path + " is corrupt: a finding of launch " + std::to_string(id) +
                           " is not a JSON object");
        Finding f;
        f.tool = json.value("tool", "");
        f.kind = json.value("kind", "");
        f.where = json.value("where", "");
        f.message = json.value("message", "");
        f.count = json.value("count", uint64_t(1));
        t.launches[it->second].findings.push_back(std::move(f));
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
