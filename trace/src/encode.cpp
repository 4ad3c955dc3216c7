// Writing a trace's records: their headers and checksums, and a request's
// lanes in the smallest encoding that holds them (docs/trace-format.md).
#include "cudalab/trace/encode.h"

#include <algorithm>
#include <climits>
#include <cstring>

namespace cudalab::trace {

Payload& Payload::str(const std::string& s) {
  const uint16_t n = static_cast<uint16_t>(std::min<size_t>(s.size(), 65535));
  raw(&n, 2);
  return raw(s.data(), n);
}

std::array<char, kFileHeaderBytes> file_header() {
  std::array<char, kFileHeaderBytes> h{};
  std::memcpy(h.data(), kMagic, 8);
  const uint32_t version = kTraceVersion, flags = 0;
  std::memcpy(h.data() + 8, &version, 4);
  std::memcpy(h.data() + 12, &flags, 4);
  return h;
}

size_t begin_record(std::vector<char>& out, Record type) {
  const size_t at = out.size();
  out.resize(at + kRecordHeaderBytes, 0);
  out[at] = char(type);
  return at;
}

void finish_record(std::vector<char>& out, size_t at) {
  const size_t payload = at + kRecordHeaderBytes;
  const uint32_t length = uint32_t(out.size() - payload);
  std::memcpy(out.data() + at + 1, &length, 4);
  const uint32_t crc = record_crc(out.data() + at, out.data() + payload, length);
  std::memcpy(out.data() + at + 5, &crc, 4);
}

void append_record(std::vector<char>& out, Record type, const Payload& p) {
  const size_t at = begin_record(out, type);
  out.insert(out.end(), p.bytes.begin(), p.bytes.end());
  finish_record(out, at);
}

namespace {
// Whether every active lane's offset fits base + (lane % W - f % W) * sx +
// (lane / W - f / W) * sy for one W (32: one stride; both 0: one address).
// The strides are read off a few lanes, then checked on all.
bool find_pattern(const int64_t* delta, uint32_t mask, uint32_t f, uint8_t& log_w, int32_t& sx,
                  int32_t& sy) {
  for (int lw = 5; lw >= 1; --lw) {
    const int64_t w = int64_t(1) << lw;
    auto dx = [&](uint32_t l) { return int64_t(l) % w - int64_t(f) % w; };
    auto dy = [&](uint32_t l) { return int64_t(l) / w - int64_t(f) / w; };
    int64_t x = 0, y = 0;
    for (uint32_t l = f + 1; l < 32; ++l)  // a lane in the first lane's row gives sx
      if ((mask >> l & 1) && dy(l) == 0) {
        x = delta[l] / dx(l);
        break;
      }
    for (uint32_t l = f + 1; l < 32; ++l)  // a lane in another row gives sy
      if ((mask >> l & 1) && dy(l) != 0) {
        y = (delta[l] - dx(l) * x) / dy(l);
        break;
      }
    bool ok = x >= INT32_MIN && x <= INT32_MAX && y >= INT32_MIN && y <= INT32_MAX;
    for (uint32_t l = f + 1; l < 32 && ok; ++l)
      if (mask >> l & 1) ok = delta[l] == dx(l) * x + dy(l) * y;
    if (!ok) continue;
    log_w = uint8_t(lw);
    sx = int32_t(x);
    sy = int32_t(y);
    return true;
  }
  return false;
}
}  // namespace

void encode_request(std::vector<char>& out, uint16_t warp, const LaneAccess* const* lane,
                    uint32_t mask) {
  const uint32_t f = uint32_t(__builtin_ctz(mask));
  const LaneAccess& a = *lane[f];
  Payload p;
  p.bytes.swap(out);
  p.u64(a.pc).u16(warp).u8(a.kind).u8(a.size).u32(mask).u32(a.alloc).u64(a.offset);
  bool one_allocation = true;
  int64_t delta[32] = {};
  int64_t most = 0;
  for (uint32_t l = f + 1; l < 32; ++l) {
    if (!(mask >> l & 1)) continue;
    if (lane[l]->alloc != a.alloc) one_allocation = false;
    delta[l] = int64_t(lane[l]->offset - a.offset);
    most = std::max(most, delta[l] < 0 ? -delta[l] : delta[l]);
  }
  uint8_t log_w = 0;
  int32_t sx = 0, sy = 0;
  if (!one_allocation || most > INT32_MAX) {
    p.u8(uint8_t(LaneEncoding::kEach));
    for (uint32_t l = f + 1; l < 32; ++l)
      if (mask >> l & 1) p.u32(lane[l]->alloc).u64(lane[l]->offset);
  } else if (find_pattern(delta, mask, f, log_w, sx, sy)) {
    p.u8(uint8_t(LaneEncoding::kPattern)).u8(log_w).u32(uint32_t(sx)).u32(uint32_t(sy));
  } else {
    const LaneEncoding e = most <= INT8_MAX    ? LaneEncoding::kDeltas8
                           : most <= INT16_MAX ? LaneEncoding::kDeltas16
                                               : LaneEncoding::kDeltas32;
    p.u8(uint8_t(e));
    for (uint32_t l = f + 1; l < 32; ++l) {
      if (!(mask >> l & 1)) continue;
      if (e == LaneEncoding::kDeltas8)
        p.u8(uint8_t(int8_t(delta[l])));
      else if (e == LaneEncoding::kDeltas16)
        p.u16(uint16_t(int16_t(delta[l])));
      else
        p.u32(uint32_t(int32_t(delta[l])));
    }
  }
  p.bytes.swap(out);
}

}  // namespace cudalab::trace
