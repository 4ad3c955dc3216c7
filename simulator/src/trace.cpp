// The trace writer: CUDALAB_TRACE=FILE records every launch, allocation and
// global-memory access of the run in the format docs/trace-format.md
// describes. Records go to the file as each launch ends, so a run that dies
// leaves what it had done, and a trace without its END record tells the
// reader it was cut short.
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "internal.h"

namespace cudalab::rt {
namespace {

constexpr uint32_t kVersion = 2;
enum RecordType : uint8_t {
  kProgram = 1,
  kAlloc = 2,
  kFree = 3,
  kLaunch = 4,
  kAccesses = 5,
  kLaunchEnd = 6,
  kSite = 7,
  kNote = 8,
  kEnd = 9,
  kFinding = 10,
};

#pragma pack(push, 1)
struct AccessRecord {
  uint32_t block;
  uint32_t thread;
  uint32_t alloc;
  uint64_t offset;
  uint64_t pc;
  uint8_t size;
  uint8_t kind;  // 0 read, 1 write, 2 atomic
};
#pragma pack(pop)
static_assert(sizeof(AccessRecord) == 30);

class Payload {
 public:
  Payload& u8(uint8_t v) { return raw(&v, 1); }
  Payload& u32(uint32_t v) { return raw(&v, 4); }
  Payload& u64(uint64_t v) { return raw(&v, 8); }
  Payload& str(const std::string& s) {
    const uint16_t n = static_cast<uint16_t>(std::min<size_t>(s.size(), 65535));
    raw(&n, 2);
    return raw(s.data(), n);
  }
  Payload& raw(const void* p, size_t n) {
    bytes.insert(bytes.end(), static_cast<const char*>(p), static_cast<const char*>(p) + n);
    return *this;
  }
  std::vector<char> bytes;
};

struct WorkerBuffer {
  std::vector<AccessRecord> records;
};

class TraceWriter {
 public:
  TraceWriter() {
    const char* path = std::getenv("CUDALAB_TRACE");
    if (!path || !*path) return;
    path_ = path;
    file_ = std::fopen(path, "wb");
    if (!file_) {
      std::fprintf(stderr, "cudalab: cannot write the trace file %s: %s\n", path,
                   std::strerror(errno));
      std::exit(1);
    }
    if (!instrumented_build()) {
      std::fprintf(stderr,
                   "cudalab: this build records no memory accesses; the trace will "
                   "hold launches and allocations only\n");
    }
    if (const char* cap = std::getenv("CUDALAB_TRACE_MAX_ACCESSES")) {
      char* end = nullptr;
      unsigned long long v = std::strtoull(cap, &end, 10);
      if (end && *end == 0 && v > 0)
        cap_ = v;
      else
        std::fprintf(stderr,
                     "cudalab: CUDALAB_TRACE_MAX_ACCESSES=%s is not a positive "
                     "number; keeping %llu\n",
                     cap, (unsigned long long)cap_);
    }
    if (const char* blocks = std::getenv("CUDALAB_TRACE_BLOCKS"); blocks && *blocks) {
      if (!parse_blocks(blocks)) {
        std::fprintf(stderr,
                     "cudalab: CUDALAB_TRACE_BLOCKS=%s is not a list of blocks: give linear "
                     "block numbers and ranges, as in 0,5,10-12\n",
                     blocks);
        std::exit(2);
      }
    }
    std::fwrite("CLTRACE", 1, 8, file_);
    const uint32_t header[2] = {kVersion, 0};
    std::fwrite(header, 4, 2, file_);
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    std::string program = n > 0 ? std::string(exe, size_t(n)) : "";
    if (program.size() > 13 && program.substr(program.size() - 13) == ".instrumented")
      program.resize(program.size() - 13);
    write(kProgram, Payload().str(program));
    if (!blocks_.empty())
      write(kNote, Payload().str(std::string("only the accesses of blocks ") +
                                 std::getenv("CUDALAB_TRACE_BLOCKS") +
                                 " (linear numbers) are recorded (CUDALAB_TRACE_BLOCKS)"));
    std::atexit([] { writer().finish(); });
  }

