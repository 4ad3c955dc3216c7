// racecheck and initcheck: shadow memory beside device and shared memory.
//
// Two accesses to one 4-byte word race when different threads of a launch
// make them, at least one writes, neither is atomic, and nothing orders
// them. Inside a block, a barrier orders everything before it against
// everything after it (each barrier starts a new "epoch"), and __syncwarp
// orders the lanes that meet at it. Threads of different blocks are never
// ordered within a launch (a cooperative grid sync aside). The simulator runs
// threads one after another, so a race never shows in the results: the
// shadow remembers who last wrote and read each word and when, and the
// later access finds the hazard whatever order the threads ran in.
//
// initcheck: a bit per byte says whether anything wrote it (a kernel, a
// copy, a memset) since cudaMalloc; for shared memory, since the block
// started.
#include "checks/shadow.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "checks/checks.h"
#include "grid/grid.h"
#include "runtime/allocations.h"
#include "runtime/device.h"

namespace cudalab::rt {

// Global memory, per 4-byte word: 64 bits for racecheck, the writer in the
// low half and the readers in the high half, each as a 21-bit code, the 7
// low bits of the epoch of the access and the 4 bytes of the word it
// touched. A writer's code is its global thread id + 1, wrapping at a
// multiple of the block size (two threads that share a code hide each
// other's races, never invent one); a reader's is a thread id + 1 below
// 2^20, or 2^20 + B for "several threads of block B", or kReadersOfBlocks.
// Then 16 bits: the code addresses of the two accesses (indexes into a
// table of 255), and 4 bits: which bytes anything wrote since cudaMalloc.
thread_local SharedRanges tl_shared;
constinit thread_local bool tl_pending_writes = false;

namespace {

constexpr uint32_t kCodeMask = (1u << 21) - 1;
constexpr uint32_t kReadersOfBlock = 1u << 20;
constexpr uint32_t kReadersOfBlocks = kCodeMask;
inline uint32_t code_of(uint32_t half) { return half & kCodeMask; }
inline uint32_t epoch_of(uint32_t half) { return (half >> 21) & 0x7fu; }
inline uint32_t bytes_of(uint32_t half) { return half >> 28; }
inline uint32_t half(uint32_t code, uint32_t epoch, uint32_t bytes) {
  return code | (epoch << 21) | (bytes << 28);
}
// A thread's code: its global id + 1, below `limit`, wrapping at a multiple
// of the block size so that a block's threads share its block number.
inline uint32_t thread_code(uint64_t id, uint32_t limit, uint32_t block_size) {
  return uint32_t(id % ((limit - 1) / block_size * block_size)) + 1;
}

template <class T>
inline T load(const T& v) {
  return __atomic_load_n(&v, __ATOMIC_RELAXED);
}
template <class T>
inline void store(T& v, T x) {
  __atomic_store_n(&v, x, __ATOMIC_RELAXED);
}

// Code addresses of global accesses, 255 of them at most (0: unknown).
std::mutex g_pc_mutex;
uintptr_t g_pcs[256];
uint32_t g_pc_count = 1;
uint32_t pc_index(uintptr_t pc) {
  thread_local uintptr_t cached_pc[256];
  thread_local uint8_t cached_index[256];
  const size_t h = (pc * 0x9e3779b97f4a7c15ull) >> 56;
  if (cached_pc[h] == pc) return cached_index[h];
  std::lock_guard lock(g_pc_mutex);
  uint32_t i = 1;
  while (i < g_pc_count && g_pcs[i] != pc) ++i;
  if (i == g_pc_count) {
    if (g_pc_count == 256) return 0;
    g_pcs[g_pc_count++] = pc;
  }
  cached_pc[h] = pc;
  cached_index[h] = uint8_t(i);
  return i;
}
uintptr_t pc_at(uint32_t index) {
  std::lock_guard lock(g_pc_mutex);
  return index && index < g_pc_count ? g_pcs[index] : 0;
}

uint3 unflatten(uint32_t linear, dim3 d) {
  return uint3{linear % d.x, (linear / d.x) % d.y, linear / (d.x * d.y)};
}

// ---- shared memory -------------------------------------------------------------------

constexpr uint32_t kSomeThread = 0xffffffffu;  // a reader not known lane by lane

struct SharedWord {
  uint32_t w_epoch = 0, r_epoch = 0;
  uint32_t w_serial = 0, r_serial = 0;  // warp meetings before the access
  uint32_t r_lanes = 0;                 // lanes of r_warp that read in r_epoch
  uint32_t init_epoch = 0;
  uint16_t w_thread = 0, r_thread = 0, r_warp = 0;
  uint8_t init = 0;          // bytes written since init_epoch
  uint8_t w_bytes = 0;       // the bytes of the word the write touched
  uint32_t r_warps = 0;      // the warps that read in r_epoch
  uint8_t r_lane_bytes[32];  // the bytes read by each lane in r_lanes (of r_warp)
  uint8_t r_warp_bytes[32];  // the bytes read by each warp in r_warps
  // Static window: inside a __shared__ variable, padding between them, or
  // another thread-local that lies between them.
  enum class Kind : uint8_t { kVariable, kPadding, kNotShared } kind = Kind::kVariable;
  uintptr_t w_pc = 0, r_pc = 0;
};

struct WorkerShadow {
  std::vector<SharedWord> dynamic_words, static_words;
  // Warp meetings: a worker-wide count, and for each thread and lane of its
  // warp, the count at the last __syncwarp both were part of.
  uint32_t serial = 0;
  std::vector<uint32_t> met;
  uint32_t epoch_counter = 0;
};
// Made on a worker's first check, freed when the worker ends.
thread_local std::unique_ptr<WorkerShadow> tl_shadow;

WorkerShadow& shadow() {
  if (!tl_shadow) tl_shadow = std::make_unique<WorkerShadow>();
  return *tl_shadow;
}

std::string describe_shared(uintptr_t address, bool dynamic) {
  if (dynamic) {
    const size_t off = address - tl_shared.dynamic_low;
    return "byte " + std::to_string(off) + " of the block's dynamic shared memory (extern " +
           "__shared__, " + std::to_string(tl_block->launch->shmem) + " bytes)";
  }
  const size_t off = address - static_shared_base();
  if (const StaticSharedVariable* v = static_shared_variable_at(off))
    return "byte " + std::to_string(off - v->offset) + " of " + v->name + " (static __shared__, " +
           std::to_string(v->size) + " bytes)";
  return "shared memory outside every __shared__ variable";
}

// A write-after-write of the same value is harmless (every thread storing
// one flag, say) and not reported, as compute-sanitizer does not. The store
// comes right after the callback: the hazard waits here with the value the
// memory held, and is reported when the next access of this worker (or the
// end of the block) finds the memory changed.
struct PendingWrite {
  uintptr_t address = 0;
  unsigned size = 0;
  unsigned char old[16] = {};
  FindingKey key;
  FindingDetails details;
};
thread_local std::vector<PendingWrite> tl_pending;

template <class MakeDetails>
void race_found(Hazard h, const FindingKey& key, uintptr_t address, unsigned size,
                MakeDetails make) {
  if (h != kWriteWrite) {
    if (count_finding(key)) describe_finding(key, make());
    return;
  }
  PendingWrite p;
  p.address = address;
  p.size = std::min(size, 16u);
  std::memcpy(p.old, reinterpret_cast<const void*>(address), p.size);
  p.key = key;
  p.details = make();
  tl_pending.push_back(std::move(p));
  tl_pending_writes = true;
}

void shared_race(Hazard h, uintptr_t pc_first, uint32_t first_thread, uintptr_t address,
                 unsigned size, bool dynamic, uintptr_t pc) {
  const FindingKey key{kRacecheck, h, 0, h != kWriteRead, pc, pc_first};
  race_found(h, key, address, size, [&] {
    FindingDetails d;
    d.space = "__shared__";
    d.address = address;
    d.thread = tl_thread->index;
    d.block = tl_block->index;
    d.other_known = first_thread != kSomeThread;
    d.other_thread = unflatten(first_thread, tl_block->launch->block);
    d.other_block = tl_block->index;
    d.location = describe_shared(address, dynamic);
    return d;
  });
}

void uninitialized_read(const char* space, uintptr_t address, unsigned size, uintptr_t pc,
                        const std::string& location) {
  access_finding({kInitcheck, 0, uint8_t(size), false, pc, 0}, space, address, location);
}

}  // namespace

void resolve_pending_writes() {
  for (const PendingWrite& p : tl_pending)
    if (std::memcmp(p.old, reinterpret_cast<const void*>(p.address), p.size) != 0 &&
        count_finding(p.key))
      describe_finding(p.key, p.details);
  tl_pending.clear();
  tl_pending_writes = false;
}

void prepare_shared_ranges() {
  SharedRanges& r = tl_shared;
  r.dynamic_low = dynamic_shared_base();
  r.dynamic_size = r.dynamic_low ? kDynamicSharedArena : 0;
  const auto& vars = static_shared_variables();
  if (!vars.empty()) {
    const uintptr_t base = static_shared_base();
    r.static_low = base + vars.front().offset;
    // To the end of the guard that follows them: an access past the last
    // variable lands there.
    r.static_size =
        std::max(shared_guard_end(), base + vars.back().offset + vars.back().size) - r.static_low;
  }
  uintptr_t locals_high = 0;
  thread_local_span(&r.locals_low, &locals_high);
  r.locals_size = locals_high - r.locals_low;
  WorkerShadow& s = shadow();
  s.dynamic_words.clear();  // grown to each launch's dynamic shared memory
  s.static_words.assign((r.static_size + 3) / 4, SharedWord{});
  const size_t window = r.static_low - static_shared_base();
  for (size_t w = 0; w < s.static_words.size(); ++w)
    s.static_words[w].kind = static_shared_variable_at(window + w * 4) ? SharedWord::Kind::kVariable
                                                                       : SharedWord::Kind::kPadding;
  for (const auto& v : other_thread_locals())
    for (size_t o = v.offset; o < v.offset + v.size; o += 4)
      if (o >= window && (o - window) / 4 < s.static_words.size())
        s.static_words[(o - window) / 4].kind = SharedWord::Kind::kNotShared;
  r.ready = true;
}

void shadow_block_start(BlockContext& b, uint32_t threads) {
  WorkerShadow& s = shadow();
  if (!tl_shared.ready) prepare_shared_ranges();
  if (s.dynamic_words.size() < (b.launch->shmem + 3) / 4)
    s.dynamic_words.resize((b.launch->shmem + 3) / 4);
  b.first_epoch = b.epoch = ++s.epoch_counter;
  if (s.met.size() < size_t(threads) * 32) s.met.assign(size_t(threads) * 32, 0);
}

void shadow_barrier(BlockContext& b) { b.epoch = ++shadow().epoch_counter; }

void shadow_warp_sync(uint32_t warp, unsigned lanes) {
  WorkerShadow& s = shadow();
  const uint32_t serial = ++s.serial;
  for (unsigned j = 0; j < 32; ++j) {
    if (!((lanes >> j) & 1u)) continue;
    uint32_t* row = &s.met[(size_t(warp) * 32 + j) * 32];
    for (unsigned i = 0; i < 32; ++i)
      if ((lanes >> i) & 1u) row[i] = serial;
  }
}

namespace {
// Whether static __shared__ variable `v` is declared in another kernel than
// the running launch's. Decided once per variable, launch and worker: it
// compares names and looks the kernels up under a lock, far too slow for
// every access.
bool another_kernels(const StaticSharedVariable& v) {
  thread_local const Launch* launch = nullptr;
  thread_local uint32_t launch_id = 0;
  thread_local std::vector<int8_t> known;  // -1: not decided yet
  const auto& vars = static_shared_variables();
  const Launch* l = tl_block->launch;
  if (l != launch || l->id != launch_id || known.size() != vars.size()) {
    launch = l;
    launch_id = l->id;
    known.assign(vars.size(), -1);
  }
  const size_t i = size_t(&v - vars.data());
  if (known[i] < 0) {
    const std::string& kernel = l->site.kernel;
    const size_t in = v.name.rfind("` in ");
    const std::string f = in == std::string::npos ? std::string() : v.name.substr(in + 5);
    known[i] = !f.empty() && f != kernel && f.rfind(kernel + "<", 0) != 0 && is_kernel_name(f);
  }
  return known[i] != 0;
}

// This kernel's static __shared__ variable that starts first after
// `offset` (from the static shared base), or null.
const StaticSharedVariable* own_variable_after(size_t offset) {
  const StaticSharedVariable* best = nullptr;
  for (const auto& v : static_shared_variables())
    if (v.offset > offset && !another_kernels(v) && (!best || v.offset < best->offset)) best = &v;
  return best;
}
}  // namespace

// Whether an access to shared memory lies outside the block's own shared
// variables (then memcheck has reported it).
bool shared_out_of_bounds(uintptr_t address, unsigned size, bool write, uintptr_t pc) {
  const SharedRanges& r = tl_shared;
  const bool dynamic = address - r.dynamic_low < r.dynamic_size;
  const uintptr_t low = dynamic ? r.dynamic_low : r.static_low;
  const std::vector<SharedWord>& words =
      dynamic ? tl_shadow->dynamic_words : tl_shadow->static_words;
  const size_t off = address - low;
  if (!dynamic && words[off / 4].kind == SharedWord::Kind::kNotShared) return false;
  bool outside = dynamic ? off + size > tl_block->launch->shmem
                         : words[off / 4].kind == SharedWord::Kind::kPadding;
  // Another kernel's static __shared__ variable: on a GPU this kernel's
  // shared memory holds only its own, and a read past them faults.
  std::string landed_in;
  if (!dynamic && !outside)
    if (const StaticSharedVariable* v = static_shared_variable_at(address - static_shared_base());
        v && another_kernels(*v)) {
      outside = true;
      landed_in = v->name;
    }
  if (outside) {
    auto bytes = [](uint64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); };
    std::string where;
    if (dynamic)
      where = bytes(off + size - tl_block->launch->shmem) + " after the last byte of the block's " +
              std::to_string(tl_block->launch->shmem) +
              " bytes of dynamic shared memory (the launch's third <<<>>> argument)";
    else if (const StaticSharedVariable* v =
                 static_shared_variable_before(address - static_shared_base()))
      where = bytes(address - static_shared_base() - (v->offset + v->size) + 1) +
              " after the last byte of " + v->name + " (static __shared__, " +
              std::to_string(v->size) + " bytes)";
    else if (const StaticSharedVariable* after = own_variable_after(address - static_shared_base()))
      // Before this kernel's first variable: an index below 0 (a signed
      // char as an index, a subtraction that went negative).
      where = std::to_string(after->offset - (address - static_shared_base())) +
              " bytes before the first byte of " + after->name + " (static __shared__, " +
              std::to_string(after->size) +
              " bytes): an index below 0 (a subtraction that went negative, or a byte read "
              "through a char, which is signed: bytes of 128 and up are negative)";
    else
      where = "outside every static __shared__ variable";
    if (!landed_in.empty())
      where += "; it lands in " + landed_in +
               ", another kernel's shared memory, which a GPU does not give this one";
    memcheck_problem(kOutOfBounds, "__shared__", address, size, write, pc, where);
    return true;
  }
  return false;
}

