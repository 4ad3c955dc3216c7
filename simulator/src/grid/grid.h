// A launch as the grid runs it: the launch in flight, each CUDA thread's and
// block's context on its worker, faults, and the workers themselves. Not a
// public header.
#pragma once

#include <pthread.h>

#include <atomic>
#include <csetjmp>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "cudalab/kernel_language.h"
#include "grid/fiber.h"

namespace cudalab::rt {

struct Launch;
struct SimThread;

struct FaultInfo {
  int signal = 0;
  uintptr_t address = 0;
  uintptr_t pc = 0;
  bool write = false;
  bool stack_overflow = false;
  uint3 block{0, 0, 0};
  uint3 thread{0, 0, 0};
  // Where the lanes of a warp ran together (block loops' vector loops,
  // tl_lanes): the last of them; `thread` is the first.
  uint3 last_thread{0, 0, 0};
  uint32_t lanes = 1;
  // The calls that led there (return addresses, innermost first): a fault in
  // the simulator's or the standard library's code is shown at the line of
  // the student's that called it.
  uintptr_t callers[24] = {};
  int caller_count = 0;
};

// The first of a fault's code addresses (its pc, then its callers) that is
// the student's line: not in the simulator, its headers or the system's.
std::string student_line(const FaultInfo& f);
// What went wrong, in a line: "invalid write to address 0x0: a null pointer
// (...)", "integer division by zero (...)".
std::string fault_words(const FaultInfo& f);

// A kernel's access that a GPU faults on (no memory there, or the host's):
// this CUDA thread stops before it, and the launch with it, as a fault does.
[[noreturn]] void stop_thread_at_access(uintptr_t address, bool write, uintptr_t pc);
// A launch that timed out (CUDALAB_TIMEOUT, the judge's deadline): the
// calling kernel thread ends here, at the line of the call that returns to
// `return_address` (an access's hook, outside the runtime's own code).
void stop_thread_at_timeout(uintptr_t return_address);
// Whether a thread's stop was put off since the last call (the watchdog
// then signals again soon).
bool stop_put_off();
// device_printf.cpp's definitions of printf, puts and putchar, linked.
void link_device_printf();
// The same launch, its block ended while its threads wait: where thread `t`
// of block `block` waits, said if no thread of the launch is stopped running.
void locate_timeout_at_wait(Launch& l, uint3 block, const SimThread& t);

// What lies at `address` for a report of a bad access: "N bytes after the
// last byte of the 400-byte buffer `d_c` allocated at f.cu:3", a null
// pointer, host memory; "" when nothing can be said.
std::string describe_bad_address(uintptr_t address);

struct Launch {
  detail::LaunchSite site;
  dim3 grid, block;
  size_t shmem = 0;
  void (*body)(void*) = nullptr;
  void* closure = nullptr;
  uintptr_t frame_low = 0, frame_high = 0;  // the launch's objects in host memory
  uint32_t id = 0;
  uint32_t threads_per_block = 0;
  // Read by every worker at each of its threads' switches: a cache line of
  // its own, apart from what workers write (idle_threads at each block's end).
  alignas(64) std::atomic<bool> aborted{false};
  std::atomic<bool> faulted{false};
  FaultInfo fault;
  alignas(64) std::atomic<uint64_t> idle_threads{0};
  std::atomic<bool> deadlocked{false};
  std::string deadlock_report;  // written by the block that found it
  bool cooperative = false;
  // CUDALAB_TRACE_SAMPLE: the blocks that may run, in order (linear);
  // empty: all. They run until the launch has recorded
  // kSampleAccesses (at least the first sample_first of them, one of each
  // kind); then `sample` is cut to those that ran.
  std::vector<uint32_t> sample;
  size_t sample_first = 0;
  uint64_t sample_accesses_before = 0;  // the trace's accesses when the launch began
  // ... and a launch like one already traced (its kernel, grid and block)
  // records nothing, and a large one (sampled) runs no block at all: a
  // prediction needs one of each, and a benchmark's hundred repeats would
  // take the time. A small repeat runs whole: a loop on the host that
  // waits for a small kernel's result (a flag, a graph's while
  // condition) goes on as on a GPU.
  bool sample_repeat = false;
  bool sample_repeat_runs = false;
  // The global buffers a sampled, traced launch's recorded blocks loaded
  // from (allocation ids; loads, not stores or atomics), kept when
  // track_loads. A launch like one traced before is traced again when what
  // these held has changed since (the host copied other data in): a
  // benchmark's run of a kernel on new inputs is predicted from its own
  // sample.
  bool track_loads = false;
  std::mutex loaded_mutex;
  std::vector<uint32_t> loaded;
  // What the launch used that a prediction of its time leaves out
  // (trace::Launch::uses has the bits).
  std::atomic<uint32_t> uses{0};
  // racecheck: global-memory accesses of different phases never race (a new
  // launch, or a cooperative launch's grid sync, starts a phase).
  uint32_t shadow_phase = 0;
  // CUDALAB_TIMEOUT: the OS threads running this launch's blocks (to stop
  // them), and where a stopped thread was.
  std::mutex runners_mutex;
  std::vector<pthread_t> runners;
  std::atomic<bool> timed_out{false};
  std::atomic<bool> timed_out_by_deadline{false};  // the judge's deadline, not CUDALAB_TIMEOUT
  std::atomic<bool> timeout_located{false};
  FaultInfo timeout_at;
  // Where a thread waited when its block was ended (at a barrier, a warp
  // operation): timeout_at at the end of the launch if no thread was
  // stopped running.
  std::atomic<bool> timeout_wait_noted{false};
  FaultInfo timeout_wait_at;
  struct GridBarrier* grid_barrier = nullptr;  // cooperative launches
  // A thread that stopped the launch on purpose (a failed assert, a misuse
  // the simulator detects): its message and the error the launch ends with.
  std::atomic<bool> stopped{false};
  std::string stop_report;
  cudaError_t stop_error = cudaSuccess;
};

// The running launch used tensor cores, textures, ... (a bit of
// trace::kUses*): a prediction of its time leaves that out.
void note_launch_use(uint32_t bit);

// A sampled launch (CUDALAB_TRACE_SAMPLE) runs blocks of its sample until
// it has recorded this many accesses (traces/trace.h counts them).
constexpr uint64_t kSampleAccesses = 4'000'000;

// "cudalab: kernel 'k' (launched at file.cu:12)": how every report about a
// launch begins.
std::string launch_heading(const Launch& l);

// Ends the calling CUDA thread and aborts its launch with `error`, printing
// `report` after the launch (first one wins). Does not return.
[[noreturn]] void stop_launch_from_thread(cudaError_t error, const std::string& report);
// The same for a fault the runtime finds in the running thread: "cudalab:
// kernel 'k' (launched at f.cu:12) stopped in thread (x,y,z) of block
// (x,y,z): `what`; every later CUDA call returns `error`'s name".
[[noreturn]] void stop_thread(cudaError_t error, const std::string& what);

// The context of one CUDA thread while it runs on a worker.
struct SimThread {
  uint3 index{0, 0, 0};
  uint32_t linear = 0;
  uint32_t warp = 0, lane = 0;
  uint64_t global_accesses = 0;
  boost::context::fiber handle;  // this thread, suspended while it waits
  sigjmp_buf* fault_jump = nullptr;
  // Just above the frames of the kernel on its fiber's stack (the runner's
  // own frame): the thread's locals lie below it, and what is above is not
  // the thread's (memcheck: a host block mapped right above a stack).
  uintptr_t stack_top = 0;
  uint64_t result = 0;    // of the barrier or warp operation it waited at
  uintptr_t wait_pc = 0;  // where it waits (for deadlock reports)
  // kLockstep: at a memory access, until its warp's other lanes catch up;
  // kObject: on an object of the program's (a cuda::barrier's phase, a
  // latch, a semaphore, an atomic's wait), until another thread releases it.
  enum class Wait : uint8_t { kNone, kBarrier, kWarp, kLockstep, kObject } wait = Wait::kNone;
  bool exited = false;
  bool started = false;
};

class BlockRun;

struct BlockContext {
  Launch* launch = nullptr;
  // racecheck: this block's barrier interval on its worker (grows at every
  // block start and barrier), and the first of them (initcheck of shared).
  uint32_t epoch = 0, first_epoch = 0;
  bool fenced = false;  // a thread of the block called __threadfence()
  // Scratch memory of tiles larger than a warp (the runtime's, on its heap).
  uintptr_t scratch_low = 0, scratch_high = 0;
  BlockRun* run = nullptr;
  uint3 index{0, 0, 0};
  uint32_t linear = 0;
  struct BlockTrace* trace = nullptr;  // CUDALAB_TRACE: what this block records
  // While the block runs as loops (block_fibers.cpp): the jump buffer of the
  // one runner that runs every thread, where any of them leaves to.
  sigjmp_buf* loops_jump = nullptr;
};

// Where thread `t` of block `b` leaves to when it faults or is stopped.
inline sigjmp_buf* fault_jump_of(const SimThread& t, const BlockContext& b) {
  return b.loops_jump ? b.loops_jump : t.fault_jump;
}

// constinit: read straight from TLS, without a wrapper call at each use.
extern constinit thread_local SimThread* tl_thread;
// Block loops (simulator/passes/block_loops.cpp): where the code running
// now runs the lanes of a warp together (a loop that enters none of them),
// how many, from tl_thread on (the threads' entries are one table); else 0.
extern constinit thread_local uint32_t tl_lanes;
// Notes in `f` the thread that is running (a range where lanes run together).
void note_running_thread(FaultInfo& f);
// "thread (x,y,z)", or "one of the threads (x,y,z) to (x,y,z)" for lanes
// that ran together.
std::string running_thread_words(const FaultInfo& f);
// Set while runtime code runs for a kernel thread (a barrier, a report): the
// runtime's use of library code that the instrumented build also compiled
// (std::string, say) is not the kernel's memory access. A thread that leaves
// through siglongjmp resets it.
extern constinit thread_local int tl_in_runtime;
struct RuntimeScope {
  RuntimeScope() { ++tl_in_runtime; }
  ~RuntimeScope() { --tl_in_runtime; }
  RuntimeScope(const RuntimeScope&) = delete;
  RuntimeScope& operator=(const RuntimeScope&) = delete;
};
extern constinit thread_local BlockContext* tl_block;
// A kernel thread that enters the runtime (a barrier, a warp operation)
// after its launch timed out ends there, before the runtime takes anything;
// the call that returns to `return_address` is the line said.
inline void stop_if_timed_out(const void* return_address) {
  if (!tl_in_runtime && tl_block && tl_block->launch->timed_out.load(std::memory_order_relaxed))
    stop_thread_at_timeout(reinterpret_cast<uintptr_t>(return_address));
}

// Runs every block of `launch` on the worker pool; returns when all are done.
void run_grid(Launch& launch);
unsigned worker_count();
// Makes the calling OS thread a worker (once per thread): its dynamic shared
// memory arena and its signal stack.
void prepare_worker();
// Notes the calling OS thread as one running `launch`'s blocks (the
// watchdog interrupts them).
void register_runner(Launch& launch);
// A cooperative launch (cooperative.cpp): all `blocks` at once, each on its
// own OS thread.
void run_cooperative(Launch& launch, uint64_t blocks);
// The signal handlers of fault_handlers.cpp (already installed before main).
void install_fault_handlers();
// Cooperative launches: this OS thread's fibers get stacks without guard
// pages (see stack_pool.cpp); whether one of them overflowed.
void use_unguarded_stacks();
bool unguarded_stack_overflowed();

// The dynamic shared memory of the block running on this worker, and its size.
uintptr_t dynamic_shared_base();

// Whether `name` is a kernel's (a __global__ function the program has).
bool is_kernel_name(const std::string& name);

bool instrumented_build();
// Lock-step warps run (lockstep.cpp): asked for, or warp-synchronous code in
// an instrumented build. `lockstep_wanted` is asked for, in any build.
bool lockstep_enabled();
bool lockstep_wanted();
// Where the rewriter found warp-synchronous code ("file.cu:12"), or nullptr.
const char* warp_synchronous_source();

}  // namespace cudalab::rt
