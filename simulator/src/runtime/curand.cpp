// cuRAND's jumps ahead. XORWOW's step is linear over GF(2) on its 160 state
// bits, so n steps are a 160x160 bit matrix raised to the n-th power; a
// subsequence is 2^67 steps. MRG32k3a's two components are linear modulo m1
// and m2, so their jumps are 3x3 matrix powers. The matrices are built once,
// by squaring the one-step matrix, and a thread's last jump is remembered:
// curand_init(seed, thread_id, 0) over consecutive threads costs one matrix
// application each, not a power.
#include <array>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "curand_kernel.h"

namespace cudalab::detail::curand {
namespace {

// ---- XORWOW over GF(2) -----------------------------------------------------------------------
using Bits = std::array<uint32_t, 5>;

// A linear map on 160 bits, as the images of the 160 basis vectors.
struct BitMatrix {
  std::array<Bits, 160> column{};

  Bits apply(const Bits& v) const {
    Bits r{};
    for (int word = 0; word < 5; ++word) {
      uint32_t w = v[word];
      while (w) {
        const int bit = __builtin_ctz(w);
        w &= w - 1;
        const Bits& c = column[word * 32 + bit];
        for (int k = 0; k < 5; ++k) r[k] ^= c[k];
      }
    }
    return r;
  }
  BitMatrix squared() const {
    BitMatrix m;
    for (int i = 0; i < 160; ++i) m.column[i] = apply(column[i]);
    return m;
  }
};

Bits xorwow_step(Bits v) {
  const uint32_t t = v[0] ^ (v[0] >> 2);
  v[0] = v[1];
  v[1] = v[2];
  v[2] = v[3];
  v[3] = v[4];
  v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
  return v;
}

// A matrix applied a byte at a time: 20 table lookups instead of 160 bits.
struct ByteTables {
  std::vector<Bits> entry = std::vector<Bits>(20 * 256);
  explicit ByteTables(const BitMatrix& m) {
    for (int byte = 0; byte < 20; ++byte)
      for (int value = 0; value < 256; ++value) {
        Bits r{};
        for (int bit = 0; bit < 8; ++bit)
          if ((value >> bit) & 1)
            for (int k = 0; k < 5; ++k) r[k] ^= m.column[byte * 8 + bit][k];
        entry[size_t(byte) * 256 + size_t(value)] = r;
      }
  }
  Bits apply(const Bits& v) const {
    Bits r{};
    for (int byte = 0; byte < 20; ++byte) {
      const Bits& e = entry[size_t(byte) * 256 + ((v[byte / 4] >> (8 * (byte % 4))) & 0xff)];
      for (int k = 0; k < 5; ++k) r[k] ^= e[k];
    }
    return r;
  }
};

struct XorwowJumps {
  std::vector<BitMatrix> step_pow;  // M^(2^i), i < 64: n steps
  std::vector<BitMatrix> sub_pow;   // M^(2^(67+i)), i < 64: n subsequences
  std::unique_ptr<ByteTables> one_subsequence;
  XorwowJumps() {
    BitMatrix m;
    for (int i = 0; i < 160; ++i) {
      Bits e{};
      e[i / 32] = 1u << (i % 32);
      m.column[i] = xorwow_step(e);
    }
    for (int i = 0; i < 64; ++i) {
      step_pow.push_back(m);
      m = m.squared();
    }
    for (int i = 64; i < 67; ++i) m = m.squared();  // m = M^(2^67)
    for (int i = 0; i < 64; ++i) {
      sub_pow.push_back(m);
      m = m.squared();
    }
    one_subsequence = std::make_unique<ByteTables>(sub_pow[0]);
  }
};

const XorwowJumps& xorwow_jumps() {
  static const XorwowJumps jumps;
  return jumps;
}

Bits jump(const std::vector<BitMatrix>& powers, Bits v, unsigned long long n) {
  for (int i = 0; n; ++i, n >>= 1)
    if (n & 1) v = powers[size_t(i)].apply(v);
  return v;
}

// The last subsequence jump this OS thread made.
struct LastJump {
  bool valid = false;
  Bits start{}, result{};
  unsigned long long subsequence = 0;
};
thread_local LastJump tl_last;

// ---- MRG32k3a modulo m1 and m2 ---------------------------------------------------------------
using Mat3 = std::array<std::array<uint64_t, 3>, 3>;

Mat3 multiply(const Mat3& a, const Mat3& b, uint64_t m) {
  Mat3 r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      unsigned __int128 sum = 0;
      for (int k = 0; k < 3; ++k) sum += (unsigned __int128)a[i][k] * b[k][j];
      r[i][j] = uint64_t(sum % m);
    }
  return r;
}

struct MrgJumps {
  // [component][kind][i]: the one-step matrix to the power 2^(offset(kind) + i)
  std::vector<Mat3> powers[2][3];
  MrgJumps() {
    const uint64_t m1 = kMrgM1, m2 = kMrgM2;
    // New state (s0, s1, s2) -> (s1, s2, a*s... ) as column-vector maps.
    Mat3 a1{{{0, 1, 0}, {0, 0, 1}, {m1 - 810728u, 1403580u, 0}}};
    Mat3 a2{{{0, 1, 0}, {0, 0, 1}, {m2 - 1370589u, 0, 527612u}}};
    const uint64_t mod[2] = {m1, m2};
    Mat3 base[2] = {a1, a2};
    for (int c = 0; c < 2; ++c) {
      Mat3 p = base[c];
      for (int e = 0; e < 191; ++e) {
        if (e < 64) powers[c][0].push_back(p);
        if (e >= 76 && e < 76 + 64) powers[c][1].push_back(p);
        if (e >= 127 && e < 127 + 64) powers[c][2].push_back(p);
        p = multiply(p, p, mod[c]);
      }
    }
  }
};

const MrgJumps& mrg_jumps() {
  static const MrgJumps jumps;
  return jumps;
}

void apply3(const Mat3& a, uint32_t s[3], uint64_t m) {
  uint64_t r[3];
  for (int i = 0; i < 3; ++i) {
    unsigned __int128 sum = 0;
    for (int k = 0; k < 3; ++k) sum += (unsigned __int128)a[i][k] * s[k];
    r[i] = uint64_t(sum % m);
  }
  for (int i = 0; i < 3; ++i) s[i] = uint32_t(r[i]);
}

}  // namespace

