// Reading a cudalab trace (docs/trace-format.md). The visualizer knows the
// simulator only through this file format, so a trace recorded on a grading
// machine opens anywhere.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudalab::trace {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
};

struct Allocation {
  uint32_t id = 0;
  uint64_t base = 0;
  uint64_t size = 0;
  std::string site;  // where cudaMalloc was called, "file.cu:31"
  std::string name;  // the variable it filled ("d_a"), "" when not known
  bool freed = false;
};

struct Access {
  uint32_t block = 0;   // linear block index in the grid
  uint32_t thread = 0;  // linear thread index in the block
  uint32_t allocation = 0;
  uint64_t offset = 0;  // bytes from the allocation's start
  uint64_t pc = 0;      // code address; sites maps it to a source line
  uint8_t size = 0;
  bool write = false;  // a store, or an atomic
  bool atomic = false;
  // Shared memory (version 2): allocation kStaticShared or kDynamicShared,
  // offset from the start of the block's static or dynamic shared memory.
  bool shared() const { return allocation == kStaticShared || allocation == kDynamicShared; }
  static constexpr uint32_t kStaticShared = 0, kDynamicShared = 0xffffffffu;
};

// A check's finding (CUDALAB_CHECK), as the run reported it.
struct Finding {
  std::string tool, kind, where, message;
  uint64_t count = 1;
};

struct Launch {
  uint32_t id = 0;
  std::string kernel, file;
  uint32_t line = 0;
  Dim3 grid, block;
  uint64_t shared_bytes = 0;
  std::vector<Access> accesses;
  bool ended = false;
  bool faulted = false;
  uint64_t idle_threads = 0;
  std::vector<Finding> findings;
};

struct Site {
  std::string file;
  uint32_t line = 0;
};

struct Trace {
  uint32_t version = 0;
  std::string program;
  std::vector<Allocation> allocations;
  std::vector<Launch> launches;
  std::map<uint64_t, Site> sites;
  std::vector<std::string> notes;
  uint64_t accesses_total = 0;

  const Allocation* allocation(uint32_t id) const;
  // "vector_add.cu:12" for an access's code address, "?" when unknown.
  std::string where(uint64_t pc) const;
};

class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

constexpr uint32_t kTraceVersion = 2;  // reads 1 and 2

// Throws TraceError with a message that names the problem and the way out.
Trace read_trace(const std::string& path);

// Block and thread coordinates from linear indices.
Dim3 unflatten(uint32_t linear, const Dim3& dims);

}  // namespace cudalab::trace
