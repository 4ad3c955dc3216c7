// One block of a launch running on a worker: its CUDA threads as fibers, and
// what they wait for together. The class's parts live in files of their own:
// block_fibers.cpp (starting and switching threads), barriers.cpp (the block
// barrier, tile barriers), warp_ops.cpp (shuffles, votes, reductions) and
// deadlock.cpp (the report when no thread can go on). Not a public header.
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "grid/grid.h"
#include "traces/trace.h"

namespace cudalab::rt {

// A warp-level operation that some lanes of a warp have reached and the
// others in its mask have not yet: shuffles, votes, matches, reductions and
// __syncwarp all wait here until every lane of the mask arrives (or exits).
struct PendingWarpOp {
  // Only the arrived lanes' operands are ever read: left unset, as clearing
  // 512 bytes at every shuffle costs more than the shuffle.
  PendingWarpOp(unsigned m, detail::WarpOp o) : mask(m), op(o) {}
  unsigned mask = 0;
  unsigned arrived = 0;
  detail::WarpOp op = detail::WarpOp::kSync;
  // Whether every lane so far passed the same argument and width as the
  // first lane to arrive (most shuffles: one width, often one offset): then
  // the shuffle reads no lane's width, nor (with same_arg) any lane's
  // argument, and computes each lane's result without a branch.
  bool same_arg = true, same_width = true;
  int first_arg = 0, first_width = 0;
  void record(unsigned lane, uint64_t v, int a, int w) {
    if (!arrived) {
      first_arg = a, first_width = w;
    } else {
      same_arg = same_arg && a == first_arg;
      same_width = same_width && w == first_width;
    }
    arrived |= 1u << lane;
    value[lane] = v;
    arg[lane] = a;
    width[lane] = w;
  }
  std::array<uint64_t, 32> value;
  std::array<int, 32> arg;
  std::array<int, 32> width;
};

struct WarpState {
  unsigned exited = 0;    // lanes that have returned
  unsigned existing = 0;  // lanes the block has (the last warp may be partial)
  std::vector<PendingWarpOp> pending;
  // Lock-step warps (lockstep.cpp): the lanes waiting at a memory access,
  // and the code address of each one's access.
  unsigned at_access = 0;
  std::array<uintptr_t, 32> access_pc{};
  // Calls whose mask leaves out the caller (warp_ops.cpp): the last such
  // call's address, the lanes that made it since it changed (each once) and
  // the mask each passed.
  uintptr_t unnamed_pc = 0;
  unsigned unnamed_lanes = 0;
  std::array<unsigned, 32> unnamed_mask;
};

// Warp loops (simulator/passes/block_loops.cpp, warp_loops.cpp): a thread's
// frame starts with this header, where its lane says what it waits at; the
// pass writes the same offsets. A warp's frames are laid out by field, so
// that a loop over its lanes reads and writes each field as one array: the
// field at byte `o` of a thread's frame (`s` bytes) is, for lane `l`, at
// 32 x o + l x s from its warp's first frame (warp w's: w x 32 x stride from
// the block's).
class WarpLoopFrame {
 public:
  enum Flags : uint32_t { kRunnable, kArrived, kPending, kAtBarrier, kExited };
  // The header's fields, at these offsets of a thread's frame:
  // state (u32): the pass's, where the thread goes on (0: the kernel's start);
  // flags (u32): Flags; result (u64): of the wait it goes on from; value
  // (u64): a warp operation's value, a barrier's predicate; op (u32):
  // detail::WarpOp, a barrier's detail::BarrierOp; mask, arg, width (u32);
  // pc (u64): just after the wait's call (reports read the byte before).
  static constexpr size_t kState = 0, kFlags = 4, kResult = 8, kValue = 16, kOp = 24, kMask = 28,
                          kArg = 32, kWidth = 36, kPc = 40, kHeader = 48;