  bool on() const { return file_ != nullptr; }

  void write(RecordType type, const Payload& p) {
    std::lock_guard lock(mutex_);
    if (!file_) return;
    const uint32_t n = static_cast<uint32_t>(p.bytes.size());
    std::fputc(type, file_);
    std::fwrite(&n, 4, 1, file_);
    std::fwrite(p.bytes.data(), 1, n, file_);
  }

  WorkerBuffer& buffer() {
    thread_local WorkerBuffer* mine = nullptr;
    if (!mine) {
      std::lock_guard lock(mutex_);
      buffers_.push_back(std::make_unique<WorkerBuffer>());
      mine = buffers_.back().get();
    }
    return *mine;
  }

  // CUDALAB_TRACE_BLOCKS: whether this block's accesses are recorded.
  bool records_block(uint32_t linear) const {
    if (blocks_.empty()) return true;
    for (const auto& [first, last] : blocks_)
      if (linear >= first && linear <= last) return true;
    return false;
  }

  bool room_for_one_more() {
    const uint64_t used = recorded_.fetch_add(1, std::memory_order_relaxed);
    if (used < cap_) return true;
    recorded_.fetch_sub(1, std::memory_order_relaxed);
    if (!capped_.exchange(true)) {
      std::fprintf(stderr,
                   "cudalab: the trace reached %llu accesses; recording of accesses "
                   "stops here (CUDALAB_TRACE_MAX_ACCESSES sets the limit)\n",
                   (unsigned long long)cap_);
      cap_note_pending_ = true;
    }
    return false;
  }

  // Writes one worker's buffered accesses (a worker calls it when its buffer
  // is full, the host after each launch), so a trace never holds more than a
  // few buffers in memory.
  void write_buffer(WorkerBuffer& b, uint32_t launch_id) {
    if (b.records.empty()) return;
    Payload p;
    p.u32(launch_id).u32(static_cast<uint32_t>(b.records.size()));
    p.raw(b.records.data(), b.records.size() * sizeof(AccessRecord));
    {
      std::lock_guard lock(mutex_);
      for (const AccessRecord& r : b.records) pcs_.insert(r.pc);
    }
    write(kAccesses, p);
    b.records.clear();
  }

  // Called on the host thread after a launch, when no worker records.
  void flush_accesses(uint32_t launch_id) {
    std::vector<WorkerBuffer*> all;
    {
      std::lock_guard lock(mutex_);
      for (auto& b : buffers_) all.push_back(b.get());
    }
    for (WorkerBuffer* b : all) write_buffer(*b, launch_id);
    if (cap_note_pending_) {
      cap_note_pending_ = false;
      write(kNote, Payload().str("access recording stopped at the limit of " +
                                 std::to_string(cap_) + " accesses"));
    }
  }

  void finish() {
    if (!file_) return;
    std::vector<uintptr_t> pcs(pcs_.begin(), pcs_.end()), before(pcs.size());
    // Each pc is a return address: the access is in the instruction before.
    for (size_t i = 0; i < pcs.size(); ++i) before[i] = pcs[i] ? pcs[i] - 1 : 0;
    auto lines = symbolize(before);
    for (size_t i = 0; i < pcs.size(); ++i) {
      std::string file;
      uint32_t line = 0;
      if (auto colon = lines[i].rfind(':'); colon != std::string::npos) {
        file = lines[i].substr(0, colon);
        line = static_cast<uint32_t>(std::strtoul(lines[i].c_str() + colon + 1, nullptr, 10));
      }
      write(kSite, Payload().u64(pcs[i]).str(file).u32(line));
    }
    write(kEnd, Payload().u64(recorded_.load()).u32(launches_));
    std::lock_guard lock(mutex_);
    std::fclose(file_);
    file_ = nullptr;
  }

  uint32_t launches_ = 0;