void shared_access(uintptr_t address, unsigned size, bool write, uint8_t atomic, uintptr_t pc) {
  const SharedRanges& r = tl_shared;
  const bool dynamic = address - r.dynamic_low < r.dynamic_size;
  const uintptr_t low = dynamic ? r.dynamic_low : r.static_low;
  WorkerShadow& s = *tl_shadow;
  std::vector<SharedWord>& words = dynamic ? s.dynamic_words : s.static_words;
  const size_t off = address - low;
  if (!dynamic && words[off / 4].kind == SharedWord::Kind::kNotShared) return;
  if (dynamic && (off + size + 3) / 4 > words.size() && !memcheck_enabled()) return;
  if (memcheck_enabled() && shared_out_of_bounds(address, size, write, pc)) return;
  if (!shadow_enabled()) return;
  const BlockContext& b = *tl_block;
  const SimThread& t = *tl_thread;
  const uint32_t me = t.linear, e = b.epoch;
  const uint32_t* met = &s.met[size_t(me) * 32];
  const uint32_t warp_base = t.warp * 32;
  // Whether lane `other` (of my warp) met me at a __syncwarp after `serial`.
  auto synced = [&](uint32_t other, uint32_t serial) {
    return other - warp_base < 32 && met[other - warp_base] > serial;
  };
  const size_t first = off / 4, last = std::min((off + size - 1) / 4, words.size() - 1);
  bool reported_uninit = false;
  for (size_t wi = first; wi <= last; ++wi) {
    SharedWord& w = words[wi];
    const size_t lo = std::max(off, wi * 4), hi = std::min(off + size, wi * 4 + 4);
    const uint8_t bytes = uint8_t(((1u << (hi - lo)) - 1) << (lo - wi * 4));
    if (w.init_epoch < b.first_epoch) w.init = 0, w.init_epoch = b.first_epoch;
    if ((!write || atomic == kAtomicReads) && initcheck_enabled() && (w.init & bytes) != bytes &&
        !reported_uninit) {
      reported_uninit = true;
      uninitialized_read(
          "__shared__", address, size, pc,
          describe_shared(address, dynamic) + ", which no thread of this block has written");
    }
    if (write || atomic) w.init |= bytes;
    if (atomic || !racecheck_enabled()) continue;
    if (w.w_epoch != e) w.w_bytes = 0;
    if (w.r_epoch != e) w.r_warps = 0;
    if (write) {
      if (w.w_epoch == e && w.w_thread != me && (w.w_bytes & bytes) &&
          !synced(w.w_thread, w.w_serial))
        shared_race(kWriteWrite, w.w_pc, w.w_thread, address, size, dynamic, pc);
      if (w.r_epoch == e) {
        // Readers in other warps of these bytes; then the lanes of my warp
        // (known lane by lane for the first warp that read).
        bool hazard = false;
        uint32_t other = w.r_thread;
        for (unsigned warps = w.r_warps & ~(1u << t.warp); warps && !hazard; warps &= warps - 1) {
          const unsigned v = unsigned(std::countr_zero(warps));
          if (w.r_warp_bytes[v] & bytes) hazard = true, other = v == w.r_warp ? other : kSomeThread;
        }
        unsigned lanes = w.r_warp == t.warp ? w.r_lanes & ~(1u << t.lane) : 0;
        for (; lanes && !hazard; lanes &= lanes - 1) {
          const uint32_t lane = uint32_t(std::countr_zero(lanes));
          if ((w.r_lane_bytes[lane] & bytes) && !synced(warp_base + lane, w.r_serial))
            hazard = true, other = warp_base + lane;
        }
        if (hazard) shared_race(kReadWrite, w.r_pc, other, address, size, dynamic, pc);
      }
      w.w_bytes = w.w_epoch == e && w.w_thread == me ? uint8_t(w.w_bytes | bytes) : bytes;
      w.w_epoch = e;
      w.w_thread = uint16_t(me);
      w.w_serial = s.serial;
      w.w_pc = pc;
    } else {
      if (w.w_epoch == e && w.w_thread != me && (w.w_bytes & bytes) &&
          !synced(w.w_thread, w.w_serial))
        shared_race(kWriteRead, w.w_pc, w.w_thread, address, size, dynamic, pc);
      if (w.r_epoch != e) {
        w.r_epoch = e;
        w.r_warp = uint16_t(t.warp);
        w.r_lanes = 0;
        w.r_thread = uint16_t(me);
      }
      if (w.r_warp == t.warp) {
        w.r_lane_bytes[t.lane] =
            (w.r_lanes >> t.lane) & 1u ? uint8_t(w.r_lane_bytes[t.lane] | bytes) : bytes;
        w.r_lanes |= 1u << t.lane;
      }
      const uint32_t warp_bit = 1u << (t.warp % 32);
      w.r_warp_bytes[t.warp % 32] =
          w.r_warps & warp_bit ? uint8_t(w.r_warp_bytes[t.warp % 32] | bytes) : bytes;
      w.r_warps |= warp_bit;
      w.r_serial = s.serial;
      w.r_pc = pc;
    }
  }
}

