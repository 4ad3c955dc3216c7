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
#include <algorithm>
#include <bit>
#include <cstring>

#include "internal.h"

namespace cudalab::rt {

// Global memory: 12 bytes per 4-byte word (the checks' memory budget is 3x).
// writer/reader: the global thread id + 1 of the last writer and reader in
// this launch; reader can also say "several threads of block B" or "threads
// of several blocks". meta: bits 0-3 which bytes are initialized; 4-10 and
// 11-17 the writer's and reader's epoch (low 7 bits); 18-24 and 25-31 their
// code addresses (an index into a table of 127).
thread_local SharedRanges tl_shared;

namespace {

constexpr uint32_t kReadersOfBlock = 0x80000000u;
constexpr uint32_t kReadersOfBlocks = 0xffffffffu;
constexpr uint32_t kInitBits = 0xfu;

inline uint32_t field(uint32_t m, int shift) { return (m >> shift) & 0x7fu; }
inline uint32_t with_field(uint32_t m, int shift, uint32_t v) {
  return (m & ~(0x7fu << shift)) | ((v & 0x7fu) << shift);
}
constexpr int kWriterEpoch = 4, kReaderEpoch = 11, kWriterPc = 18, kReaderPc = 25;

template <class T>
inline T load(const T& v) {
  return __atomic_load_n(&v, __ATOMIC_RELAXED);
}
template <class T>
inline void store(T& v, T x) {
  __atomic_store_n(&v, x, __ATOMIC_RELAXED);
}

// Code addresses of global accesses, 127 of them at most (0: unknown).
std::mutex g_pc_mutex;
uintptr_t g_pcs[128];
uint32_t g_pc_count = 1;
uint32_t pc_index(uintptr_t pc) {
  thread_local uintptr_t cached_pc[64];
  thread_local uint8_t cached_index[64];
  const size_t h = (pc >> 2) & 63;
  if (cached_pc[h] == pc) return cached_index[h];
  std::lock_guard lock(g_pc_mutex);
  uint32_t i = 1;
  while (i < g_pc_count && g_pcs[i] != pc) ++i;
  if (i == g_pc_count) {
    if (g_pc_count == 128) return 0;
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

// The hazard kinds, as compute-sanitizer names the two accesses.
enum Hazard : uint8_t { kWriteWrite, kWriteRead, kReadWrite };  // earlier-later

uint3 unflatten(uint32_t linear, dim3 d) {
  return uint3{linear % d.x, (linear / d.x) % d.y, linear / (d.x * d.y)};
}

// ---- shared memory -------------------------------------------------------------------

constexpr uint16_t kManyWarps = 0xffff;
struct SharedWord {
  uint32_t w_epoch = 0, r_epoch = 0;
  uint32_t w_serial = 0, r_serial = 0;  // warp meetings before the access
  uint32_t r_lanes = 0;                 // lanes of r_warp that read in r_epoch
  uint32_t init_epoch = 0;
  uint16_t w_thread = 0, r_thread = 0, r_warp = 0;
  uint8_t init = 0;  // bytes written since init_epoch
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
thread_local WorkerShadow* tl_shadow = nullptr;

WorkerShadow& shadow() {
  if (!tl_shadow) tl_shadow = new WorkerShadow;  // lives as long as its worker
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

void shared_race(Hazard h, uintptr_t pc_first, uint32_t first_thread, uintptr_t address,
                 bool dynamic, uintptr_t pc) {
  const FindingKey key{kRacecheck, h, 0, h != kWriteRead, pc, pc_first};
  if (!count_finding(key)) return;
  FindingDetails d;
  d.space = "__shared__";
  d.address = address;
  d.thread = tl_thread->index;
  d.block = tl_block->index;
  d.other_known = true;
  d.other_thread = unflatten(first_thread, tl_block->launch->block);
  d.other_block = tl_block->index;
  d.location = describe_shared(address, dynamic);
  describe_finding(key, std::move(d));
}

void uninitialized_read(const char* space, uintptr_t address, unsigned size, uintptr_t pc,
                        std::string location) {
  const FindingKey key{kInitcheck, 0, uint8_t(size), false, pc, 0};
  if (!count_finding(key)) return;
  FindingDetails d;
  d.space = space;
  d.address = address;
  d.thread = tl_thread->index;
  d.block = tl_block->index;
  d.location = std::move(location);
  describe_finding(key, std::move(d));
}

}  // namespace

void memcheck_problem(Problem p, const char* space, uintptr_t address, unsigned size, bool write,
                      uintptr_t pc, const std::string& location) {
  const FindingKey key{kMemcheck, p, uint8_t(size), write, pc, 0};
  if (!count_finding(key)) return;
  FindingDetails d;
  d.space = space;
  d.address = address;
  d.thread = tl_thread->index;
  d.block = tl_block->index;
  d.location = location;
  describe_finding(key, std::move(d));
}

bool shadow_enabled() { return racecheck_enabled() || initcheck_enabled(); }

void prepare_shared_ranges() {
  SharedRanges& r = tl_shared;
  r.dynamic_low = dynamic_shared_base();
  r.dynamic_size = r.dynamic_low ? kDynamicSharedArena : 0;
  const auto& vars = static_shared_variables();
  if (!vars.empty()) {
    const uintptr_t base = static_shared_base();
    r.static_low = base + vars.front().offset;
    // To the end of the thread-local block: an access past the last
    // variable lands there.
    size_t end = program_thread_locals_size();
    for (const auto& v : vars) end = std::max(end, v.offset + v.size);
    r.static_size = base + end - r.static_low;
  }
  WorkerShadow& s = shadow();
  s.dynamic_words.assign(r.dynamic_size / 4, SharedWord{});
  s.static_words.assign((r.static_size + 3) / 4, SharedWord{});
  const size_t window = r.static_low - static_shared_base();
  for (size_t w = 0; w < s.static_words.size(); ++w)
    s.static_words[w].kind = static_shared_variable_at(window + w * 4)
                                 ? SharedWord::Kind::kVariable
                                 : SharedWord::Kind::kPadding;
  for (const auto& v : other_thread_locals())
    for (size_t o = v.offset; o < v.offset + v.size; o += 4)
      if (o >= window && (o - window) / 4 < s.static_words.size())
        s.static_words[(o - window) / 4].kind = SharedWord::Kind::kNotShared;
  r.ready = true;
}

void shadow_block_start(BlockContext& b, uint32_t threads) {
  WorkerShadow& s = shadow();
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

void shared_access(uintptr_t address, unsigned size, bool write, bool atomic, uintptr_t pc) {
  const SharedRanges& r = tl_shared;
  const bool dynamic = address - r.dynamic_low < r.dynamic_size;
  const uintptr_t low = dynamic ? r.dynamic_low : r.static_low;
  WorkerShadow& s = *tl_shadow;
  std::vector<SharedWord>& words = dynamic ? s.dynamic_words : s.static_words;
  const size_t off = address - low;
  if (!dynamic && words[off / 4].kind == SharedWord::Kind::kNotShared) return;
  if (memcheck_enabled()) {
    const bool outside = dynamic ? off + size > tl_block->launch->shmem
                                 : words[off / 4].kind == SharedWord::Kind::kPadding;
    if (outside) {
      std::string where;
      if (dynamic)
        where = std::to_string(off + size - tl_block->launch->shmem) +
                " bytes after the last byte of the block's " +
                std::to_string(tl_block->launch->shmem) +
                " bytes of dynamic shared memory (the launch's third <<<>>> argument)";
      else if (const StaticSharedVariable* v =
                   static_shared_variable_before(address - static_shared_base()))
        where = std::to_string(address - static_shared_base() - (v->offset + v->size) + 1) +
                " bytes after the last byte of " + v->name + " (static __shared__, " +
                std::to_string(v->size) + " bytes)";
      else
        where = "outside every static __shared__ variable";
      memcheck_problem(kOutOfBounds, "__shared__", address, size, write, pc, where);
      return;
    }
  }
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
    if ((!write || atomic) && initcheck_enabled() && (w.init & bytes) != bytes &&
        !reported_uninit) {
      reported_uninit = true;
      uninitialized_read("__shared__", address, size, pc,
                         describe_shared(address, dynamic) +
                             ", which no thread of this block has written");
    }
    if (write || atomic) w.init |= bytes;
    if (atomic || !racecheck_enabled()) continue;
    if (write) {
      if (w.w_epoch == e && w.w_thread != me && !synced(w.w_thread, w.w_serial))
        shared_race(kWriteWrite, w.w_pc, w.w_thread, address, dynamic, pc);
      if (w.r_epoch == e) {
        unsigned others = w.r_warp == t.warp ? w.r_lanes & ~(1u << t.lane) : 0;
        bool hazard = w.r_warp != t.warp;  // another warp, or several
        uint32_t other = w.r_thread;
        for (; others && !hazard; others &= others - 1) {
          const uint32_t lane = uint32_t(std::countr_zero(others));
          if (!synced(warp_base + lane, w.r_serial)) hazard = true, other = warp_base + lane;
        }
        if (hazard) shared_race(kReadWrite, w.r_pc, other, address, dynamic, pc);
      }
      w.w_epoch = e;
      w.w_thread = uint16_t(me);
      w.w_serial = s.serial;
      w.w_pc = pc;
    } else {
      if (w.w_epoch == e && w.w_thread != me && !synced(w.w_thread, w.w_serial))
        shared_race(kWriteRead, w.w_pc, w.w_thread, address, dynamic, pc);
      if (w.r_epoch != e) {
        w.r_epoch = e;
        w.r_warp = uint16_t(t.warp);
        w.r_lanes = 0;
        w.r_thread = uint16_t(me);
      } else if (w.r_warp != t.warp) {
        w.r_warp = kManyWarps;
      }
      w.r_lanes |= 1u << t.lane;
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
  a.shadow.reset(new GlobalWord[words]);
  std::memset(a.shadow.get(), 0, words * sizeof(GlobalWord));
  if (a.managed) shadow_host_wrote(reinterpret_cast<void*>(a.base), a.size);
}

void shadow_host_wrote(const void* device_address, size_t bytes) {
  if (!bytes) return;
  const auto start = reinterpret_cast<uintptr_t>(device_address);
  Allocation* a = allocations().find(start);
  if (!a || !a->shadow) return;
  const size_t off = start - a->base, end = std::min(a->size, off + bytes);
  for (size_t i = off; i < end;) {
    GlobalWord& w = a->shadow[i / 4];
    const size_t lo = i, hi = std::min(end, i / 4 * 4 + 4);
    w.meta |= ((1u << (hi - lo)) - 1) << (lo % 4);
    i = hi;
  }
}

namespace {
// The race fields are the launch's own: clear them when a launch (or a grid
// sync's new phase) first touches the allocation. Initialization stays.
void start_shadow_phase(Allocation& a, uint32_t phase) {
  std::lock_guard lock(a.shadow_mutex);
  if (a.shadow_launch.load(std::memory_order_relaxed) == phase) return;
  const size_t words = (a.size + 3) / 4;
  for (size_t i = 0; i < words; ++i) {
    GlobalWord& w = a.shadow[i];
    w.writer = w.reader = 0;
    w.meta &= kInitBits;
  }
  a.shadow_launch.store(phase, std::memory_order_release);
}

void global_race(Hazard h, uint32_t pc_first, uint32_t first_id, const Allocation& a,
                 uintptr_t address, uintptr_t pc) {
  const uintptr_t first_pc = pc_at(pc_first);
  const FindingKey key{kRacecheck, h, 0, h != kWriteRead, pc, first_pc};
  if (!count_finding(key)) return;
  const Launch& l = *tl_block->launch;
  FindingDetails d;
  d.space = "__global__";
  d.address = address;
  d.thread = tl_thread->index;
  d.block = tl_block->index;
  if (first_id && first_id < kReadersOfBlock) {
    d.other_known = true;
    d.other_thread = unflatten((first_id - 1) % l.threads_per_block, l.block);
    d.other_block = unflatten((first_id - 1) / l.threads_per_block, l.grid);
  }
  d.location = describe_global(a, address);
  describe_finding(key, std::move(d));
}
}  // namespace

void global_access(Allocation& a, uintptr_t address, unsigned size, bool write, bool atomic,
                   uintptr_t pc) {
  const BlockContext& b = *tl_block;
  const Launch& l = *b.launch;
  if (a.shadow_launch.load(std::memory_order_acquire) != l.shadow_phase)
    start_shadow_phase(a, l.shadow_phase);
  const uint32_t tpb = l.threads_per_block;
  const uint32_t me = b.linear * tpb + tl_thread->linear + 1;
  const uint32_t e = b.epoch & 0x7fu;
  const size_t off = address - a.base;
  const size_t words = (a.size + 3) / 4;
  const size_t first = off / 4, last = std::min((off + size - 1) / 4, words - 1);
  const bool race = racecheck_enabled() && !atomic;
  bool reported_uninit = false;
  // Whether an access by `id` in epoch `epoch` is unordered with mine.
  auto unordered = [&](uint32_t id, uint32_t epoch) {
    return (id - 1) / tpb != b.linear || epoch == e;
  };
  for (size_t wi = first; wi <= last; ++wi) {
    GlobalWord& w = a.shadow[wi];
    const size_t lo = std::max(off, wi * 4), hi = std::min(off + size, wi * 4 + 4);
    const uint32_t bytes = ((1u << (hi - lo)) - 1) << (lo - wi * 4);
    uint32_t m = load(w.meta);
    if ((!write || atomic) && (m & bytes) != bytes && initcheck_enabled() && !reported_uninit &&
        !a.managed) {
      reported_uninit = true;
      uninitialized_read("__global__", address, size, pc,
                         describe_global(a, address) +
                             ", which nothing has written since cudaMalloc (no kernel, "
                             "cudaMemcpy or cudaMemset)");
    }
    if (write || atomic) m |= bytes;
    if (race) {
      const uint32_t writer = load(w.writer), reader = load(w.reader);
      const uint32_t pci = pc_index(pc);
      if (write) {
        if (writer && writer != me && unordered(writer, field(m, kWriterEpoch)))
          global_race(kWriteWrite, field(m, kWriterPc), writer, a, address, pc);
        if (reader && reader != me) {
          bool hazard;
          if (reader == kReadersOfBlocks)
            hazard = true;
          else if (reader & kReadersOfBlock)
            hazard = (reader & ~kReadersOfBlock) != b.linear || field(m, kReaderEpoch) == e;
          else
            hazard = unordered(reader, field(m, kReaderEpoch));
          if (hazard) global_race(kReadWrite, field(m, kReaderPc), reader, a, address, pc);
        }
        store(w.writer, me);
        m = with_field(with_field(m, kWriterEpoch, e), kWriterPc, pci);
      } else {
        if (writer && writer != me && unordered(writer, field(m, kWriterEpoch)))
          global_race(kWriteRead, field(m, kWriterPc), writer, a, address, pc);
        // Summarize the readers: one thread, threads of one block, or of several.
        uint32_t next = me;
        if (reader && reader != me) {
          const bool older = field(m, kReaderEpoch) != e;
          if (reader == kReadersOfBlocks)
            next = kReadersOfBlocks;
          else if (reader & kReadersOfBlock)
            next = (reader & ~kReadersOfBlock) != b.linear ? kReadersOfBlocks
                   : older                                 ? me
                                                           : reader;
          else if ((reader - 1) / tpb != b.linear)
            next = kReadersOfBlocks;
          else
            next = older ? me : (kReadersOfBlock | b.linear);
        }
        store(w.reader, next);
        m = with_field(with_field(m, kReaderEpoch, e), kReaderPc, pci);
      }
    }
    store(w.meta, m);
  }
}

}  // namespace cudalab::rt