 private:
  friend TraceWriter& writer();
  std::string path_;
  FILE* file_ = nullptr;
  std::mutex mutex_;
  std::vector<std::unique_ptr<WorkerBuffer>> buffers_;
  std::set<uint64_t> pcs_;
  uint64_t cap_ = 20'000'000;
  std::atomic<uint64_t> recorded_{0};
  std::atomic<bool> capped_{false};
  std::vector<std::pair<uint32_t, uint32_t>> blocks_;  // inclusive ranges; empty: all

  // "0,5,10-12"
  bool parse_blocks(const std::string& text) {
    std::stringstream ss(text);
    for (std::string item; std::getline(ss, item, ',');) {
      const size_t dash = item.find('-');
      char* end = nullptr;
      errno = 0;
      const unsigned long first = std::strtoul(item.c_str(), &end, 10);
      if (errno || end == item.c_str() || (dash == std::string::npos ? *end != 0 : *end != '-'))
        return false;
      unsigned long last = first;
      if (dash != std::string::npos) {
        const char* from = item.c_str() + dash + 1;
        last = std::strtoul(from, &end, 10);
        if (errno || end == from || *end != 0 || last < first) return false;
      }
      if (last > UINT32_MAX) return false;
      blocks_.emplace_back(uint32_t(first), uint32_t(last));
    }
    return !blocks_.empty();
  }
  bool cap_note_pending_ = false;

 public:
  // Never destroyed: finish() runs from atexit, after static destructors
  // registered later would have run.
  static TraceWriter& writer() {
    static TraceWriter* w = new TraceWriter;
    return *w;
  }
};

TraceWriter& writer() { return TraceWriter::writer(); }

}  // namespace

bool tracing() { return writer().on(); }

namespace {
void record(uint32_t allocation, uint64_t offset, unsigned size, bool write, bool atomic,
            uintptr_t pc) {
  TraceWriter& w = writer();
  if (!w.records_block(tl_block->linear) || !w.room_for_one_more()) return;
  WorkerBuffer& b = w.buffer();
  b.records.push_back(AccessRecord{tl_block->linear, tl_thread->linear, allocation, offset, pc,
                                   uint8_t(size),
                                   uint8_t(atomic  ? 2
                                           : write ? 1
                                                   : 0)});
  constexpr size_t kBufferRecords = 1 << 16;  // about 2 MB
  if (b.records.size() >= kBufferRecords) w.write_buffer(b, tl_block->launch->id);
}
}  // namespace

void record_access_for_trace(const Allocation& a, uintptr_t address, unsigned size, bool write,
                             bool atomic, uintptr_t pc) {
  record(a.id, address - a.base, size, write, atomic, pc);
}

void record_shared_access_for_trace(bool dynamic, uint64_t offset, unsigned size, bool write,
                                    bool atomic, uintptr_t pc) {
  record(dynamic ? kDynamicSharedId : kStaticSharedId, offset, size, write, atomic, pc);
}

void trace_allocation(const Allocation& a) {
  if (!tracing()) return;
  writer().write(kAlloc, Payload().u32(a.id).u64(a.base).u64(a.size).str(a.site).str(a.name));
}

void trace_free(const Allocation& a) {
  if (!tracing()) return;
  writer().write(kFree, Payload().u32(a.id));
}

void trace_finding(const Launch& l, const std::string& json) {
  if (!tracing()) return;
  writer().write(kFinding, Payload().u32(l.id).str(json));
}

void trace_launch_begin(const Launch& l) {
  if (!tracing()) return;
  Payload p;
  p.u32(l.id).str(l.site.kernel).str(l.site.file).u32(uint32_t(l.site.line));
  p.u32(l.grid.x).u32(l.grid.y).u32(l.grid.z).u32(l.block.x).u32(l.block.y).u32(l.block.z);
  p.u64(l.shmem);
  writer().write(kLaunch, p);
}

void trace_launch_end(const Launch& l) {
  if (!tracing()) return;
  writer().flush_accesses(l.id);
  writer().launches_++;
  writer().write(kLaunchEnd,
                 Payload().u32(l.id).u8(l.faulted.load() ? 1 : 0).u64(l.idle_threads.load()));
}

}  // namespace cudalab::rt
