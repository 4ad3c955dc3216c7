// SipHash-2-4 (Aumasson and Bernstein): four 64-bit words of state from the
// key, two rounds per 8-byte word of the message, four to finish.
#include "cudalab/trace/report_key.h"

#include <cstdio>

namespace cudalab::trace {

namespace {

uint64_t rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

uint64_t little_endian(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

struct State {
  uint64_t v0, v1, v2, v3;
  void round() {
    v0 += v1;
    v1 = rotl(v1, 13);
    v1 ^= v0;
    v0 = rotl(v0, 32);
    v2 += v3;
    v3 = rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl(v1, 17);
    v1 ^= v2;
    v2 = rotl(v2, 32);
  }
  void absorb(uint64_t m) {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
};

}  // namespace

bool parse_report_key(const std::string& text, ReportKey* key) {
  if (text.size() != 32) return false;
  for (size_t i = 0; i < 16; ++i) {
    unsigned byte = 0;
    for (int h = 0; h < 2; ++h) {
      const char c = text[2 * i + h];
      const int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
      if (d < 0) return false;
      byte = byte * 16 + unsigned(d);
    }
    (*key)[i] = uint8_t(byte);
  }
  return true;
}

std::string report_key_text(const ReportKey& key) {
  std::string s;
  char h[3];
  for (uint8_t b : key) {
    std::snprintf(h, sizeof(h), "%02x", b);
    s += h;
  }
  return s;
}

std::string report_mac(const ReportKey& key, const std::string& data) {
  const uint64_t k0 = little_endian(key.data(), 8), k1 = little_endian(key.data() + 8, 8);
  State s{k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull, k0 ^ 0x6c7967656e657261ull,
          k1 ^ 0x7465646279746573ull};
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  const size_t n = data.size(), whole = n - n % 8;
  for (size_t i = 0; i < whole; i += 8) s.absorb(little_endian(p + i, 8));
  s.absorb((uint64_t(n & 0xff) << 56) | little_endian(p + whole, n - whole));
  s.v2 ^= 0xff;
  for (int i = 0; i < 4; ++i) s.round();
  char out[17];
  std::snprintf(out, sizeof(out), "%016llx",
                static_cast<unsigned long long>(s.v0 ^ s.v1 ^ s.v2 ^ s.v3));
  return out;
}

}  // namespace cudalab::trace
