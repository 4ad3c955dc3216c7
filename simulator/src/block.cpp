// Running one block: CUDA threads as fibers, started lazily, and the things
// they wait for together.
//
// A runner fiber runs threads one after another until one has to wait (at
// __syncthreads, or at a warp operation whose other lanes have not arrived);
// the block's loop then resumes a thread that is ready or starts the next one
// on a fresh fiber. The last thread to arrive at a barrier or warp operation
// completes it, makes the waiting threads ready, and goes on. A kernel
// without barriers or warp operations thus costs one fiber per block.
#include "block.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace cudalab::rt {

namespace ctx = boost::context;

namespace {

// Far more than a GPU thread gets (1 KiB by default), enough for printf
// and large local arrays; virtual until touched.
constexpr size_t kFiberStack = 64 * 1024;
constexpr size_t kGuard = 4096;

// Stacks are reused across blocks and launches: a worker keeps the ones it
// has made. Each has a guard page below it, so overflowing the stack faults
// instead of silently overwriting memory.
//
// A cooperative launch keeps every thread of the grid alive at once (up to
// 270,000 on an H100), more than the kernel allows memory mappings for with
// a guard page each; its stacks come in chunks of 64, unguarded, and a
// canary at the bottom of each tells afterwards if one overflowed.
constexpr size_t kChunkStacks = 64;
constexpr uint64_t kCanary = 0x6375646c61627374ull;  // "cudlabst"
thread_local bool tl_unguarded_stacks = false;
thread_local bool tl_stack_overflowed = false;

struct StackPool {
  std::vector<void*> free_stacks;     // guarded: the guard page's address
  std::vector<void*> free_unguarded;  // unguarded: the stack's lowest address
  std::vector<void*> chunks;
  ~StackPool() {
    for (void* p : free_stacks) munmap(p, kFiberStack + kGuard);
    for (void* c : chunks) munmap(c, kFiberStack * kChunkStacks);
  }
};
thread_local StackPool tl_stacks;

struct PooledStack {
  ctx::stack_context allocate() {
    ctx::stack_context sc;
    sc.size = kFiberStack;
    if (tl_unguarded_stacks) {
      if (tl_stacks.free_unguarded.empty()) {
        void* chunk = mmap(nullptr, kFiberStack * kChunkStacks, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (chunk == MAP_FAILED) throw std::bad_alloc();
        tl_stacks.chunks.push_back(chunk);
        for (size_t i = 0; i < kChunkStacks; ++i)
          tl_stacks.free_unguarded.push_back(static_cast<char*>(chunk) + i * kFiberStack);
      }
      char* low = static_cast<char*>(tl_stacks.free_unguarded.back());
      tl_stacks.free_unguarded.pop_back();
      std::memcpy(low, &kCanary, sizeof(kCanary));
      sc.sp = low + kFiberStack;
      return sc;
    }
    void* base;
    if (!tl_stacks.free_stacks.empty()) {
      base = tl_stacks.free_stacks.back();
      tl_stacks.free_stacks.pop_back();
    } else {
      base = mmap(nullptr, kFiberStack + kGuard, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (base == MAP_FAILED) throw std::bad_alloc();
      mprotect(base, kGuard, PROT_NONE);
    }
    sc.sp = static_cast<char*>(base) + kGuard + kFiberStack;
    return sc;
  }
  void deallocate(ctx::stack_context& sc) noexcept {
    char* low = static_cast<char*>(sc.sp) - kFiberStack;
    if (tl_unguarded_stacks) {
      uint64_t canary;
      std::memcpy(&canary, low, sizeof(canary));
      if (canary != kCanary) tl_stack_overflowed = true;
      tl_stacks.free_unguarded.push_back(low);
      return;
    }
    tl_stacks.free_stacks.push_back(low - kGuard);
  }
};

}  // namespace

void use_unguarded_stacks() { tl_unguarded_stacks = true; }
bool unguarded_stack_overflowed() { return tl_stack_overflowed; }

namespace {

inline void enter_thread(SimThread& t) {
  tl_thread = &t;
  threadIdx = t.index;
}

uint3 unflatten(uint32_t linear, dim3 dims) {
  return uint3{linear % dims.x, (linear / dims.x) % dims.y, linear / (dims.x * dims.y)};
}

const char* op_name(detail::WarpOp op) {
  using detail::WarpOp;
  switch (op) {
    case WarpOp::kSync:
      return "__syncwarp";
    case WarpOp::kShflIdx:
      return "__shfl_sync";
    case WarpOp::kShflUp:
      return "__shfl_up_sync";
    case WarpOp::kShflDown:
      return "__shfl_down_sync";
    case WarpOp::kShflXor:
      return "__shfl_xor_sync";
    case WarpOp::kBallot:
      return "__ballot_sync (or __any_sync/__all_sync)";
    case WarpOp::kMatchAny:
      return "__match_any_sync";
    case WarpOp::kMatchAll:
      return "__match_all_sync";
    default:
      return "__reduce_*_sync";
  }
}

}  // namespace

BlockRun::BlockRun(Launch& launch) : launch_(launch) {
  thread_count_ = launch.threads_per_block;
  threads_.resize(thread_count_);
  for (uint32_t i = 0; i < thread_count_; ++i) {
    threads_[i].index = unflatten(i, launch.block);
    threads_[i].linear = i;
    threads_[i].warp = i / 32;
    threads_[i].lane = i % 32;
  }
  warps_.resize((thread_count_ + 31) / 32);
  for (size_t w = 0; w < warps_.size(); ++w) {
    const uint32_t lanes = std::min<uint32_t>(32, thread_count_ - uint32_t(w) * 32);
    warps_[w].existing = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1);
  }
  context_.launch = &launch;
  context_.run = this;
  checking_ = shadow_enabled();
  trace_.reset(new_block_trace(thread_count_));
  context_.trace = trace_.get();
}

// The body of a runner fiber: start the next unstarted thread and run it to
// its end, until none is left. A thread that waits keeps this fiber.
ctx::fiber BlockRun::runner(BlockRun* b, ctx::fiber&& sink) {
  b->scheduler_ = std::move(sink);  // only the block's loop starts runners
  sigjmp_buf jump;
  if (sigsetjmp(jump, 0) != 0) {
    // A fault or a failed assert in the thread that ran on this fiber: the
    // handler recorded it and aborted the launch; this thread is over.
    tl_in_runtime = 0;
  }
  while (!b->launch_.aborted.load(std::memory_order_relaxed) &&
         b->next_thread_ < b->thread_count_) {
    SimThread& t =
        b->threads_[b->start_order_.empty() ? b->next_thread_ : b->start_order_[b->next_thread_]];
    ++b->next_thread_;
    t.started = true;
    t.fault_jump = &jump;
    enter_thread(t);
    tl_in_runtime = 0;
    b->launch_.body(b->launch_.closure);
    b->thread_exited(*tl_thread);  // the same thread, maybe resumed several times
  }
  tl_thread = nullptr;
  return std::move(b->scheduler_);
}

void BlockRun::run(uint32_t linear) {
  context_.linear = linear;
  context_.index = unflatten(linear, launch_.grid);
  tl_block = &context_;
  blockIdx = context_.index;
  context_.fenced = false;
  if (checking_) shadow_block_start(context_, thread_count_);
  if (trace_) trace_block_start(context_);
  next_thread_ = exited_ = 0;
  idle_ = 0;
  ready_.clear();
  ready_head_ = 0;
  at_barrier_.clear();
  barrier_sum_ = barrier_or_ = 0;
  barrier_and_ = 1;
  schedule_block(linear);
  for (auto& t : threads_) {
    t.started = false;
    t.global_accesses = 0;
    t.exited = false;
    t.wait = SimThread::Wait::kNone;
  }
  for (auto& w : warps_) {
    w.exited = 0;
    w.pending.clear();
  }
  group_barriers_.clear();
  auto resume = [&](ctx::fiber f) {
    switching_from_ = nullptr;
    f = std::move(f).resume();
    if (f) switching_from_->handle = std::move(f);  // that thread now waits
  };
  while (true) {
    if (launch_.aborted.load(std::memory_order_relaxed)) {
      // Dropping a suspended fiber unwinds its stack; its thread never ends.
      for (auto& t : threads_) t.handle = {};
      break;
    }
    if (SimThread* t = take_ready()) {
      resume(std::move(t->handle));
    } else if (next_thread_ < thread_count_) {
      resume(ctx::fiber(std::allocator_arg, PooledStack{},
                        [this](ctx::fiber&& sink) { return runner(this, std::move(sink)); }));
    } else if (exited_ < thread_count_) {
      report_deadlock();
      for (auto& t : threads_) t.handle = {};
      break;
    } else {
      break;
    }
  }
  if (tl_pending_writes) resolve_pending_writes();
  if (trace_) trace_phase_end(context_, 0);
  tl_block = nullptr;
  tl_thread = nullptr;
}

SimThread* BlockRun::take_ready() {
  if (ready_head_ == ready_.size()) return nullptr;
  SimThread* t = ready_[ready_head_++];
  if (ready_head_ == ready_.size()) ready_.clear(), ready_head_ = 0;
  return t;
}

// Right after a switch into a thread: keep the continuation of whoever
// switched here.
void BlockRun::arrived(ctx::fiber&& from) {
  if (switching_from_)
    switching_from_->handle = std::move(from);
  else
    scheduler_ = std::move(from);
}

void BlockRun::suspend(SimThread& t) {
  // Go straight to the next ready thread if there is one: half the switches
  // of going through the block's loop.
  SimThread* next = take_ready();
  switching_from_ = &t;
  const int in_runtime = tl_in_runtime;  // this thread's, kept across the switch
  ctx::fiber from = next ? std::move(next->handle).resume() : std::move(scheduler_).resume();
  arrived(std::move(from));
  enter_thread(t);
  tl_in_runtime = in_runtime;
}

void BlockRun::thread_exited(SimThread& t) {
  t.exited = true;
  ++exited_;
  if (t.global_accesses == 0) ++idle_;
  WarpState& w = warps_[t.warp];
  w.exited |= 1u << t.lane;
  // Threads that have returned no longer hold the others back.
  if (!at_barrier_.empty() && next_thread_ == thread_count_ &&
      at_barrier_.size() == thread_count_ - exited_) {
    if (synccheck_enabled())
      synccheck_barrier("partial", at_barrier_.front()->wait_pc,
                        "__syncthreads() was reached by " + std::to_string(at_barrier_.size()) +
                            " of the block's " + std::to_string(thread_count_) +
                            " threads; the other " + std::to_string(exited_) +
                            " returned without reaching it (a barrier inside a branch not all "
                            "threads take: undefined on a GPU)");
    release_barrier();
  }
  for (size_t i = 0; i < w.pending.size();) {
    if (warp_op_complete(w, w.pending[i]))
      complete_warp_op(w, i);
    else
      ++i;
  }
}

// ---- schedules (CUDALAB_SCHEDULE) ------------------------------------------------------

void BlockRun::schedule_block(uint32_t linear) {
  const Schedule& s = schedule();
  if (s.kind == Schedule::kInOrder) return;
  start_order_.resize(thread_count_);
  for (uint32_t i = 0; i < thread_count_; ++i) start_order_[i] = i;
  if (s.kind == Schedule::kReverse) {
    std::reverse(start_order_.begin(), start_order_.end());
  } else {
    // The same order for a block whichever worker runs it.
    if (!random_) random_ = std::make_unique<std::mt19937_64>();
    random_->seed(s.seed ^ (uint64_t(linear) * 0x9e3779b97f4a7c15ull));
    std::shuffle(start_order_.begin(), start_order_.end(), *random_);
  }
}

void BlockRun::reorder(std::vector<SimThread*>& threads) {
  const Schedule& s = schedule();
  if (s.kind == Schedule::kReverse)
    std::sort(threads.begin(), threads.end(),
              [](const SimThread* a, const SimThread* b) { return a->linear > b->linear; });
  else if (s.kind == Schedule::kRandom)
    std::shuffle(threads.begin(), threads.end(), *random_);
}

// ---- the block barrier ---------------------------------------------------------

uint64_t BlockRun::barrier(int predicate, uintptr_t pc) {
  SimThread& t = *tl_thread;
  barrier_sum_ += predicate != 0;
  barrier_and_ &= predicate != 0;
  barrier_or_ |= predicate != 0;
  at_barrier_.push_back(&t);
  t.wait = SimThread::Wait::kBarrier;
  t.wait_pc = pc;
  if (next_thread_ == thread_count_ && at_barrier_.size() == thread_count_ - exited_) {
    release_barrier();  // this thread came last: it goes on at once
  } else {
    if (!warps_[t.warp].pending.empty()) recheck_active_masks(warps_[t.warp]);
    suspend(t);
  }
  return t.result;
}

void BlockRun::release_barrier() {
  if (synccheck_enabled() && !at_barrier_.empty()) {
    const uintptr_t first = at_barrier_.front()->wait_pc;
    std::vector<uintptr_t> pcs = {first};
    for (const SimThread* t : at_barrier_)
      if (std::find(pcs.begin(), pcs.end(), t->wait_pc) == pcs.end() &&
          !same_source_line(t->wait_pc, first))
        pcs.push_back(t->wait_pc);
    if (pcs.size() > 1) {
      // The barrier inside the branch or loop that not every thread takes
      // is the one to fix: of the lines the threads wait at, the earliest
      // in the file (a barrier in a loop whose trip count differs per
      // thread comes before the one after the loop).
      std::vector<uintptr_t> calls;
      for (uintptr_t pc : pcs) calls.push_back(pc - 1);
      const auto lines = symbolize(calls);
      size_t pick = 0;
      long best = -1;
      for (size_t i = 0; i < lines.size(); ++i) {
        const size_t colon = lines[i].rfind(':');
        const long line = colon == std::string::npos ? -1 : std::atol(lines[i].c_str() + colon + 1);
        if (line > 0 && (best < 0 || line < best)) best = line, pick = i;
      }
      synccheck_barrier("divergent", pcs[pick],
                        "Threads of one block wait at different __syncthreads() calls "
                        "(divergent barriers: undefined on a GPU): this one is inside a branch "
                        "or a loop that not every thread of the block takes as often");
    }
  }
  // One result for every thread: count, and or or over the predicates.
  const uint64_t packed =
      uint64_t(barrier_sum_) | uint64_t(barrier_and_) << 32 | uint64_t(barrier_or_) << 33;
  if (trace_) trace_phase_end(context_, at_barrier_.empty() ? 0 : at_barrier_.front()->wait_pc);
  reorder(at_barrier_);
  for (SimThread* t : at_barrier_) {
    t->result = packed;
    t->wait = SimThread::Wait::kNone;
    if (t != tl_thread) ready_.push_back(t);
  }
  at_barrier_.clear();
  barrier_sum_ = barrier_or_ = 0;
  barrier_and_ = 1;
  if (checking_) shadow_barrier(context_);
}

// ---- tiles larger than a warp --------------------------------------------------------

void BlockRun::group_barrier(uint32_t first, uint32_t size, uintptr_t pc) {
  SimThread& t = *tl_thread;
  auto g = std::find_if(group_barriers_.begin(), group_barriers_.end(),
                        [&](const GroupBarrier& x) { return x.first == first && x.size == size; });
  if (g == group_barriers_.end()) {
    group_barriers_.push_back({first, size, {}});
    g = group_barriers_.end() - 1;
  }
  g->waiting.push_back(&t);
  t.wait = SimThread::Wait::kBarrier;
  t.wait_pc = pc;
  release_groups_if_complete();
  if (t.wait != SimThread::Wait::kNone) suspend(t);
}

void BlockRun::release_groups_if_complete() {
  for (size_t i = 0; i < group_barriers_.size();) {
    GroupBarrier& g = group_barriers_[i];
    // Complete when every thread of the range has started and either
    // arrived or returned.
    const uint32_t end = std::min(g.first + g.size, thread_count_);
    bool complete = true;
    for (uint32_t k = g.first; complete && k < end; ++k) complete = threads_[k].started;
    uint32_t live = 0;
    for (uint32_t k = g.first; complete && k < end; ++k) live += !threads_[k].exited;
    complete = complete && g.waiting.size() == live;
    if (!complete) {
      ++i;
      continue;
    }
    reorder(g.waiting);
    for (SimThread* w : g.waiting) {
      w->wait = SimThread::Wait::kNone;
      if (w != tl_thread) ready_.push_back(w);
    }
    group_barriers_.erase(group_barriers_.begin() + long(i));
    // racecheck: counted as a block barrier (it may hide a race between
    // other threads, never invent one).
    if (checking_) shadow_barrier(context_);
  }
}

void* BlockRun::scratch(size_t bytes_per_thread) {
  const size_t need = bytes_per_thread * thread_count_;
  // Grows with the largest type reduced so far; a block that reduces a
  // larger type than before gets a new buffer before any thread uses it.
  if (scratch_.size() < need) scratch_.resize(need);
  // The runtime's memory, which the block's threads may use (memcheck).
  context_.scratch_low = reinterpret_cast<uintptr_t>(scratch_.data());
  context_.scratch_high = context_.scratch_low + scratch_.size();
  return scratch_.data();
}

// ---- warp operations --------------------------------------------------------------

bool BlockRun::warp_op_complete(const WarpState& w, const PendingWarpOp& p) const {
  const unsigned needed = p.mask & w.existing & ~w.exited;
  if (p.op == detail::WarpOp::kActiveMask) {
    // Complete once every other live lane has been started and waits
    // somewhere else: those are not converged with this one.
    const uint32_t base = uint32_t(&w - warps_.data()) * 32;
    for (unsigned l = 0; l < 32; ++l) {
      if (!((needed >> l) & 1u) || ((p.arrived >> l) & 1u)) continue;
      const SimThread& t = threads_[base + l];
      if (!t.started || t.wait == SimThread::Wait::kNone) return false;
    }
    return true;
  }
  // Every lane named in the mask has arrived, returned, or does not exist.
  // A lane not yet started will arrive.
  return (p.arrived & needed) == needed;
}

void BlockRun::recheck_active_masks(WarpState& w) {
  for (size_t i = 0; i < w.pending.size();) {
    if (w.pending[i].op == detail::WarpOp::kActiveMask && warp_op_complete(w, w.pending[i]))
      complete_warp_op(w, i);
    else
      ++i;
  }
}

uint64_t BlockRun::warp_op(detail::WarpOp op, unsigned mask, uint64_t value, int arg, int width,
                           uintptr_t pc) {
  SimThread& t = *tl_thread;
  WarpState& w = warps_[t.warp];
  // Lanes of one warp meet at the operation with the same mask.
  if (op == detail::WarpOp::kActiveMask) mask = w.existing;
  size_t index = 0;
  while (index < w.pending.size() && (w.pending[index].mask != mask ||
                                      (w.pending[index].op == detail::WarpOp::kActiveMask) !=
                                          (op == detail::WarpOp::kActiveMask) ||
                                      (w.pending[index].arrived >> t.lane) & 1u))
    ++index;
  if (index == w.pending.size()) {
    w.pending.emplace_back();
    w.pending.back().mask = mask;
    w.pending.back().op = op;
  }
  PendingWarpOp& p = w.pending[index];
  if (synccheck_enabled() && op != detail::WarpOp::kActiveMask && !((mask >> t.lane) & 1u)) {
    char what[200];
    std::snprintf(what, sizeof(what),
                  "%s called by lane %u with mask 0x%08x, which leaves out the calling lane "
                  "(undefined on a GPU: the mask must name the lane itself)",
                  op_name(op), t.lane, mask);
    synccheck_barrier("warp-mask", pc, what);
  }
  p.arrived |= 1u << t.lane;
  p.value[t.lane] = value;
  p.arg[t.lane] = arg;
  p.width[t.lane] = width;
  t.wait = SimThread::Wait::kWarp;
  t.wait_pc = pc;
  if (warp_op_complete(w, p)) {
    complete_warp_op(w, index);
  } else {
    if (w.pending.size() > 1) recheck_active_masks(w);  // this lane now waits elsewhere
    if (t.wait != SimThread::Wait::kNone) suspend(t);
  }
  return t.result;
}

void BlockRun::complete_warp_op(WarpState& w, size_t index) {
  using detail::WarpOp;
  PendingWarpOp p = std::move(w.pending[index]);
  w.pending.erase(w.pending.begin() + long(index));
  const unsigned lanes = p.arrived;
  // Reductions and votes over the lanes that took part.
  uint64_t ballot = 0, sum = 0, all_and = ~uint64_t(0), all_or = 0, all_xor = 0;
  uint32_t umin = 0xffffffffu, umax = 0;
  int32_t smin = 0x7fffffff, smax = int32_t(0x80000000u);
  for (unsigned l = 0; l < 32; ++l) {
    if (!((lanes >> l) & 1u)) continue;
    const uint64_t v = p.value[l];
    if (v) ballot |= 1ull << l;
    const uint32_t u = uint32_t(v);
    sum += u;
    all_and &= u;
    all_or |= u;
    all_xor ^= u;
    umin = std::min(umin, u);
    umax = std::max(umax, u);
    smin = std::min(smin, int32_t(u));
    smax = std::max(smax, int32_t(u));
  }
  const uint32_t warp_base = uint32_t(&w - warps_.data()) * 32;
  if (checking_ && p.op == WarpOp::kSync) shadow_warp_sync(warp_base / 32, lanes);
  if (synccheck_enabled() && p.op != WarpOp::kActiveMask && (p.mask & ~lanes)) {
    const unsigned missing = p.mask & ~lanes;
    const SimThread& first = threads_[warp_base + unsigned(std::countr_zero(lanes ? lanes : 1u))];
    char what[260];
    std::snprintf(what, sizeof(what),
                  "%s with mask 0x%08x names lanes that %s (lanes 0x%08x): undefined on a GPU, "
                  "where it may hang; name only the lanes that reach this call",
                  op_name(p.op), p.mask,
                  (missing & ~w.existing) == missing ? "the block does not have" : "have returned",
                  missing);
    synccheck_barrier("warp-mask", first.wait_pc, what);
  }
  std::vector<SimThread*>& released = released_;
  released.clear();
  for (unsigned l = 0; l < 32; ++l) {
    if (!((lanes >> l) & 1u)) continue;
    SimThread& t = threads_[warp_base + l];
    uint64_t r = 0;
    const int width = p.width[l] > 0 ? p.width[l] : 32;
    const int base = int(l) - int(l) % width;
    auto from = [&](int src) -> uint64_t {
      // A lane that is not taking part gives back an undefined value on a
      // GPU; here, the asking lane's own.
      if (src < 0 || src > 31 || !((lanes >> src) & 1u)) return p.value[l];
      return p.value[src];
    };
    switch (p.op) {
      case WarpOp::kSync:
        break;
      case WarpOp::kShflIdx:
        r = from(base + ((p.arg[l] % width) + width) % width);
        break;
      case WarpOp::kShflUp: {
        const int src = int(l) - p.arg[l];
        r = src < base ? p.value[l] : from(src);
        break;
      }
      case WarpOp::kShflDown: {
        const int src = int(l) + p.arg[l];
        r = src >= base + width ? p.value[l] : from(src);
        break;
      }
      case WarpOp::kShflXor: {
        const int src = int(l) ^ p.arg[l];
        r = src >= base + width ? p.value[l] : from(src);
        break;
      }
      case WarpOp::kBallot:
        r = ballot;
        break;
      case WarpOp::kMatchAny: {
        for (unsigned k = 0; k < 32; ++k)
          if (((lanes >> k) & 1u) && p.value[k] == p.value[l]) r |= 1ull << k;
        break;
      }
      case WarpOp::kMatchAll: {
        bool same = true;
        for (unsigned k = 0; k < 32; ++k)
          if (((lanes >> k) & 1u) && p.value[k] != p.value[l]) same = false;
        r = same ? (uint64_t(lanes) | 1ull << 32) : 0;
        break;
      }
      case WarpOp::kReduceAdd:
        r = uint32_t(sum);
        break;
      case WarpOp::kReduceMinUnsigned:
        r = umin;
        break;
      case WarpOp::kReduceMaxUnsigned:
        r = umax;
        break;
      case WarpOp::kReduceMinSigned:
        r = uint32_t(smin);
        break;
      case WarpOp::kReduceMaxSigned:
        r = uint32_t(smax);
        break;
      case WarpOp::kReduceAnd:
        r = uint32_t(all_and);
        break;
      case WarpOp::kReduceOr:
        r = uint32_t(all_or);
        break;
      case WarpOp::kReduceXor:
        r = uint32_t(all_xor);
        break;
      case WarpOp::kActiveMask:
        r = lanes;
        break;
    }
    t.result = r;
    t.wait = SimThread::Wait::kNone;
    if (&t != tl_thread) released.push_back(&t);
  }
  reorder(released);
  ready_.insert(ready_.end(), released.begin(), released.end());
}

// ---- deadlocks ----------------------------------------------------------------------

void BlockRun::report_deadlock() {
  // Every live thread waits and none can go on.
  std::vector<uintptr_t> pcs;
  for (const auto& t : threads_)
    if (!t.exited) pcs.push_back(t.wait_pc);
  auto lines = symbolize(pcs);
  std::ostringstream s;
  const uint3 b = context_.index;
  s << "block (" << b.x << "," << b.y << "," << b.z
    << ") can never finish: " << (thread_count_ - exited_) << " of its " << thread_count_
    << " threads wait for others that will not come\n";
  // Threads waiting at the same place for the same thing, as one line each.
  struct Group {
    std::string what, where;
    uint3 first;
    size_t count = 0;
  };
  std::vector<Group> groups;
  size_t k = 0;
  for (const auto& t : threads_) {
    if (t.exited) continue;
    std::string what;
    if (t.wait == SimThread::Wait::kBarrier) {
      what = "__syncthreads()";
    } else {
      const WarpState& w = warps_[t.warp];
      std::string name = "a warp operation";
      unsigned mask = 0;
      for (const auto& p : w.pending)
        if ((p.arrived >> t.lane) & 1u) name = op_name(p.op), mask = p.mask;
      char m[64];
      std::snprintf(m, sizeof(m), " with mask 0x%08x (warp %u)", mask, t.warp);
      what = name + m;
    }
    const std::string& where = lines[k++];
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const Group& x) { return x.what == what && x.where == where; });
    if (g == groups.end())
      groups.push_back({what, where, t.index, 1});
    else
      ++g->count;
  }
  for (const auto& g : groups) {
    s << "cudalab:     " << g.count << (g.count == 1 ? " thread" : " threads") << " from ("
      << g.first.x << "," << g.first.y << "," << g.first.z << ") wait at " << g.what;
    if (!g.where.empty()) s << " at " << g.where;
    s << "\n";
  }
  bool expected = false;
  if (launch_.deadlocked.compare_exchange_strong(expected, true)) launch_.deadlock_report = s.str();
  launch_.aborted.store(true);
}

}  // namespace cudalab::rt

