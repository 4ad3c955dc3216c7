// Shared state of the simulator runtime: errors, allocations, the launch in
// flight and the per-CUDA-thread context. Not a public header.
#pragma once

#include <pthread.h>

#include <atomic>
#include <boost/context/fiber.hpp>
#include <csetjmp>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cudalab/kernel_language.h"
#include "cudalab/sim.h"
#include "cudalab/trace/format.h"
#include "settings.h"

namespace cudalab::rt {

// ---- errors ---------------------------------------------------------------
// Every API call ends through api_result: a sticky error (a kernel fault)
// wins over everything until cudaDeviceReset; other errors become the last
// error, which cudaGetLastError returns once.
cudaError_t api_result(cudaError_t e);
void set_sticky_error(cudaError_t e);
cudaError_t sticky_error();
void clear_errors();
void record_last_error(cudaError_t e);
// cudaLimitDevRuntimePendingLaunchCount: how many launches made by kernels
// may be unfinished at once.
size_t pending_launch_limit();
cudaError_t take_last_error(bool reset);

// ---- allocations ------------------------------------------------------------
// racecheck and initcheck's records of device memory (shadow.cpp says what
// they hold): 10.5 bytes per 4-byte word, within the checks' 3x budget.
struct GlobalShadow {
  std::unique_ptr<uint64_t[]> race;    // per word: last writer and readers
  std::unique_ptr<uint16_t[]> sites;   // per word: their code addresses
  std::unique_ptr<uint8_t[]> written;  // per word, 4 bits: bytes initialized
};

// The site and variable name_next_allocation gave the next cudaMalloc.
extern thread_local std::pair<std::string, std::string> tl_next_allocation;

struct Allocation {
  uint32_t id = 0;
  uintptr_t base = 0;
  void* block = nullptr;  // its mapping (map_device_block), guard pages and red zones included
  size_t size = 0;
  std::string site;  // "file.cu:31", where cudaMalloc was called
  std::string name;  // "d_a", the variable of that call when the source shows it
  // Writer tracking: one entry per 4-byte word, (block << 32) | (thread + 1);
  // 0 means not written while tracking was on.
  std::unique_ptr<std::atomic<uint64_t>[]> writers;
  // racecheck and initcheck: one entry per 4-byte word (see shadow.cpp).
  std::unique_ptr<GlobalShadow> shadow;
  std::atomic<uint32_t> shadow_launch{0};  // the launch its race fields belong to
  std::mutex shadow_mutex;
  bool managed = false;      // host code writes it too: always initialized
  bool host_filled = false;  // device memory Thrust's host code fills: always initialized
};

// The device heap. Lookups during a launch need no lock: allocations only
// change in host API calls, and the host waits while a launch runs.
class AllocationTable {
 public:
  // `block`: the mapping the buffer is in (map_device_block).
  Allocation* add(void* p, size_t size, std::string site, void* block);
  bool remove(void* p);  // false: not the start of a live allocation
  Allocation* find(uintptr_t address) const;
  Allocation* find_base(const void* p) const;
  // The allocation whose red zones (`margin` bytes either side) hold
  // `address`, when it is in no allocation.
  const Allocation* nearest(uintptr_t address, size_t margin) const;
  // The allocation that starts last at or before `address`, if any.
  const Allocation* preceding(uintptr_t address) const;
  // The allocation that starts first after `address`, if any.
  const Allocation* following(uintptr_t address) const;
  // Whether `address` is between the lowest and highest allocation (with
  // red zones): most other accesses (locals, shared memory) are not.
  bool in_span(uintptr_t address) const {
    return address >= span_low_.load(std::memory_order_relaxed) &&
           address < span_high_.load(std::memory_order_relaxed);
  }
  std::vector<Allocation*> all() const;
  void clear();