  WarpLoopFrame(unsigned char* warp_frames, uint32_t lane) : frames_(warp_frames), lane_(lane) {}
  // A field's array of 32 (one a lane) in a warp's frames.
  template <class T>
  static T* column(unsigned char* warp_frames, size_t offset) {
    return reinterpret_cast<T*>(warp_frames + 32 * offset);
  }
  uint32_t& state() const { return at<uint32_t>(kState); }
  uint32_t& flags() const { return at<uint32_t>(kFlags); }
  uint64_t& result() const { return at<uint64_t>(kResult); }
  uint64_t& value() const { return at<uint64_t>(kValue); }
  uint32_t& op() const { return at<uint32_t>(kOp); }
  uint32_t& mask() const { return at<uint32_t>(kMask); }
  int32_t& arg() const { return at<int32_t>(kArg); }
  int32_t& width() const { return at<int32_t>(kWidth); }
  uint64_t& pc() const { return at<uint64_t>(kPc); }

 private:
  template <class T>
  T& at(size_t offset) const {
    return *reinterpret_cast<T*>(frames_ + 32 * offset + lane_ * sizeof(T));
  }
  unsigned char* frames_;
  uint32_t lane_;
};

class BlockRun {
 public:
  explicit BlockRun(Launch& launch);
  // The worker's block runner for `launch`: the one it kept from its last
  // launch when the block has the same shape (its threads and warps are
  // then made once, not at every launch), else a new one. Launches of a few
  // blocks each spent a quarter of their time making them.
  static BlockRun& for_worker(Launch& launch);
  // After the worker's part of a launch: a runner that recorded a trace
  // ends with the launch (its recording is written when it goes).
  static void worker_done();
  // Runs block `linear` to the end (or until the launch is aborted).
  void run(uint32_t linear);
  uint64_t idle_threads() const { return idle_; }

  // Called by the thread running now.
  // Inlined into their callers: after a fiber switch every return up the
  // call chain is mispredicted, so the path from the kernel to the switch is
  // kept one frame deep.
  [[gnu::always_inline]] inline uint64_t barrier(int predicate, uintptr_t pc);
  uint64_t warp_op(detail::WarpOp op, unsigned mask, uint64_t value, int arg, int width,
                   uintptr_t pc);
  // The same without waiting: the thread arrives, and the answer says
  // whether it must wait (its result is in tl_thread->result once not).
  bool barrier_arrive(int predicate, uintptr_t pc);
  bool warp_arrive(detail::WarpOp op, unsigned mask, uint64_t value, int arg, int width,
                   uintptr_t pc);
  // The same, inlined into a block body's arrival (warp_ops.cpp only): the
  // common case inline, every other (another operation pending, a mask
  // leaving out the caller, __activemask, lock-step) in arrive_generally.
  [[gnu::always_inline]] inline bool arrive_at_warp_op(detail::WarpOp op, unsigned mask,
                                                       uint64_t value, int arg, int width,
                                                       uintptr_t pc);
  bool arrive_generally(detail::WarpOp op, unsigned mask, uint64_t value, int arg, int width,
                        uintptr_t pc);
  // A barrier among threads [first, first + size) of the block (a tile
  // larger than a warp), and per-thread scratch memory for such tiles.
  void group_barrier(uint32_t first, uint32_t size, uintptr_t pc);
  // Lock-step warps: the running thread is about to access shared or global
  // memory at `pc`; it goes on when its warp's lanes may (lockstep.cpp).
  void lockstep_access(uintptr_t pc);
  void* scratch(size_t bytes_per_thread);
  // Waits on an object (libcu++'s barriers, latches, semaphores, pipelines
  // and atomic waits; cudalab/detail/sync.h): the running thread sleeps
  // until a thread of the block releases the object's address; a release
  // that completes a barrier's phase orders memory as a barrier does.
  void wait_on_object(const void* object, uintptr_t pc);
  void release_object(const void* object, bool completes_barrier);
  void order_memory();