// ---- global memory -------------------------------------------------------------------

uint32_t next_shadow_phase() {
  static std::atomic<uint32_t> phase{0};
  return ++phase;
}

void shadow_allocation(Allocation& a) {
  if (a.shadow) return;
  const size_t words = (a.size + 3) / 4;
  auto sh = std::make_unique<GlobalShadow>();
  if (racecheck_enabled()) {
    sh->race.reset(new uint64_t[words]());
    sh->sites.reset(new uint16_t[words]());
  }
  sh->written.reset(new uint8_t[(words + 1) / 2]());
  a.shadow = std::move(sh);
  if (a.managed || a.host_filled) shadow_host_wrote(reinterpret_cast<void*>(a.base), a.size);
}

namespace {
// The 4 "written" bits of word w.
inline uint8_t written_bits(const uint8_t* written, size_t w) {
  return uint8_t((load(written[w / 2]) >> ((w % 2) * 4)) & 0xfu);
}
inline void mark_written(uint8_t* written, size_t w, uint8_t bytes) {
  __atomic_fetch_or(&written[w / 2], uint8_t(bytes << ((w % 2) * 4)), __ATOMIC_RELAXED);
}
}  // namespace

void shadow_host_wrote(const void* device_address, size_t bytes) {
  if (!bytes) return;
  const auto start = reinterpret_cast<uintptr_t>(device_address);
  Allocation* a = allocations().find(start);
  if (!a || !a->shadow) return;
  const size_t off = start - a->base, end = std::min(a->size, off + bytes);
  for (size_t i = off; i < end;) {
    const size_t hi = std::min(end, i / 4 * 4 + 4);
    mark_written(a->shadow->written.get(), i / 4, uint8_t(((1u << (hi - i)) - 1) << (i % 4)));
    i = hi;
  }
}

