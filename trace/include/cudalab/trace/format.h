// The cudalab trace format (docs/trace-format.md): its version, record
// types, lane encodings and checksum, in one place for the writer (the
// simulator) and the reader (the cudalab command and the viewer).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace cudalab::trace {

// Version 4 added a checksum to every record; 3 was the first with requests.
constexpr uint32_t kTraceVersion = 5;
// Version 4 is read too: it had no stray accesses and no faulting thread.
constexpr uint32_t kOldestReadableVersion = 4;
// 8 bytes of magic (the last is 0), u32 version, u32 flags.
constexpr char kMagic[8] = {'C', 'L', 'T', 'R', 'A', 'C', 'E', '\0'};
constexpr size_t kFileHeaderBytes = 16;
// Before each record's payload: u8 type, u32 payload length, u32 CRC-32 of
// the payload.
constexpr size_t kRecordHeaderBytes = 9;

enum class Record : uint8_t {
  kProgram = 1,
  kAllocation = 2,
  kFree = 3,
  kLaunch = 4,
  // 5 was a single access (versions 1 and 2)
  kLaunchEnd = 6,
  kSite = 7,
  kNote = 8,
  kEnd = 9,
  kFinding = 10,
  kRequests = 11,
  kWarpSteps = 12,
  kFloatOps = 13,
  kSample = 14,
  kUses = 15,
  kSpecialOps = 16,
  kInstructions = 17,
  kUnrolledLoops = 18,
  kChains = 19,
  kBranchTargets = 20,
  kConstantReads = 21,
};

// What a launch used that a prediction of its time leaves out (the uses
// record's bits).
constexpr uint32_t kUsesTensorCores = 1, kUsesTextures = 2, kUsesChildLaunches = 4,
                   kUsesStreams = 8;

// Each record type's name, as docs/trace-format.md's table has it (a test
// holds the two together).
struct RecordName {
  Record type;
  std::string_view name;
};
constexpr std::array<RecordName, 20> kRecordNames = {{
    {Record::kProgram, "program"},
    {Record::kAllocation, "allocation"},
    {Record::kFree, "free"},
    {Record::kLaunch, "launch"},
    {Record::kLaunchEnd, "launch end"},
    {Record::kSite, "site"},
    {Record::kNote, "note"},
    {Record::kEnd, "end"},
    {Record::kFinding, "finding"},
    {Record::kRequests, "requests"},
    {Record::kWarpSteps, "warp steps"},
    {Record::kFloatOps, "float ops"},
    {Record::kSample, "sample"},
    {Record::kUses, "uses"},
    {Record::kSpecialOps, "special ops"},
    {Record::kInstructions, "instructions"},
    {Record::kUnrolledLoops, "unrolled loops"},
    {Record::kChains, "chains"},
    {Record::kBranchTargets, "branch targets"},
    {Record::kConstantReads, "constant reads"},
}};

// "requests" for kRequests; "record 42" for a type this version lacks.
std::string_view record_name(uint8_t type);

// How a request's other active lanes are written.
enum class LaneEncoding : uint8_t {
  kPattern = 0,  // offset(l) = base + (l % W - f % W) * sx + (l / W - f / W) * sy
  kDeltas8 = 1,  // one signed byte per lane: offset - base
  kDeltas16 = 2,
  kDeltas32 = 3,
  kEach = 4,  // per lane: u32 allocation, u64 offset
};

// Bytes the other lanes (`others` of them) take after the encoding byte;
// -1 for an encoding this version does not know.
long lane_bytes(uint8_t encoding, int others);

// Allocation ids of a block's shared memory in requests.
constexpr uint32_t kStaticSharedId = 0, kDynamicSharedId = 0xffffffffu;
// An access that hit no buffer and none near (a null or wild pointer): its
// offset is the address itself.
constexpr uint32_t kNoBufferId = 0xfffffffeu;

// Bytes of a request before its encoded lanes: u64 pc, u16 warp, u8 kind,
// u8 size, u32 active lanes, u32 allocation, u64 offset, u8 encoding.
constexpr size_t kRequestHeadBytes = 29;
// A requests record's payload before its requests: u32 launch, u32 block,
// u32 phase, u64 barrier, u32 count (at kRequestsCountAt).
constexpr size_t kRequestsHeadBytes = 24;
constexpr size_t kRequestsCountAt = 20;

// CRC-32 (the polynomial of zlib and PNG) of n bytes, continuing from crc.
uint32_t crc32(const void* data, size_t n, uint32_t crc = 0);

// A record's checksum: the CRC-32 of its type byte and length (the first 5
// bytes of its header) followed by its payload, so that a changed type or
// length is caught as surely as a changed payload byte.
uint32_t record_crc(const char* record_header, const char* payload, uint32_t length);

}  // namespace cudalab::trace