  // Block loops (simulator/passes/block_loops.cpp): a kernel compiled with
  // them takes the offer at its entry and runs every thread of the block
  // itself, from one thread to the next; frames are its threads' memory.
  bool take_block_loops();
  void* block_loops_frames(size_t stride, uint32_t* threads);
  void* block_loops_threads(uint64_t* stride);
  bool in_block_loops() const { return block_loops_taken_; }
  // Warp loops (warp_loops.cpp), a kernel with warp operations or barrier
  // votes: the lanes of warp `warp` that arrived at warp operations are met
  // as the fibers would meet them; the answer is how many lanes may go on.
  // Then, when no warp can go on, the block barrier: true when it released
  // the threads at it.
  uint32_t settle_warp(uint32_t warp);
  bool warp_loops_barrier();
  uint32_t warp_loops_uniform() const;  // the warps whose lanes all go on from one place
  WarpLoopFrame warp_frame(uint32_t thread) const {
    return {warp_frames(thread / 32), thread % 32};
  }
  unsigned char* warp_frames(uint32_t warp) const {
    return frames_base_ + size_t(warp) * 32 * frames_stride_;
  }
  // What a runner's jump buffer is given when its thread ends itself.
  static constexpr int kThreadExit = 2;

 private:
  static boost::context::fiber runner(BlockRun* b, boost::context::fiber&& sink);
  void thread_exited(SimThread& t);
  void finish_block_loops();    // the kernel's block body has returned
  void run_block_loops_here();  // the block's body on the worker's own stack
  void run_fibers();            // else the block's threads on fibers
  void run_thread(SimThread& t, sigjmp_buf& jump, bool offer_loops);
  static void jumped_back();
  void release_barrier();
  bool warp_op_complete(const WarpState& w, const PendingWarpOp& p) const;
  void complete_warp_op(WarpState& w, size_t index);
  [[gnu::always_inline]] inline void suspend(SimThread& t);
  [[gnu::always_inline]] inline void arrived(boost::context::fiber&& from);
  [[gnu::always_inline]] inline SimThread* take_ready();
  void recheck_active_masks(WarpState& w);
  // The running lane passed `mask`, which does not name it (warp_ops.cpp).
  void lane_left_out(WarpState& w, detail::WarpOp op, unsigned mask, uintptr_t pc);
  // A lane of `w` now waits elsewhere or has returned: the lanes at a memory
  // access may be able to go on.
  void recheck_lockstep(WarpState& w);
  void report_deadlock();

  // CUDALAB_SCHEDULE: the order threads start in and leave barriers in.
  void schedule_block(uint32_t linear);
  void reorder(std::vector<SimThread*>& threads);
  std::vector<uint32_t> start_order_;        // empty: in order
  std::vector<SimThread*> released_;         // lanes a warp operation lets go
  std::unique_ptr<std::mt19937_64> random_;  // made for random schedules only

  void start_launch(Launch& launch);  // the per-launch part of making one