namespace {
// The race records are the launch's own: clear them when a launch (or a
// grid sync's new phase) first touches the allocation.
void start_shadow_phase(Allocation& a, uint32_t phase) {
  std::lock_guard lock(a.shadow_mutex);
  if (a.shadow_launch.load(std::memory_order_relaxed) == phase) return;
  const size_t words = (a.size + 3) / 4;
  std::memset(a.shadow->race.get(), 0, words * sizeof(uint64_t));
  a.shadow_launch.store(phase, std::memory_order_release);
}

void global_race(Hazard h, uint32_t pc_first, uint32_t first_code, bool first_is_thread,
                 const Allocation& a, uintptr_t address, unsigned size, uintptr_t pc) {
  const uintptr_t first_pc = pc_at(pc_first);
  const FindingKey key{kRacecheck, h, 0, h != kWriteRead, pc, first_pc};
  race_found(h, key, address, size, [&] {
    const Launch& l = *tl_block->launch;
    FindingDetails d;
    d.space = "__global__";
    d.address = address;
    d.thread = tl_thread->index;
    d.block = tl_block->index;
    if (first_is_thread) {
      d.other_known = true;
      d.other_thread = unflatten((first_code - 1) % l.threads_per_block, l.block);
      d.other_block = unflatten((first_code - 1) / l.threads_per_block, l.grid);
    }
    d.location = describe_global(a, address);
    return d;
  });
}
}  // namespace