void xorwow_skip(uint32_t v[5], unsigned long long n) {
  if (!n) return;
  Bits b;
  std::memcpy(b.data(), v, sizeof(b));
  b = jump(xorwow_jumps().step_pow, b, n);
  std::memcpy(v, b.data(), sizeof(b));
}

void xorwow_skip_subsequences(uint32_t v[5], unsigned long long n) {
  if (!n) return;
  const XorwowJumps& j = xorwow_jumps();
  Bits start;
  std::memcpy(start.data(), v, sizeof(start));
  Bits result;
  LastJump& last = tl_last;
  if (last.valid && last.start == start && n >= last.subsequence) {
    // Go on from the last jump of the same seed: usually one subsequence on.
    result = last.result;
    const unsigned long long more = n - last.subsequence;
    if (more == 1)
      result = j.one_subsequence->apply(result);
    else
      result = jump(j.sub_pow, result, more);
  } else {
    result = jump(j.sub_pow, start, n);
  }
  last = {true, start, result, n};
  std::memcpy(v, result.data(), sizeof(result));
}

void mrg_skip(uint32_t s1[3], uint32_t s2[3], unsigned long long n, int kind) {
  if (kind == 1) n &= (1ull << 51) - 1;  // cuRAND masks subsequences to 51 bits
  if (kind == 2) n &= (1ull << 63) - 1;
  const MrgJumps& j = mrg_jumps();
  for (int i = 0; n; ++i, n >>= 1) {
    if (!(n & 1)) continue;
    apply3(j.powers[0][kind][size_t(i)], s1, kMrgM1);
    apply3(j.powers[1][kind][size_t(i)], s2, kMrgM2);
  }
}

}  // namespace cudalab::detail::curand