  const dim3 shape_;  // the block's: what a launch must have to reuse this runner
  Launch* launch_;
  BlockContext context_;
  std::unique_ptr<BlockTrace, BlockTraceDeleter> trace_;
  bool checking_ = false;             // racecheck or initcheck: keep the shadow's epochs
  bool lockstep_ = false;             // lock-step warps (lockstep.cpp)
  bool block_loops_ = false;          // this launch's blocks may run as loops
  bool block_loops_offered_ = false;  // to the thread starting the block now
  bool block_loops_taken_ = false;
  // A block of this launch ran as loops, so every block will (the kernel's
  // entry takes them whenever offered): the next blocks start without a fiber.
  bool block_loops_known_ = false;
  sigjmp_buf* block_loops_jump_ = nullptr;
  // Warp loops met lanes here (settle_warp), which changes threads' states.
  bool warp_loops_settled_ = false;
  // The last block ran as loops that left every thread's state as run()
  // sets it: no need to reset it.
  bool threads_clean_ = false;
  std::vector<unsigned char> frames_;
  // The threads' frames: `stride` bytes a thread (warp loops: a
  // WarpLoopFrame first, each warp's laid out by field).
  unsigned char* frames_base_ = nullptr;
  size_t frames_stride_ = 0;
  uint32_t warp_uniform_ = 0;  // warp_loops_uniform
  uint32_t thread_count_ = 0;
  uint32_t next_thread_ = 0;
  uint32_t exited_ = 0;
  uint64_t idle_ = 0;
  std::vector<SimThread> threads_;
  std::vector<WarpState> warps_;
  std::vector<SimThread*> ready_;
  size_t ready_head_ = 0;
  // Threads switch straight to the next ready thread; the block's loop is
  // held here meanwhile. `switching_from_` is the thread that switched last
  // (null: the loop did), so the one resumed can keep its continuation.
  boost::context::fiber scheduler_;
  SimThread* switching_from_ = nullptr;
  struct GroupBarrier {
    uint32_t first = 0, size = 0;
    std::vector<SimThread*> waiting;
  };
  std::vector<GroupBarrier> group_barriers_;
  std::vector<unsigned char> scratch_;
  void release_groups_if_complete();
  // The block barrier.
  std::vector<SimThread*> at_barrier_;
  std::vector<std::pair<const void*, SimThread*>> on_objects_;
  int barrier_sum_ = 0, barrier_and_ = 1, barrier_or_ = 0;
};

// Each arrived lane's result of the warp operation `p` (`lanes`: those that
// arrived), as the last lane to arrive computes them (warp_ops.cpp).
void warp_op_results(const PendingWarpOp& p, unsigned lanes, std::array<uint64_t, 32>& result);

// What __syncthreads_count, _and or _or return, from a barrier's packed
// result (count, and in bit 32, or in bit 33).
int barrier_vote(detail::BarrierOp op, uint64_t packed);

// "__shfl_sync", "__ballot_sync (or __any_sync/__all_sync)", ...: the call a
// warp operation came from, for reports.
const char* warp_op_name(detail::WarpOp op);

// ---- switching between the block's threads ------------------------------------------
// Defined here so that every place a thread waits (barriers.cpp,
// warp_ops.cpp) inlines them: see barrier() above.

inline void enter_thread(SimThread& t) {
  tl_thread = &t;
  threadIdx = t.index;
}

inline SimThread* BlockRun::take_ready() {
  if (ready_head_ == ready_.size()) return nullptr;
  SimThread* t = ready_[ready_head_++];
  if (ready_head_ == ready_.size()) ready_.clear(), ready_head_ = 0;
  return t;
}

// Right after a switch into a thread: keep the continuation of whoever
// switched here.
inline void BlockRun::arrived(boost::context::fiber&& from) {
  if (switching_from_)
    switching_from_->handle = std::move(from);
  else
    scheduler_ = std::move(from);
}

inline void BlockRun::suspend(SimThread& t) {
  // Go straight to the next ready thread if there is one: half the switches
  // of going through the block's loop.
  SimThread* next = take_ready();
  switching_from_ = &t;
  const int in_runtime = tl_in_runtime;  // this thread's, kept across the switch
  // The switch and the scheduler's loop are the runtime's own code (the
  // watchdog's signal leaves them alone: on_timeout_signal).
  tl_in_runtime = in_runtime + 1;
  boost::context::fiber from =
      next ? std::move(next->handle).resume() : std::move(scheduler_).resume();
  arrived(std::move(from));
  enter_thread(t);
  tl_in_runtime = in_runtime;
}

}  // namespace cudalab::rt

// Whether code compiled for AVX2 may run (block_fibers.cpp): the processor
// has it and CUDALAB_BLOCK_LOOPS is not narrow.
extern "C" bool cudalab_block_loops_wide();
