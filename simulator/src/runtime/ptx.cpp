// The parts of inline PTX's semantics (cudalab/detail/ptx.h) that need the
// runtime (special registers) or are too long for the header.
#include "cudalab/detail/ptx.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cudalab/kernel_language.h"
#include "grid/grid.h"
#include "runtime/device.h"

namespace cudalab::ptx {
namespace {
uint32_t linear_thread() {
  const auto* t = rt::tl_thread;
  return t ? t->linear : 0;
}
}  // namespace

void vector_move(volatile void* p, void* data, unsigned bytes, bool store) {
  void* at = const_cast<void*>(p);
  // Up to eight bytes: one hardware atomic of that size (the address is a
  // multiple of it, ptx::aligned checked).
  auto move = [&](auto word) {
    using W = decltype(word);
    if (store) {
      std::memcpy(&word, data, sizeof(W));
      __atomic_store_n(static_cast<W*>(at), word, __ATOMIC_SEQ_CST);
    } else {
      word = __atomic_load_n(static_cast<W*>(at), __ATOMIC_SEQ_CST);
      std::memcpy(data, &word, sizeof(W));
    }
  };
  switch (bytes) {
    case 2:
      return move(uint16_t{});
    case 4:
      return move(uint32_t{});
    case 8:
      return move(uint64_t{});
    default:
      break;
  }
  // Wider: under one of a few locks chosen by the address, which every
  // vector access of that size to the same address takes.
  static std::atomic_flag locks[64];
  std::atomic_flag& lock = locks[(reinterpret_cast<uintptr_t>(at) >> 4) % 64];
  while (lock.test_and_set(std::memory_order_acquire)) {
  }
  if (store)
    std::memcpy(at, data, bytes);
  else
    std::memcpy(data, at, bytes);
  lock.clear(std::memory_order_release);
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

unsigned laneid() { return detail::lane_id(); }
unsigned warpid() { return linear_thread() / 32; }
unsigned nwarpid() { return 64; }  // an H100 SM's warp slots
unsigned smid() {
  // Blocks spread over the SMs in turn, as a GPU's first wave does.
  const auto* b = rt::tl_block;
  return b ? b->linear % unsigned(rt::device_properties().multiProcessorCount) : 0;
}
unsigned nsmid() { return unsigned(rt::device_properties().multiProcessorCount); }
unsigned long long gridid() {
  const auto* b = rt::tl_block;
  return b && b->launch ? b->launch->id : 0;
}
unsigned lanemask(int which) {
  const unsigned lane = laneid(), bit = 1u << lane;
  switch (which) {
    case 0:
      return bit;
    case 1:
      return bit - 1;
    case 2:
      return (bit - 1) | bit;
    case 3:
      return ~((bit - 1) | bit);
    default:
      return ~(bit - 1);
  }
}
unsigned clock32() { return unsigned(::clock64()); }
unsigned long long clock64() { return static_cast<unsigned long long>(::clock64()); }
unsigned long long globaltimer() {
  return static_cast<unsigned long long>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                             std::chrono::system_clock::now().time_since_epoch())
                                             .count());
}
unsigned dynamic_smem_size() {
  const auto* b = rt::tl_block;
  return b && b->launch ? unsigned(b->launch->shmem) : 0;
}
unsigned index_register(int which, int axis) {
  const uint3 t = threadIdx, c = blockIdx;
  const dim3 nt = blockDim, nc = gridDim;
  const unsigned v[4][3] = {
      {t.x, t.y, t.z}, {nt.x, nt.y, nt.z}, {c.x, c.y, c.z}, {nc.x, nc.y, nc.z}};
  return v[which & 3][std::clamp(axis, 0, 2)];
}

uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, int mode) {
  const uint64_t bytes = (uint64_t(b) << 32) | a;
  auto byte = [&](unsigned i) { return uint32_t((bytes >> (8 * (i & 7))) & 0xff); };
  uint32_t r = 0;
  if (mode == 0) {
    for (int i = 0; i < 4; ++i) {
      const unsigned sel = (c >> (4 * i)) & 0xf;
      uint32_t v = byte(sel & 7);
      if (sel & 8) v = (v & 0x80) ? 0xff : 0;  // the byte's sign, replicated
      r |= v << (8 * i);
    }
    return r;
  }
  // The other modes: d.b0..d.b3 as byte indices, for each value of c[1:0].
  static const unsigned char kTable[6][4][4] = {
      {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},  // f4e
      {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},  // b4e
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},  // rc8
      {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},  // ecl
      {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},  // ecr
      {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},  // rc16
  };
  const auto& row = kTable[std::clamp(mode - 1, 0, 5)][c & 3];
  for (int i = 0; i < 4; ++i) r |= byte(row[i]) << (8 * i);
  return r;
}