 private:
  void rebuild_index();
  mutable std::mutex mutex_;
  std::atomic<uintptr_t> span_low_{0}, span_high_{0};
  std::vector<std::unique_ptr<Allocation>> owned_;
  std::vector<Allocation*> by_address_;
  uint32_t next_id_ = 1;
};
AllocationTable& allocations();
// Pinned, mapped and registered host memory (cudaHostAlloc, cudaHostRegister):
// kernels may use it.
bool kernel_visible_host_memory(uintptr_t address);
// "" when a kernel may use `address` (not device memory), or what host
// memory it is; *unmapped when no memory is there at all.
std::string host_memory_kind(uintptr_t address, bool* unmapped);
// A kernel's own memory outside device buffers: its locals, its arguments,
// its worker's thread-locals (cheap checks first, for every such access).
bool kernel_own_memory(uintptr_t address);
// What outside_device_memory found of an access, for the trace: `mistake`
// when the access is one (out of bounds, a freed buffer, host memory, no
// memory at all), and the buffer it missed when one is near.
struct StrayAccess {
  bool mistake = false;
  const Allocation* buffer = nullptr;
};
// A kernel's access that hit no live device buffer and no shared memory.
// memcheck (when on) reports what is wrong with it; false when a GPU would
// fault on it (the caller stops the thread before the access).
bool outside_device_memory(uintptr_t address, unsigned size, bool write, uintptr_t pc,
                           StrayAccess* stray);
// This thread's thread-local blocks (every module's) and its control block.
void thread_local_span(uintptr_t* low, uintptr_t* high);

// Each worker's arena for dynamic shared memory (the most a block may have).
constexpr size_t kDynamicSharedArena = 228 * 1024;

// ---- the simulated device --------------------------------------------------------
const cudaDeviceProp& device_properties();
// Dynamic shared memory a launch of this kernel may ask for (48 KiB unless
// raised with cudaFuncSetAttribute).
size_t dynamic_shared_limit(const char* kernel_name);
int blocks_per_multiprocessor(int block_size, size_t dynamic_shared);

// ---- launches and threads -----------------------------------------------------
struct FaultInfo {
  int signal = 0;
  uintptr_t address = 0;
  uintptr_t pc = 0;
  bool write = false;
  bool stack_overflow = false;
  uint3 block{0, 0, 0};
  uint3 thread{0, 0, 0};
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
  struct GridBarrier* grid_barrier = nullptr;  // cooperative launches
  // A thread that stopped the launch on purpose (a failed assert, a misuse
  // the simulator detects): its message and the error the launch ends with.
  std::atomic<bool> stopped{false};
  std::string stop_report;
  cudaError_t stop_error = cudaSuccess;
};

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
  uintptr_t stack_low = 0, stack_high = 0;  // of the fiber running now
  struct BlockTrace* trace = nullptr;       // CUDALAB_TRACE: what this block records
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

// ---- checks (CUDALAB_CHECK): memcheck.cpp, check_reports.cpp, finding.h ------------
constexpr size_t kRedzone = 256;  // bytes guarded before and after each allocation
// A device buffer of `bytes` in a mapping of its own (memory.cpp); `block`
// is the mapping, for unmap_device_block.
void* map_device_block(size_t bytes, void** block);
void unmap_device_block(void* block, size_t bytes);
// Where a buffer's mapping lies: [low, high) in all, guard pages included,
// of which [usable_low, usable_high) (red zones, buffer, the rest of its
// last page) may be touched.
struct DeviceBlockSpan {
  uintptr_t low, usable_low, usable_high, high;
};
DeviceBlockSpan device_block_span(const void* block, size_t bytes);
// check_settings().flags, read before main: the checks' hot paths test these.
extern const CheckFlags g_check_flags;
inline bool memcheck_enabled() { return g_check_flags.memcheck; }
inline bool synccheck_enabled() { return g_check_flags.synccheck; }
// A barrier finding of the block running now: "partial" (reached by part of
// the block, the others returned), "divergent" (threads wait at different
// barriers), "warp-mask" (a __syncwarp or shuffle mask that leaves out the
// calling lane or names lanes that exited or wait elsewhere).
void synccheck_barrier(const char* kind, uintptr_t pc, const std::string& what);
void start_checks();
// Runtime calls that fail or misuse memory, reported with the caller's line.
void memcheck_api_error(const char* call, cudaError_t e, const void* caller,
                        const std::string& why);
std::string explain_bad_free(const void* ptr);
std::string explain_bad_range(const void* dst, const void* src, size_t bytes);
// Why a copy's direction does not fit its pointers ("" when it does).
std::string direction_problem(const void* dst, const void* src, cudaMemcpyKind kind);
// Under memcheck, freed device memory is kept (never reused) so that a use
// after free can be named; returns whether it kept `a`.
bool memcheck_keep_freed(const Allocation& a);
// The dynamic shared memory of the block running on this worker, and its size.
uintptr_t dynamic_shared_base();
// Prints this launch's findings; true when there were any.
bool memcheck_report_launch(const Launch& l);

// What checks found, as threads find it (check_reports.cpp). Findings are
// folded by kind and code address(es): each is counted, and the first of a
// kind is described; after the launch each becomes a Finding (finding.h).
struct FindingKey {
  uint8_t tool = 0;  // kMemcheck, kRacecheck, kInitcheck
  uint8_t kind = 0;  // memcheck: Problem; racecheck: Hazard
  uint8_t size = 0;
  bool write = false;
  uintptr_t pc = 0, pc_other = 0;
  auto operator<=>(const FindingKey&) const = default;
};
enum Tool : uint8_t { kMemcheck = 1, kRacecheck = 2, kInitcheck = 3, kSynccheck = 4 };
enum Problem : uint8_t { kOutOfBounds, kFreed, kMisaligned, kHostMemory };
// racecheck: the two accesses of a hazard, earlier then later (kWriteRead: a
// read after another thread's write).
enum Hazard : uint8_t { kWriteWrite, kWriteRead, kReadWrite };
struct FindingDetails {
  const char* space = "__global__";
  uintptr_t address = 0;
  uint3 thread{0, 0, 0}, block{0, 0, 0};
  bool other_known = false;  // racecheck: the other thread
  uint3 other_thread{0, 0, 0}, other_block{0, 0, 0};
  std::string location;  // where the address is, in words
};
// Counts one finding; true when it is the first of its kind in this launch
// (the caller then describes it).
bool count_finding(const FindingKey& key);
void describe_finding(const FindingKey& key, FindingDetails details);
// A finding about the access the running thread makes now.
void access_finding(const FindingKey& key, const char* space, uintptr_t address,
                    const std::string& location);
void memcheck_problem(Problem p, const char* space, uintptr_t address, unsigned size, bool write,
                      uintptr_t pc, const std::string& location);
// "the 4000-byte buffer `d_a` allocated at main.cu:31"
std::string buffer_words(const Allocation& a);
// "byte 4 of the 4000-byte buffer `d_a` allocated at main.cu:31"
std::string describe_global(const Allocation& a, uintptr_t address);

// ---- racecheck, initcheck: shadow memory (shadow.cpp) ----------------------------
inline bool racecheck_enabled() { return g_check_flags.racecheck; }
inline bool initcheck_enabled() { return g_check_flags.initcheck; }
inline bool shadow_enabled() { return racecheck_enabled() || initcheck_enabled(); }
// The static __shared__ variables of this program (offset in the program's
// thread-local block, size, name), and this thread's base for them.
struct StaticSharedVariable {
  size_t offset = 0, size = 0;
  std::string name;
};
const std::vector<StaticSharedVariable>& static_shared_variables();
// The program's other thread-locals (threadIdx, pointers to dynamic shared
// memory, ...): not shared memory even when they lie between variables.
const std::vector<StaticSharedVariable>& other_thread_locals();
const StaticSharedVariable* static_shared_variable_at(size_t offset);
// The variable that ends last at or before `offset` (none: nullptr).
const StaticSharedVariable* static_shared_variable_before(size_t offset);
// Whether `name` is a kernel's (a __global__ function the program has).
bool is_kernel_name(const std::string& name);
uintptr_t static_shared_base();
// The end of the guard after the static __shared__ variables (this thread's).
constexpr size_t kSharedGuard = 4096;
uintptr_t shared_guard_end();
// The block's shared memory on this worker, for the access callbacks.
struct SharedRanges {
  uintptr_t dynamic_low = 0, dynamic_size = 0;  // the whole arena
  uintptr_t static_low = 0, static_size = 0;    // first to last static variable
  // The worker's thread-locals (threadIdx, ...): never device memory.
  uintptr_t locals_low = 0, locals_size = 0;
  bool ready = false;
};
extern thread_local SharedRanges tl_shared;
void prepare_shared_ranges();
// An access to the block's shared memory (inside tl_shared's ranges).
// Line `line` of the program's source `file` ("" if it cannot be read).
std::string source_line(const std::string& file, long line);

// `atomic`: 0 for a plain access, kAtomicReads for an atomic that reads
// (read-modify-write; initcheck looks), kAtomicStore for one that only
// writes.
constexpr uint8_t kAtomicReads = 1, kAtomicStore = 2;
void shared_access(uintptr_t address, unsigned size, bool write, uint8_t atomic, uintptr_t pc);
// Whether a shared-memory address is outside the block's own variables
// (memcheck then has reported it); memcheck on.
bool shared_out_of_bounds(uintptr_t address, unsigned size, bool write, uintptr_t pc);
// An access to a device allocation with a shadow.
void global_access(Allocation& a, uintptr_t address, unsigned size, bool write, uint8_t atomic,
                   uintptr_t pc);
void shadow_allocation(Allocation& a);
uint32_t next_shadow_phase();
// Host copies and memsets initialize device memory.
void shadow_host_wrote(const void* device_address, size_t bytes);
// cudaMemcpy3D with a CUDA array on either side (textures.cpp).
cudaError_t memcpy3d_with_arrays(const cudaMemcpy3DParms* p);
void shadow_block_start(BlockContext& b, uint32_t threads);
// Write-after-write hazards wait until their store is done (same value: no
// hazard); the next access or the block's end settles them.
extern constinit thread_local bool tl_pending_writes;
void resolve_pending_writes();
void shadow_barrier(BlockContext& b);
// __syncwarp among `lanes` of warp `warp` of the block running now.
void shadow_warp_sync(uint32_t warp, unsigned lanes);

// ---- instrumentation, writers, tracing ------------------------------------------
bool instrumented_build();
// Lock-step warps run (lockstep.cpp): asked for, or warp-synchronous code in
// an instrumented build. `lockstep_wanted` is asked for, in any build.
bool lockstep_enabled();
bool lockstep_wanted();
// Where the rewriter found warp-synchronous code ("file.cu:12"), or nullptr.
const char* warp_synchronous_source();
bool writer_tracking();
void ensure_writer_table(Allocation& a);
void allocations_changed();
void trace_launch_begin(const Launch& launch);
void trace_launch_end(const Launch& launch);
void trace_allocation(const Allocation& a);
void trace_free(const Allocation& a);
void trace_finding(const Launch& l, const std::string& json);
bool tracing();
// A block's shared memory as the trace names it (allocation ids).
using cudalab::trace::kDynamicSharedId;
using cudalab::trace::kNoBufferId;
using cudalab::trace::kStaticSharedId;
// Accesses of the thread running now. Shared memory is recorded under two
// allocation ids of its own, at its offset in the block's static variables
// or its dynamic shared memory.
void record_access_for_trace(const Allocation& a, uintptr_t address, unsigned size, bool write,
                             bool atomic, uintptr_t pc);
void record_shared_access_for_trace(bool dynamic, uint64_t offset, unsigned size, bool write,
                                    bool atomic, uintptr_t pc);
// An access that was a mistake (outside_device_memory's StrayAccess): at
// its offset from the buffer it missed (past its end, or before its start
// as a negative number), or under kNoBufferId at its address.
void record_stray_access_for_trace(const StrayAccess& s, uintptr_t address, unsigned size,
                                   bool write, bool atomic, uintptr_t pc);
// A block's recording (null when there is no trace): its threads' accesses
// and basic blocks wait there until a barrier releases the block or it ends,
// when they are grouped into warp-level requests and steps.
struct BlockTraceDeleter {
  void operator()(BlockTrace* b) const;
};
BlockTrace* new_block_trace(uint32_t threads);
void trace_block_start(BlockContext& block);
// `barrier_pc`: the __syncthreads() that ended the phase (0: the block's end).
void trace_phase_end(BlockContext& block, uintptr_t barrier_pc);
// Basic blocks of instrumented code: numbered at start-up, then recorded as
// each thread runs them.
void number_basic_blocks(uint32_t* first, uint32_t* last);
void record_basic_block(uint32_t guard, uintptr_t pc);
// Floating-point operations one thread does in each basic block of the
// program, keyed by the code address its block callback returns to (what
// record_basic_block gets), for the blocks up to `last_block` (the highest
// such address wanted: the code past it is not read). False when they could
// not be counted (no objdump).
struct FloatOps {
  uint32_t single_ops = 0, double_ops = 0;
};
bool count_float_ops(std::unordered_map<uintptr_t, FloatOps>& per_block, uintptr_t last_block);

// Where the program is loaded, and its file (the instrumented twin's, when
// it runs).
uintptr_t main_program_base();
std::string main_program_file();
// "file.cu:12" for code addresses of this program ("" when unknown).
std::vector<std::string> symbolize(const std::vector<uintptr_t>& pcs);
// Whether two return addresses are calls from one source line (the compiler
// may copy a call into both branches of an if). Cached.
bool same_source_line(uintptr_t a, uintptr_t b);

// ---- graphs and stream-ordered allocation (graphs.cpp, stream_ordered.cpp) ----------
// A device buffer in the allocation table, as cudaMalloc makes one (memory.cpp).
Allocation* add_device_buffer(void* p, size_t bytes, void* block, std::string site,
                              std::string name);
// cudaFree's work for `call` (cudaFree, cudaFreeAsync, a graph's free node):
// the buffer leaves the table; its mapping goes unless memcheck keeps it or
// a graph owns it.
cudaError_t free_device_buffer(void* ptr, const char* call, const void* caller);
// Whether a graph's memory node owns the buffer at `ptr` (then the graph
// keeps its mapping); it notes that the buffer was freed.
bool graph_buffer_freed(void* ptr);
// cudaFreeAsync's pool bookkeeping for a buffer leaving the table.
void pool_buffer_freed(void* ptr);
// At a synchronization, pools give back what they keep above their release
// threshold.
void release_pool_memory();
unsigned stream_flags(cudaStream_t stream);  // streams.cpp
// Calls a capture does not allow: cudaSuccess when it does, else the error
// (and the capture is invalidated). kUnsafe: cudaMalloc, cudaFree (refused
// in global and thread-local capture); kDeviceSync: refused in every mode.
enum class CaptureRule { kUnsafe, kDeviceSync };
cudaError_t capture_refuses(CaptureRule rule);
// cudaStreamSynchronize and cudaStreamQuery of a capturing stream.
cudaError_t capture_refuses_stream_sync(cudaStream_t stream);
// Work into the legacy stream while a blocking stream captures.
cudaError_t capture_refuses_legacy(cudaStream_t stream);
// Stream work recorded into the capture (each returns the call's result).
cudaError_t capture_memcpy(cudaStream_t stream, const cudaMemcpy3DParms& p);
cudaError_t capture_memset(cudaStream_t stream, void* ptr, size_t pitch, unsigned value,
                           unsigned element_size, size_t width, size_t height);
cudaError_t capture_host(cudaStream_t stream, cudaHostFn_t fn, void* data);
cudaError_t capture_alloc(cudaStream_t stream, void** ptr, size_t bytes, const std::string& site,
                          const std::string& name);
cudaError_t capture_free(cudaStream_t stream, void* ptr);
// Events in capture: true when the call was the capture's (result in *e).
bool capture_event_record(cudaEvent_t event, cudaStream_t stream, unsigned flags, cudaError_t* e);
bool capture_event_wait(cudaStream_t stream, cudaEvent_t event, unsigned flags, cudaError_t* e);
bool event_recorded_in_capture(cudaEvent_t event);
void forget_capture_of(cudaStream_t stream, cudaEvent_t event);

}  // namespace cudalab::rt
