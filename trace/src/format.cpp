// What the writer and the reader of a trace both need: record names, the
// size of each lane encoding, and the records' checksum.
#include "cudalab/trace/format.h"

namespace cudalab::trace {

std::string_view record_name(uint8_t type) {
  for (const RecordName& r : kRecordNames)
    if (uint8_t(r.type) == type) return r.name;
  return "unknown";
}

long lane_bytes(uint8_t encoding, int others) {
  switch (LaneEncoding(encoding)) {
    case LaneEncoding::kPattern:
      return 9;  // u8 log2 W, i32 sx, i32 sy, whatever the number of lanes
    case LaneEncoding::kDeltas8:
      return others;
    case LaneEncoding::kDeltas16:
      return 2L * others;
    case LaneEncoding::kDeltas32:
      return 4L * others;
    case LaneEncoding::kEach:
      return 12L * others;
  }
  return -1;
}

namespace {
// The reflected CRC-32 table, built at compile time.
constexpr std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<uint32_t, 256> kTable = make_table();
}  // namespace

uint32_t crc32(const void* data, size_t n, uint32_t crc) {
  const auto* p = static_cast<const unsigned char*>(data);
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) crc = kTable[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

uint32_t record_crc(const char* record_header, const char* payload, uint32_t length) {
  return crc32(payload, length, crc32(record_header, 5));
}

}  // namespace cudalab::trace
