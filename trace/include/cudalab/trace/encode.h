// Writing a trace: records with their checksums, and a warp's request with
// its lanes' addresses in the smallest encoding that holds them. The
// simulator's trace writer (simulator/src/traces/trace.cpp) is built on these.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cudalab/trace/format.h"

namespace cudalab::trace {

// A record's payload: little-endian values appended in order.
class Payload {
 public:
  Payload& u8(uint8_t v) { return raw(&v, 1); }
  Payload& u16(uint16_t v) { return raw(&v, 2); }
  Payload& u32(uint32_t v) { return raw(&v, 4); }
  Payload& u64(uint64_t v) { return raw(&v, 8); }
  // A u16 length, then the bytes (cut at 65,535).
  Payload& str(const std::string& s);
  Payload& raw(const void* p, size_t n) {
    bytes.insert(bytes.end(), static_cast<const char*>(p), static_cast<const char*>(p) + n);
    return *this;
  }
  std::vector<char> bytes;
};

// The file's first 16 bytes.
std::array<char, kFileHeaderBytes> file_header();

// Appends a whole record (header, checksum, payload) to out.
void append_record(std::vector<char>& out, Record type, const Payload& p);

// A record built in place: begin_record appends its header, the payload is
// appended to out after it, and finish_record fills in the length and
// checksum. Returns where the record starts.
size_t begin_record(std::vector<char>& out, Record type);
void finish_record(std::vector<char>& out, size_t at);

// One lane's memory access, as the writer keeps it until its warp's
// request is written.
struct LaneAccess {
  uint64_t pc;
  uint64_t offset;
  uint32_t alloc;
  uint8_t size;
  uint8_t kind;  // 0 read, 1 write, 2 atomic
};

// Appends one request (a warp's lanes `mask` that ran one instruction
// together; lane[l] for each of them) to a requests record's payload.
void encode_request(std::vector<char>& out, uint16_t warp, const LaneAccess* const* lane,
                    uint32_t mask);

}  // namespace cudalab::trace