// ---- the kernel-language entry points --------------------------------------------------

namespace cudalab::detail {

__attribute__((noinline)) int block_barrier(BarrierOp op, int predicate, const void* pc) {
  using namespace cudalab::rt;
  if (!tl_thread) return predicate;  // outside a kernel: nothing to wait for
  const RuntimeScope runtime;
  if (!pc) pc = __builtin_return_address(0);
  const uint64_t r = tl_block->run->barrier(predicate, reinterpret_cast<uintptr_t>(pc));
  switch (op) {
    case BarrierOp::kCount:
      return int(uint32_t(r));
    case BarrierOp::kAnd:
      return int((r >> 32) & 1);
    case BarrierOp::kOr:
      return int((r >> 33) & 1);
    default:
      return 0;
  }
}

__attribute__((noinline)) uint64_t warp_op(WarpOp op, unsigned mask, uint64_t value, int arg,
                                           int width, const void* pc) {
  using namespace cudalab::rt;
  if (!tl_thread) return value;
  const RuntimeScope runtime;
  if (!pc) pc = __builtin_return_address(0);
  return tl_block->run->warp_op(op, mask, value, arg, width, reinterpret_cast<uintptr_t>(pc));
}

unsigned active_mask() {
  using namespace cudalab::rt;
  if (!tl_thread) return 1;
  const RuntimeScope runtime;
  return unsigned(tl_block->run->warp_op(WarpOp::kActiveMask, 0, 0, 0, 32,
                                         reinterpret_cast<uintptr_t>(__builtin_return_address(0))));
}

unsigned lane_id() {
  using namespace cudalab::rt;
  return tl_thread ? tl_thread->lane : 0;
}

}  // namespace cudalab::detail

void __syncthreads() {
  cudalab::detail::block_barrier(cudalab::detail::BarrierOp::kSync, 0, __builtin_return_address(0));
}

namespace cudalab::detail {

void tile_sync(unsigned first, unsigned size) {
  using namespace cudalab::rt;
  if (!tl_thread) return;
  const RuntimeScope runtime;
  tl_block->run->group_barrier(first, size,
                               reinterpret_cast<uintptr_t>(__builtin_return_address(0)));
}

void* tile_scratch(size_t bytes_per_thread) {
  using namespace cudalab::rt;
  if (!tl_thread) return nullptr;
  const RuntimeScope runtime;
  return tl_block->run->scratch(bytes_per_thread);
}

}  // namespace cudalab::detail