void global_access(Allocation& a, uintptr_t address, unsigned size, bool write, uint8_t atomic,
                   uintptr_t pc) {
  const BlockContext& b = *tl_block;
  const Launch& l = *b.launch;
  GlobalShadow& sh = *a.shadow;
  const size_t off = address - a.base;
  const size_t words = (a.size + 3) / 4;
  const size_t first = off / 4, last = std::min((off + size - 1) / 4, words - 1);
  const bool race = sh.race && !atomic;
  if (race && a.shadow_launch.load(std::memory_order_acquire) != l.shadow_phase)
    start_shadow_phase(a, l.shadow_phase);
  const uint32_t tpb = l.threads_per_block;
  const uint64_t id = uint64_t(b.linear) * tpb + tl_thread->linear;
  const uint32_t me_w = thread_code(id, 1u << 21, tpb), me_r = thread_code(id, 1u << 20, tpb);
  const uint32_t block = uint32_t(b.linear % (kReadersOfBlock - 1));
  const uint32_t e = b.epoch & 0x7fu;
  // Whether an access by the thread of `code` in `epoch` is unordered with
  // mine: another block, or my block in this epoch. A block that called
  // __threadfence() publishes and reads through fences and atomics (the
  // last-block pattern): its accesses are not checked against other blocks'.
  const uint32_t my_block_w = (me_w - 1) / tpb, my_block_r = (me_r - 1) / tpb;
  auto unordered_writer = [&](uint32_t code, uint32_t epoch) {
    return (code - 1) / tpb != my_block_w ? !b.fenced : epoch == e;
  };
  auto unordered_reader = [&](uint32_t code, uint32_t epoch) {
    return (code - 1) / tpb != my_block_r ? !b.fenced : epoch == e;
  };
  bool reported_uninit = false;
  for (size_t wi = first; wi <= last; ++wi) {
    const size_t lo = std::max(off, wi * 4), hi = std::min(off + size, wi * 4 + 4);
    const uint8_t bytes = uint8_t(((1u << (hi - lo)) - 1) << (lo - wi * 4));
    const uint8_t had = written_bits(sh.written.get(), wi);
    if ((!write || atomic == kAtomicReads) && (had & bytes) != bytes && initcheck_enabled() &&
        !reported_uninit && !a.managed) {
      reported_uninit = true;
      uninitialized_read("__global__", address, size, pc,
                         describe_global(a, address) +
                             ", which nothing has written since cudaMalloc (no kernel, "
                             "cudaMemcpy or cudaMemset)");
    }
    if ((write || atomic) && (had & bytes) != bytes) mark_written(sh.written.get(), wi, bytes);
    if (!race) continue;
    const uint64_t rec = load(sh.race[wi]);
    const uint32_t wr = uint32_t(rec), rd = uint32_t(rec >> 32);
    const uint16_t sites = load(sh.sites[wi]);
    const uint32_t pci = pc_index(pc);
    const uint32_t writer = code_of(wr), reader = code_of(rd);
    const bool wrote_mine = bytes_of(wr) & bytes, read_mine = bytes_of(rd) & bytes;
    if (write) {
      if (writer && writer != me_w && wrote_mine && unordered_writer(writer, epoch_of(wr)))
        global_race(kWriteWrite, sites & 0xffu, writer, true, a, address, size, pc);
      if (reader && reader != me_r && read_mine) {
        bool hazard;
        if (reader == kReadersOfBlocks)
          hazard = !b.fenced;
        else if (reader & kReadersOfBlock)
          hazard = (reader & ~kReadersOfBlock) != block ? !b.fenced : epoch_of(rd) == e;
        else
          hazard = unordered_reader(reader, epoch_of(rd));
        if (hazard)
          global_race(kReadWrite, sites >> 8, reader, !(reader & kReadersOfBlock), a, address, size,
                      pc);
      }
      store(sh.race[wi], uint64_t((rec & 0xffffffff00000000ull) | half(me_w, e, bytes)));
      store(sh.sites[wi], uint16_t((sites & 0xff00u) | pci));
    } else {
      if (writer && writer != me_w && wrote_mine && unordered_writer(writer, epoch_of(wr)))
        global_race(kWriteRead, sites & 0xffu, writer, true, a, address, size, pc);
      // Summarize the readers: one thread, threads of one block, or of several.
      uint32_t next = me_r, next_bytes = bytes;
      if (reader && reader != me_r) {
        const bool older = epoch_of(rd) != e;
        if (reader == kReadersOfBlocks)
          next = kReadersOfBlocks;
        else if (reader & kReadersOfBlock)
          next = (reader & ~kReadersOfBlock) != block ? kReadersOfBlocks : older ? me_r : reader;
        else if ((reader - 1) / tpb != my_block_r)
          next = kReadersOfBlocks;
        else
          next = older ? me_r : (kReadersOfBlock | block);
        if (next != me_r) next_bytes |= bytes_of(rd);
      }
      store(sh.race[wi],
            uint64_t((rec & 0xffffffffull) | (uint64_t(half(next, e, next_bytes)) << 32)));
      store(sh.sites[wi], uint16_t((sites & 0xffu) | (pci << 8)));
    }
  }
}

}  // namespace cudalab::rt