uint32_t shf(uint32_t a, uint32_t b, uint32_t n, bool left, bool clamp) {
  n = clamp ? std::min(n, 32u) : (n & 31);
  const uint64_t both = (uint64_t(b) << 32) | a;
  return left ? uint32_t((both << n) >> 32) : uint32_t(both >> n);
}

namespace {
// The arithmetic the video instructions share (not the shifts).
int64_t video_arithmetic(VideoOp op, int64_t x, int64_t y) {
  switch (op) {
    case kVAbsdiff:
      return x > y ? x - y : y - x;
    case kVAdd:
      return x + y;
    case kVSub:
      return x - y;
    case kVMin:
      return std::min(x, y);
    default:
      return std::max(x, y);
  }
}
}  // namespace

uint32_t video4(VideoOp op, uint32_t a, uint32_t b, uint32_t c, bool is_signed, bool sat,
                int second) {
  auto lane = [&](uint32_t v, int i) {
    const uint32_t byte = (v >> (8 * i)) & 0xff;
    return is_signed ? int32_t(int8_t(byte)) : int32_t(byte);
  };
  uint32_t sum = c;  // .add wraps at 32 bits, as a register does
  uint32_t packed = 0;
  for (int i = 0; i < 4; ++i) {
    int32_t r = int32_t(video_arithmetic(op, lane(a, i), lane(b, i)));
    if (second == 1) {
      sum += uint32_t(r);
      continue;
    }
    if (second == 2) r = std::min(r, lane(c, i));
    if (second == 3) r = std::max(r, lane(c, i));
    if (sat) r = is_signed ? std::clamp(r, -128, 127) : std::clamp(r, 0, 255);
    packed |= (uint32_t(r) & 0xff) << (8 * i);
  }
  return second == 1 ? sum : packed;
}

void misaligned(const char* instruction, uintptr_t address, unsigned bytes) {
  char where[32];
  std::snprintf(where, sizeof where, "0x%llx", static_cast<unsigned long long>(address));
  rt::stop_thread(
      cudaErrorMisalignedAddress,
      std::string("inline PTX `") + instruction + "` accesses " + std::to_string(bytes) +
          " bytes at " + where + ", which is not a multiple of " + std::to_string(bytes) +
          " (a misaligned address: a GPU stops the kernel with cudaErrorMisalignedAddress)");
}

ShuffleSource shuffle_source(int mode, uint32_t b, uint32_t c) {
  const int lane = int(laneid());
  const int segmask = int((c >> 8) & 0x1f), clamp = int(c & 0x1f);
  const int max_lane = (lane & segmask) | (clamp & ~segmask);
  const int min_lane = lane & segmask;
  int j = 0;
  bool in_range = false;
  switch (mode) {
    case 0:  // up: the clamp is the lowest lane
      j = lane - int(b & 0x1f);
      in_range = j >= max_lane;
      break;
    case 1:  // down
      j = lane + int(b & 0x1f);
      in_range = j <= max_lane;
      break;
    case 2:  // bfly
      j = lane ^ int(b & 0x1f);
      in_range = j <= max_lane;
      break;
    default:  // idx
      j = min_lane | (int(b & 0x1f) & ~segmask);
      in_range = j <= max_lane;
      break;
  }
  return {in_range ? j : lane, in_range};
}

uint32_t video1(VideoOp op, uint32_t a, uint32_t b, uint32_t c, bool d_signed, bool a_signed,
                bool b_signed, bool sat, int second, bool clamp) {
  int64_t r = 0;
  if (op == kVShl || op == kVShr) {
    const uint32_t n = clamp ? std::min(b, 32u) : (b & 31);
    if (op == kVShl)
      r = n >= 32 ? 0 : int64_t(a << n);
    else if (a_signed)
      r = int64_t(int32_t(a)) >> std::min(n, 31u);
    else
      r = n >= 32 ? 0 : int64_t(a >> n);
    if (op == kVShl && d_signed) r = int32_t(uint32_t(r));
  } else {
    r = video_arithmetic(op, a_signed ? int64_t(int32_t(a)) : int64_t(a),
                         b_signed ? int64_t(int32_t(b)) : int64_t(b));
  }
  const int64_t z = d_signed ? int64_t(int32_t(c)) : int64_t(c);
  if (second == 1) r += z;
  if (second == 2) r = std::min(r, z);
  if (second == 3) r = std::max(r, z);
  if (sat)
    r = d_signed ? std::clamp<int64_t>(r, INT32_MIN, INT32_MAX)
                 : std::clamp<int64_t>(r, 0, UINT32_MAX);
  return uint32_t(r);
}

void not_run(const char* what) {
  rt::stop_thread(cudaErrorNotSupported, std::string("inline PTX in a library header: ") + what +
                                             " (the simulator does not run this instruction)");
}
}  // namespace cudalab::ptx
