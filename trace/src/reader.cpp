#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <utility>

#include "cudalab/trace/finding.h"
#include "cudalab/trace/trace.h"

namespace cudalab::trace {
namespace {

class Reader {
 public:
  Reader(const char* p, size_t n, std::string what) : p_(p), end_(p + n), what_(std::move(what)) {}
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
      throw TraceError("a " + what_ + " record is shorter than its contents");
  }
  const char* p_;
  const char* end_;
  std::string what_;
};

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
  if (encoding == uint8_t(LaneEncoding::kPattern)) {
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
      case uint8_t(LaneEncoding::kDeltas8):
        out[n++] = {l, r.allocation, r.offset + uint64_t(int64_t(int8_t(*p)))};
        p += 1;
        break;
      case uint8_t(LaneEncoding::kDeltas16):
        out[n++] = {l, r.allocation, r.offset + uint64_t(int64_t(load<int16_t>(p)))};
        p += 2;
        break;
      case uint8_t(LaneEncoding::kDeltas32):
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

bool Trace::missed(const Access& x) const {
  if (x.shared()) return false;
  const Allocation* a = allocation(x.allocation);
  return !a || x.offset >= a->size;  // before its start: a huge unsigned offset
}

bool Trace::in_unrolled_loop(uint64_t pc) const {
  for (const auto& [first, last] : unrolled_loops)
    if (first <= pc && pc <= last) return true;
  return false;
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
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw TraceError(path +
                     " is a folder, not a trace file: give the file that "
                     "CUDALAB_TRACE=FILE wrote");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError("cannot open " + path + ": " + std::strerror(errno));
  // In one read: traces run to hundreds of megabytes.
  in.seekg(0, std::ios::end);
  const std::streamoff length = in.tellg();
  in.seekg(0, std::ios::beg);
  std::vector<char> data(length > 0 ? size_t(length) : 0);
  if (!data.empty() && !in.read(data.data(), std::streamsize(data.size())))
    throw TraceError("cannot read " + path + ": " + std::strerror(errno));
  return parse_trace(data, path);
}

namespace {

Finding finding_of(const FindingFields& from, const Launch& l) {
  Finding f;
  f.tool = from.tool;
  f.kind = from.kind;
  f.kernel = from.kernel;
  f.launch = from.launch;
  f.space = from.space;
  f.where = from.where;
  f.message = from.message;
  f.where_other = from.where_other;
  f.advice = from.advice;
  f.count = from.count;
  // Coordinates made linear in the launch's shapes.
  auto linear = [](const std::optional<FindingFields::Triple>& v, const Dim3& dims) -> int64_t {
    if (!v) return -1;
    const auto [x, y, z] = *v;
    if (x >= dims.x || y >= dims.y || z >= dims.z) return -1;
    return int64_t(x + y * dims.x + z * uint64_t(dims.x) * dims.y);
  };
  f.thread = linear(from.thread, l.block);
  f.block = linear(from.block, l.grid);
  f.other_thread = linear(from.other_thread, l.block);
  f.other_block = linear(from.other_block, l.grid);
  return f;
}

}  // namespace

bool finding_from_json(const std::string& text, const Launch& l, Finding* f) {
  FindingFields fields;
  if (!finding_fields(nlohmann::json::parse(text, nullptr, false), &fields)) return false;
  *f = finding_of(fields, l);
  return true;
}

namespace {

// A launch record: the kernel, where it was launched, its grid and block.
Launch read_launch(Reader& r, const std::string& path) {
  Launch l;
  l.id = r.get<uint32_t>();
  l.kernel = r.str();
  l.file = r.str();
  l.line = r.get<uint32_t>();
  l.grid = {r.get<uint32_t>(), r.get<uint32_t>(), r.get<uint32_t>()};
  l.block = {r.get<uint32_t>(), r.get<uint32_t>(), r.get<uint32_t>()};
  l.shared_bytes = r.get<uint64_t>();
  if (!r.done()) l.code = r.get<uint64_t>();  // absent in traces written before it
  if (l.grid.count() == 0 || l.block.count() == 0)
    throw TraceError(path + " is corrupt: launch " + std::to_string(l.id) +
                     " has a zero grid or block dimension");
  // CUDA's limits, which the simulator keeps: no launch past them runs.
  if (l.block.count() > 1024 || l.block.z > 64 || l.grid.x > 0x7fffffffu || l.grid.y > 65535 ||
      l.grid.z > 65535)
    throw TraceError(path + " is corrupt: launch " + std::to_string(l.id) +
                     " has a grid or block larger than CUDA allows");
  return l;
}

// A launch's end: whether it faulted (or was stopped), and where.
void read_launch_end(Launch& l, Reader& r, const std::string& path) {
  l.ended = true;
  const uint8_t how = r.get<uint8_t>();  // 1: a thread faulted; 2: stopped, never ended
  l.faulted = how != 0;
  l.fault.never_ended = how == 2;
  l.idle_threads = r.get<uint64_t>();
  if (l.faulted && !r.done()) {
    Fault& f = l.fault;
    f.known = true;
    f.block = r.get<uint32_t>();
    f.thread = r.get<uint32_t>();
    f.where = r.str();
    f.what = r.str();
    if (f.block >= l.grid.count() || f.thread >= l.block.count())
      throw TraceError(path + " is corrupt: launch " + std::to_string(l.id) +
                       " names a faulting thread outside its grid");
  }
}

// A block's warp-level requests of one barrier phase, each with its lanes.
// Record 19: each basic block's longest chain of dependent work, and
// whether it leaves through a switch's jump table.
void read_chains(Reader& r, Trace& t) {
  const uint32_t count = r.get<uint32_t>();
  for (uint32_t k = 0; k < count; ++k) {
    FloatOps& ops = t.float_ops[r.get<uint64_t>()];
    ops.chain_single = r.get<uint32_t>();
    ops.chain_double = r.get<uint32_t>();
    ops.indirect_jump = (r.get<uint32_t>() & 1) != 0;
  }
}

// Record 21: each block's reads of __constant__ variables.
void read_constant_reads(Launch& l, Reader& r) {
  const uint32_t count = r.get<uint32_t>();
  for (uint32_t k = 0; k < count; ++k) {
    Launch::ConstantReads c;
    c.block = r.get<uint32_t>();
    c.requests = r.get<uint64_t>();
    c.addresses = r.get<uint64_t>();
    l.constant_reads.push_back(c);
  }
}

// Record 20: the places the lanes of a launch's divergent warp steps went,
// for the basic blocks of its warp steps (read before it).
void read_branch_targets(Launch& l, Reader& r) {
  const uint32_t count = r.get<uint32_t>();
  for (uint32_t k = 0; k < count; ++k) {
    const uint64_t pc = r.get<uint64_t>();
    const uint64_t targets = r.get<uint64_t>();
    for (WarpSteps& w : l.steps)
      if (w.pc == pc) w.targets = targets;
  }
}

void read_requests(Launch& l, Reader& r, const std::string& path, Trace* t) {
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
    const long bytes = lane_bytes(encoding, others);
    const uint64_t last_thread = uint64_t(q.warp) * 32 + 31 - uint64_t(__builtin_clz(q.mask | 1));
    if (q.mask == 0 || q.kind > 3 || bytes < 0 || last_thread >= threads)
      throw TraceError(path + " is corrupt: a request of launch " + std::to_string(l.id) +
                       " has no lanes, lanes outside its block, or an unknown kind or "
                       "encoding");
    const char* lanes = r.take(size_t(bytes));
    if (encoding == uint8_t(LaneEncoding::kPattern) && (lanes[0] < 1 || lanes[0] > 5))
      throw TraceError(path + " is corrupt: a request of launch " + std::to_string(l.id) +
                       " has a lane pattern whose row width is not 2 to 32 lanes");
    q.lanes_at = l.lane_data.size();
    l.lane_data.push_back(char(encoding));
    l.lane_data.insert(l.lane_data.end(), lanes, lanes + bytes);
    l.accesses += uint64_t(others + 1);
    t->accesses_total += uint64_t(others + 1);
    l.requests.push_back(q);
  }
}

}  // namespace

Trace parse_trace(const std::vector<char>& data, const std::string& path) {
  if (data.size() < kFileHeaderBytes || std::memcmp(data.data(), kMagic, 8) != 0)
    throw TraceError(path +
                     " is not a cudalab trace (it does not start with the trace "
                     "header). Record one with CUDALAB_TRACE=" +
                     path + " ./program");
  Trace t;
  std::memcpy(&t.version, data.data() + 8, 4);
  if (t.version < kOldestReadableVersion || t.version > kTraceVersion)
    throw TraceError(path + " is a version " + std::to_string(t.version) +
                     " trace; this cudalab reads versions " +
                     std::to_string(kOldestReadableVersion) + " to " +
                     std::to_string(kTraceVersion) + ". Record it again with this cudalab.");
  size_t pos = kFileHeaderBytes;
  size_t record_number = 0;
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
    if (data.size() - pos < kRecordHeaderBytes)
      throw TraceError(path + " is truncated: it ends in the middle of a record header");
    const uint8_t type = static_cast<uint8_t>(data[pos]);
    uint32_t len, crc;
    std::memcpy(&len, data.data() + pos + 1, 4);
    std::memcpy(&crc, data.data() + pos + 5, 4);
    pos += kRecordHeaderBytes;
    ++record_number;
    if (data.size() - pos < len)
      throw TraceError(path +
                       " is truncated: its last record is cut short (the program was "
                       "probably killed while it wrote the trace)");
    if (record_crc(data.data() + pos - kRecordHeaderBytes, data.data() + pos, len) != crc)
      throw TraceError(path + " is corrupt: record " + std::to_string(record_number) + " (" +
                       std::string(record_name(type)) + ", at byte " +
                       std::to_string(pos - kRecordHeaderBytes) +
                       ") does not match its checksum: the file was changed after it was "
                       "written. Record it again.");
    Reader r(data.data() + pos, len, std::string(record_name(type)));
    pos += len;
    switch (Record(type)) {
      case Record::kProgram:
        t.program = r.str();
        break;
      case Record::kAllocation: {
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
      case Record::kFree: {
        const uint32_t id = r.get<uint32_t>();
        for (auto& a : t.allocations)
          if (a.id == id) a.freed = true;
        break;
      }
      case Record::kLaunch: {
        Launch l = read_launch(r, path);
        launch_index[l.id] = t.launches.size();
        t.launches.push_back(std::move(l));
        break;
      }
      case Record::kLaunchEnd:
        read_launch_end(launch_of(r, "the end"), r, path);
        break;
      case Record::kSpecialOps: {
        const uint32_t count = r.get<uint32_t>();
        for (uint32_t k = 0; k < count; ++k) {
          const uint64_t pc = r.get<uint64_t>();
          t.float_ops[pc].special_ops = r.get<uint32_t>();
        }
        break;
      }
      case Record::kInstructions: {
        const uint32_t count = r.get<uint32_t>();
        for (uint32_t k = 0; k < count; ++k) {
          const uint64_t pc = r.get<uint64_t>();
          FloatOps& ops = t.float_ops[pc];
          ops.instructions = r.get<uint32_t>();
          ops.double_calls = r.get<uint32_t>();
        }
        break;
      }
      case Record::kChains:
        read_chains(r, t);
        break;
      case Record::kBranchTargets:
        read_branch_targets(launch_of(r, "branch targets"), r);
        break;
      case Record::kConstantReads:
        read_constant_reads(launch_of(r, "constant reads"), r);
        break;
      case Record::kUnrolledLoops: {
        const uint32_t count = r.get<uint32_t>();
        for (uint32_t k = 0; k < count; ++k) {
          const uint64_t first = r.get<uint64_t>();
          t.unrolled_loops.emplace_back(first, r.get<uint64_t>());
        }
        break;
      }
      case Record::kUses: {
        Launch& l = launch_of(r, "its uses");
        l.uses = r.get<uint32_t>();
        break;
      }
      case Record::kSample: {
        Launch& l = launch_of(r, "the sample");
        const uint32_t count = r.get<uint32_t>();
        l.sampled = true;
        if (count > l.grid.count())
          throw TraceError(path + " is corrupt: launch " + std::to_string(l.id) +
                           " has a sample of " + std::to_string(count) + " blocks");
        l.sample.resize(count);
        for (uint32_t& b : l.sample) {
          b = r.get<uint32_t>();
          if (b >= l.grid.count())
            throw TraceError(path + " is corrupt: launch " + std::to_string(l.id) +
                             " samples a block outside its grid");
        }
        break;
      }
      case Record::kSite: {
        const uint64_t pc = r.get<uint64_t>();
        Site s;
        s.file = r.str();
        s.line = r.get<uint32_t>();
        t.sites[pc] = s;
        break;
      }
      case Record::kNote:
        t.notes.push_back(r.str());
        break;
      case Record::kEnd:
        ended = true;
        break;
      case Record::kFinding: {
        Launch& l = launch_of(r, "findings");
        const std::string text = r.str();
        FindingFields fields;
        if (!finding_fields(nlohmann::json::parse(text, nullptr, false), &fields))
          throw TraceError(path + " is corrupt: a finding of launch " + std::to_string(l.id) +
                           " is not a JSON object");
        l.findings.push_back(finding_of(fields, l));
        break;
      }
      case Record::kRequests:
        read_requests(launch_of(r, "requests"), r, path, &t);
        break;
      case Record::kWarpSteps: {
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
      case Record::kFloatOps: {
        const uint32_t count = r.get<uint32_t>();
        for (uint32_t k = 0; k < count; ++k) {
          const uint64_t pc = r.get<uint64_t>();
          FloatOps& ops = t.float_ops[pc];
          ops.single_ops = r.get<uint32_t>();
          ops.double_ops = r.get<uint32_t>();
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
