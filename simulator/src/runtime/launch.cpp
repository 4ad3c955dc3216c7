// A kernel launch: check the configuration as CUDA does, run the grid, and
// turn a fault into the report and the sticky error a GPU would give.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "checks/checks.h"
#include "checks/shadow.h"
#include "cudalab/sim.h"
#include "cudalab/trace/format.h"
#include "cudalab/trace/sample.h"
#include "grid/grid.h"
#include "runtime/allocations.h"
#include "runtime/capture.h"
#include "runtime/device.h"
#include "runtime/errors.h"
#include "runtime/settings.h"
#include "traces/trace.h"

namespace cudalab::rt {
namespace {

std::mutex g_summary_mutex;
cudalab::sim::LaunchSummary g_summary;
uint32_t g_launch_counter = 0;

std::string dims(dim3 d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

// Why a configuration cannot run, in a student's words; "" when it can.
std::string configuration_problem(const char* kernel, dim3 grid, dim3 block, size_t shmem,
                                  cudaError_t* code) {
  const uint64_t threads = uint64_t(block.x) * block.y * block.z;
  // CUDA 13 answers every one of these with cudaErrorInvalidValue (measured on
  // an H200; older CUDA said cudaErrorInvalidConfiguration for some).
  *code = cudaErrorInvalidValue;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0)
    return "the grid " + dims(grid) + " has a zero dimension; every dimension must be at least 1";
  if (block.x == 0 || block.y == 0 || block.z == 0)
    return "the block " + dims(block) + " has a zero dimension; every dimension must be at least 1";
  if (threads > 1024 || block.x > 1024 || block.y > 1024 || block.z > 64) {
    return "a block has at most 1024 threads (x, y <= 1024, z <= 64); this one is " + dims(block) +
           " = " + std::to_string(threads) + " threads";
  }
  if (grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535)
    return "the grid " + dims(grid) + " is too large (x < 2^31, y and z <= 65535)";
  if (const size_t limit = dynamic_shared_limit(kernel); shmem > limit) {
    return std::to_string(shmem) + " bytes of dynamic shared memory were asked for; this kernel " +
           "may have " + std::to_string(limit) +
           (limit == 48 * 1024 ? " (48 KiB) unless its limit is raised with cudaFuncSetAttribute("
                                 "kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)"
                               : "");
  }
  return "";
}

}  // namespace

std::string launch_heading(const Launch& l) {
  return std::string("cudalab: kernel '") + l.site.kernel + "' (launched at " + l.site.file + ":" +
         std::to_string(l.site.line) + ")";
}

std::string fault_words(const FaultInfo& f) {
  if (f.signal == SIGILL)
    return "the thread reached code the compiler proved can never run correctly (usually a "
           "null pointer that is always null, or a missing return)";
  if (f.signal == SIGFPE)
    return "integer division by zero (a GPU gives an undefined value instead of stopping; "
           "either way the result is wrong)";
  if (f.stack_overflow)
    return "the thread ran out of stack (deep recursion or a very large local array)";
  std::string said = describe_bad_address(f.address);
  // A host pointer given to a kernel: whose memory it is (this runs after
  // the launch, on the host's thread).
  bool unmapped = false;
  if (said.empty())
    if (const std::string host = host_memory_kind(f.address, &unmapped); !host.empty())
      said = host + ", which a kernel cannot use: give it a buffer from cudaMalloc";
  if (said.empty()) said = "not memory this program may use";
  char address[32];
  std::snprintf(address, sizeof(address), "0x%" PRIxPTR, f.address);
  return std::string("invalid ") + (f.write ? "write to" : "read of") + " address " + address +
         ": " + said;
}

namespace {

void report_fault(const Launch& l) {
  const FaultInfo& f = l.fault;
  std::string where;
  if (const std::string line = student_line(f); !line.empty()) where = " at " + line;
  std::fprintf(stderr, "%s stopped%s\n", launch_heading(l).c_str(), where.c_str());
  std::fprintf(stderr, "cudalab:     by %s in block (%u,%u,%u)\n", running_thread_words(f).c_str(),
               f.block.x, f.block.y, f.block.z);
  std::fprintf(stderr, "cudalab:     %s\n", fault_words(f).c_str());
  std::fprintf(stderr, "cudalab:     the launch is aborted; every later CUDA call returns %s\n",
               f.signal == SIGFPE || f.signal == SIGILL ? "cudaErrorLaunchFailure"
               : f.stack_overflow                       ? "cudaErrorHardwareStackError"
                                                        : "cudaErrorIllegalAddress");
}

}  // namespace

cudalab::sim::LaunchSummary last_summary() {
  std::lock_guard lock(g_summary_mutex);
  return g_summary;
}

}  // namespace cudalab::rt

namespace cudalab::rt {
// What the running launch used that a prediction leaves out.
void note_launch_use(uint32_t bit) {
  if (tl_block && tl_block->launch) tl_block->launch->uses.fetch_or(bit, std::memory_order_relaxed);
}
}  // namespace cudalab::rt

namespace cudalab::detail::wmma {
void note_tensor_cores() { cudalab::rt::note_launch_use(cudalab::trace::kUsesTensorCores); }
}  // namespace cudalab::detail::wmma

namespace cudalab::detail {

// ---- dynamic parallelism ----------------------------------------------------------

namespace {
struct ChildLaunch {
  void (*run)(void*);
  void* state;
  void (*free)(void*);
};
// Launches made by the grid running now, in order (the workers add them).
std::mutex g_children_mutex;
std::vector<ChildLaunch> g_children;
// Launches made by kernels that have not finished (a grid finishes when its
// own children have): what cudaLimitDevRuntimePendingLaunchCount bounds.
std::atomic<size_t> g_unfinished{0};
thread_local bool tl_running_children = false;

std::vector<ChildLaunch> take_children() {
  std::lock_guard lock(g_children_mutex);
  return std::exchange(g_children, {});
}

// After a host launch's grid: its children, each followed by its own
// descendants (depth first), in the order they were launched. A child's
// launch() call finds this loop running and leaves its children to it.
void run_child_launches() {
  if (tl_running_children) return;
  tl_running_children = true;
  struct Level {
    std::vector<ChildLaunch> children;
    size_t next = 0;
    bool owned = false;  // the children of a child grid (not of the host's)
  };
  std::vector<Level> levels;
  levels.push_back({take_children(), 0, false});
  while (!levels.empty()) {
    Level& level = levels.back();
    if (level.next == level.children.size()) {
      if (level.owned) --g_unfinished;  // the grid that launched these is done
      levels.pop_back();
      continue;
    }
    const ChildLaunch c = level.children[level.next++];
    c.run(c.state);
    c.free(c.state);
    levels.push_back({take_children(), 0, true});
  }
  tl_running_children = false;
}

// A launch that does not run (a sticky error): its children are dropped.
void drop_child_launches() {
  if (tl_running_children) return;
  for (const ChildLaunch& c : take_children()) {
    c.free(c.state);
    --g_unfinished;
  }
}
// A prediction's traced run (CUDALAB_TRACE_SAMPLE) records one launch of
// each kernel, call and shape: a benchmark's repeats would take the time and
// add nothing. A sampled repeat on other inputs is recorded again, though:
// the buffers the launch loaded from are kept with what they held before
// and after it ran, and a later launch like it is traced anew when one of
// them holds something else (a histogram of skewed bytes after one of
// uniform bytes), at most kMaxTracedRuns times (a loop whose sampled
// launches change their own inputs). Inputs in other buffers than the last
// traced launch's (a kernel run on a second array) are not looked for: a
// ping-pong of two buffers is the same work.
constexpr int kMaxTracedRuns = 8;
struct LoadedBuffer {
  uint32_t id = 0;
  uint64_t before = 0, after = 0;  // digests around the traced launch
};
struct TracedLaunch {
  int runs = 0;
  std::vector<LoadedBuffer> loaded;  // of its last traced run
  uint64_t arguments = 0;            // the digest of its last traced run's argument bytes
};
// A launch's kernel and call (the call's code too: one call of a template
// or a macro launches a kernel for each of its instantiations) and shape.
using LaunchKey = std::tuple<std::string, int, uintptr_t, uint32_t, uint32_t, uint32_t, uint32_t,
                             uint32_t, uint32_t>;
std::mutex g_traced_mutex;
std::map<LaunchKey, TracedLaunch>& traced_launches() {
  static std::map<LaunchKey, TracedLaunch> traced;
  return traced;
}

// Bytes summed up in 64 bits (four independent lanes of multiply and
// shift: several gigabytes a second).
uint64_t digest_run(const unsigned char* p, size_t n) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  uint64_t h[4] = {1, 2, 3, 4};
  size_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; ++k) {
      uint64_t w;
      std::memcpy(&w, p + i + 8 * k, 8);
      h[k] = (h[k] ^ w) * kMul;
      h[k] ^= h[k] >> 29;
    }
  uint64_t out = n * kMul;
  for (; i < n; ++i) out = (out ^ p[i]) * kMul;
  for (uint64_t x : h) out = ((out ^ x) * kMul) ^ (out >> 31);
  return out;
}

// A buffer's bytes as far as telling new inputs goes: all of a buffer up
// to 1 MiB, of a larger one 64 windows of 16 KiB spread over it (a
// benchmark's repeats check it at every launch: a whole 256 MiB buffer
// would take a tenth of a second each time). New data copied in changes
// them; a change to a few bytes of a large buffer may go unseen, and the
// launch is then predicted as the one before.
uint64_t digest_bytes(const unsigned char* p, size_t n) {
  constexpr size_t kWhole = size_t(1) << 20, kWindow = size_t(16) << 10, kWindows = 64;
  if (n <= kWhole) return digest_run(p, n);
  uint64_t out = n;
  for (size_t i = 0; i < kWindows; ++i) {
    const size_t at = (n - kWindow) / (kWindows - 1) * i;
    out = (out ^ digest_run(p + at, kWindow)) * 0x9E3779B97F4A7C15ull;
  }
  return out;
}

// The digests of the live buffers with these ids.
std::map<uint32_t, uint64_t> digests_of(const std::vector<uint32_t>* ids) {
  std::map<uint32_t, uint64_t> out;
  cudalab::rt::allocations().for_each_live([&](const cudalab::rt::Allocation& a) {
    if (std::find(ids->begin(), ids->end(), a.id) != ids->end())
      out[a.id] = digest_bytes(reinterpret_cast<const unsigned char*>(a.base), a.size);
  });
  return out;
}

// The digests of the live buffers that the launch's arguments point into
// (8-byte words of its argument bytes, `low` to `high`): what it may load
// from, without digesting every buffer of a program that holds many.
std::map<uint32_t, uint64_t> digests_of_arguments(uintptr_t low, uintptr_t high) {
  std::vector<uintptr_t> words;
  for (uintptr_t at = (low + 7) & ~uintptr_t(7); at + 8 <= high; at += 8) {
    uintptr_t w;
    std::memcpy(&w, reinterpret_cast<const void*>(at), 8);
    words.push_back(w);
  }
  std::sort(words.begin(), words.end());
  std::map<uint32_t, uint64_t> out;
  cudalab::rt::allocations().for_each_live([&](const cudalab::rt::Allocation& a) {
    const auto it = std::lower_bound(words.begin(), words.end(), a.base);
    if (it != words.end() && *it - a.base < a.size)
      out[a.id] = digest_bytes(reinterpret_cast<const unsigned char*>(a.base), a.size);
  });
  return out;
}

// Whether a buffer the launch's last traced run loaded from holds other
// bytes than it did before and after that run (or is gone).
bool loaded_other_bytes(const TracedLaunch& t) {
  std::vector<uint32_t> ids;
  for (const LoadedBuffer& b : t.loaded) ids.push_back(b.id);
  const std::map<uint32_t, uint64_t> now = digests_of(&ids);
  for (const LoadedBuffer& b : t.loaded) {
    const auto at = now.find(b.id);
    if (at == now.end() || (at->second != b.before && at->second != b.after)) return true;
  }
  return false;
}

// The launch's entry when it is to be traced (the first of its key, or a
// sampled one whose inputs changed: its arguments, such as a stride or a
// count, by `arguments`, their bytes' digest where known (else 0), or the
// bytes of the buffers it loaded from), with `before` the digests of the
// buffers its arguments point into; null for a repeat.
TracedLaunch* traced_launch(const LaunchKey& key, bool sampled, uint64_t arguments,
                            uintptr_t frame_low, uintptr_t frame_high,
                            std::map<uint32_t, uint64_t>* before) {
  std::lock_guard lock(g_traced_mutex);
  auto [it, fresh] = traced_launches().try_emplace(key);
  TracedLaunch& t = it->second;
  if (!fresh) {
    if (!sampled || t.runs >= kMaxTracedRuns) return nullptr;
    if (arguments == t.arguments && !loaded_other_bytes(t)) return nullptr;
  }
  ++t.runs;
  t.arguments = arguments;
  if (sampled) *before = digests_of_arguments(frame_low, frame_high);
  return &t;
}

// After a traced launch: what the buffers it loaded from held before and
// after it ran.
void note_loaded(TracedLaunch* t, cudalab::rt::Launch& l,
                 const std::map<uint32_t, uint64_t>& before) {
  std::vector<uint32_t> ids;
  {
    std::lock_guard lock(l.loaded_mutex);
    ids = l.loaded;
  }
  const std::map<uint32_t, uint64_t> after = digests_of(&ids);
  std::vector<LoadedBuffer> loaded;
  for (const auto& [id, digest] : after) {
    const auto b = before.find(id);
    loaded.push_back({id, b == before.end() ? digest : b->second, digest});
  }
  std::lock_guard lock(g_traced_mutex);
  t->loaded = std::move(loaded);
}

}  // namespace

bool launching_from_kernel() { return cudalab::rt::tl_thread != nullptr; }

void defer_child_launch(const LaunchSite& site, void (*run)(void*), void* state,
                        void (*free)(void*)) {
  using namespace cudalab::rt;
  const RuntimeScope runtime;
  note_launch_use(cudalab::trace::kUsesChildLaunches);
  const size_t limit = pending_launch_limit();
  if (++g_unfinished > limit) {
    --g_unfinished;
    free(state);
    static std::atomic<int> said{0};
    if (said++ < 3)
      std::fprintf(stderr,
                   "cudalab: a kernel launched '%s' at %s:%d while %zu launches made by kernels "
                   "had not finished, CUDA's limit (cudaLimitDevRuntimePendingLaunchCount); it "
                   "did not run (cudaErrorLaunchPendingCountExceeded)\n",
                   site.kernel, site.file, site.line, limit);
    record_last_error(cudaErrorLaunchPendingCountExceeded);
    return;
  }
  std::lock_guard lock(g_children_mutex);
  g_children.push_back({run, state, free});
}

namespace {
// launch(), with the digest of the launch's arguments' bytes where the
// caller knows them (0: not known; a prediction then tells a launch on
// new inputs only by the bytes it loads).
cudaError_t launch_with(const LaunchSite& site, dim3 grid, dim3 block, size_t shmem,
                        cudaStream_t stream, void (*body)(void*), void* closure, unsigned flags,
                        const void* frame_low, const void* frame_high, uint64_t arguments);
}  // namespace

cudaError_t launch_bound(const LaunchSite& site, dim3 grid, dim3 block, size_t shmem,
                         cudaStream_t stream, const BoundOps& ops, void* bound,
                         const void* kernel) {
  if (launching_from_kernel()) {
    // Kept, with its own copy of the arguments, until the grid that made it
    // is done (run_child_launches).
    struct Child {
      LaunchSite site;
      dim3 grid, block;
      size_t shmem;
      cudaStream_t stream;
      const BoundOps* ops;
      void* bound;
      const void* kernel;
    };
    auto* child = new Child{site, grid, block, shmem, stream, &ops, ops.clone(bound), kernel};
    defer_child_launch(
        site,
        [](void* c) {
          const Child& k = *static_cast<Child*>(c);
          launch_bound(k.site, k.grid, k.block, k.shmem, k.stream, *k.ops, k.bound, k.kernel);
        },
        child,
        [](void* c) {
          auto* k = static_cast<Child*>(c);
          k->ops->destroy(k->bound);
          delete k;
        });
    return cudaSuccess;
  }
  if (capturing_launches(stream))
    return capture_kernel(stream, site, grid, block, shmem, 0, kernel,
                          cudalab::rt::bound_kernel_call(ops, ops.clone(bound)));
  const char* frame = static_cast<const char*>(bound);
  return launch_with(site, grid, block, shmem, stream, ops.run, bound, 0, frame, frame + ops.size,
                     tracing() ? ops.digest(bound) : 0);
}

cudaError_t launch(const LaunchSite& site, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
                   void (*body)(void*), void* closure, unsigned flags, const void* frame_low,
                   const void* frame_high) {
  return launch_with(site, grid, block, shmem, stream, body, closure, flags, frame_low, frame_high,
                     0);
}

namespace {
cudaError_t launch_with(const LaunchSite& site, dim3 grid, dim3 block, size_t shmem,
                        cudaStream_t stream, void (*body)(void*), void* closure, unsigned flags,
                        const void* frame_low, const void* frame_high, uint64_t arguments) {
  using namespace cudalab::rt;
  if (tl_thread) {
    // Only kept launches (defer_child_launch) come here from a kernel.
    const RuntimeScope runtime;
    stop_launch_from_thread(cudaErrorNotSupported,
                            std::string("cudalab: a kernel launched '") + site.kernel + "' at " +
                                site.file + ":" + std::to_string(site.line) +
                                " through a function pointer (cudaLaunchKernel), which the "
                                "simulator does not support inside a kernel; launch it with "
                                "<<<...>>>\n");
  }
  if (sticky_error() != cudaSuccess) {
    drop_child_launches();
    return api_result(cudaSuccess);
  }
  cudaError_t code = cudaSuccess;
  std::string problem = configuration_problem(site.kernel, grid, block, shmem, &code);
  if (!problem.empty()) {
    std::fprintf(stderr, "cudalab: launch of '%s' at %s:%d did not run: %s (%s)\n", site.kernel,
                 site.file, site.line, problem.c_str(), cudaGetErrorName(code));
    record_last_error(code);
    return code;
  }
  const bool cooperative = flags & kLaunchCooperative;
  if (cooperative) {
    // All blocks must be on the GPU at once: at most what fits per
    // multiprocessor (by threads, at most 32 blocks) times 132.
    const uint64_t sms = uint64_t(device_properties().multiProcessorCount);
    const uint64_t per_sm =
        uint64_t(blocks_per_multiprocessor(int(block.x * block.y * block.z), shmem));
    const uint64_t blocks = uint64_t(grid.x) * grid.y * grid.z;
    if (blocks > per_sm * sms) {
      std::fprintf(stderr,
                   "cudalab: cooperative launch of '%s' at %s:%d did not run: %llu blocks, but "
                   "at most %llu blocks of %u threads can be on the GPU at once "
                   "(cudaErrorCooperativeLaunchTooLarge)\n",
                   site.kernel, site.file, site.line, (unsigned long long)blocks,
                   (unsigned long long)(per_sm * sms), block.x * block.y * block.z);
      record_last_error(cudaErrorCooperativeLaunchTooLarge);
      return cudaErrorCooperativeLaunchTooLarge;
    }
  }
  Launch l;
  TracedLaunch* traced_like = nullptr;         // a prediction's traced run of this kernel and shape
  std::map<uint32_t, uint64_t> loaded_before;  // its buffers' digests before it ran
  l.cooperative = cooperative;
  l.site = site;
  l.grid = grid;
  l.block = block;
  l.shmem = shmem;
  l.body = body;
  l.closure = closure;
  l.frame_low = reinterpret_cast<uintptr_t>(frame_low);
  l.frame_high = reinterpret_cast<uintptr_t>(frame_high);
  l.threads_per_block = block.x * block.y * block.z;
  {
    std::lock_guard lock(g_summary_mutex);
    l.id = ++g_launch_counter;
  }
  l.shadow_phase = next_shadow_phase();
  // A traced run may run a sample of the blocks (a prediction's counts);
  // a cooperative launch's blocks wait for each other: all of them run.
  if (tracing() && trace_settings().sample > 0 && !cooperative) {
    if (auto s = cudalab::trace::sample_blocks(grid.x, grid.y, grid.z, trace_settings().sample);
        s.size() < uint64_t(grid.x) * grid.y * grid.z) {
      l.sample = std::move(s);
      l.sample_first = cudalab::trace::sample_kinds(grid.x, grid.y, grid.z);
      l.sample_accesses_before = trace_accesses_recorded();
    }
    traced_like = traced_launch(
        {std::string(site.kernel) + "@" + site.file, site.line, reinterpret_cast<uintptr_t>(body),
         grid.x, grid.y, grid.z, block.x, block.y, block.z},
        !l.sample.empty(), arguments, l.frame_low, l.frame_high, &loaded_before);
    l.sample_repeat = traced_like == nullptr;
    l.track_loads = traced_like && !l.sample.empty();
    l.sample_repeat_runs = l.sample_repeat && l.sample.empty();
  }
  {
    // Kernels on more than one stream may run at once on a GPU: a
    // prediction, launch by launch, leaves that out (the default streams
    // count as one).
    static std::mutex streams_mutex;
    static std::set<cudaStream_t> streams;
    const cudaStream_t s =
        stream == cudaStreamLegacy || stream == cudaStreamPerThread ? nullptr : stream;
    std::lock_guard lock(streams_mutex);
    streams.insert(s);
    if (streams.size() > 1) l.uses.fetch_or(cudalab::trace::kUsesStreams);
  }
  start_checks();
  trace_launch_begin(l);
  const auto start = std::chrono::steady_clock::now();
  run_grid(l);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  trace_launch_end(l);
  if (l.track_loads) note_loaded(traced_like, l, loaded_before);

  {
    std::lock_guard lock(g_summary_mutex);
    auto& s = g_summary;
    s = {};
    s.valid = true;
    std::strncpy(s.kernel, site.kernel, sizeof(s.kernel) - 1);
    s.grid = grid;
    s.block = block;
    const uint64_t blocks = uint64_t(grid.x) * grid.y * grid.z;
    s.threads = blocks * l.threads_per_block;
    s.warps = blocks * ((l.threads_per_block + 31) / 32);
    s.instrumented = instrumented_build();
    s.idle_threads = s.instrumented ? l.idle_threads.load() : 0;
    s.seconds = seconds;
    s.workers = worker_count();
  }

  if (l.timed_out.load()) {
    std::string where;
    if (l.timeout_located.load()) {
      const FaultInfo& f = l.timeout_at;
      const std::string line = student_line(f);
      char at[1024];
      std::snprintf(at, sizeof(at), "; %s of block (%u,%u,%u) was at %s",
                    running_thread_words(f).c_str(), f.block.x, f.block.y, f.block.z,
                    line.empty() ? "(unknown line)" : line.c_str());
      where = at;
    }
    const std::string how =
        l.timed_out_by_deadline.load()
            ? std::string("ran until the test's time was nearly out")
            : "ran longer than CUDALAB_TIMEOUT=" + timeout_setting().text + " seconds";
    std::fprintf(stderr,
                 "%s %s and was stopped%s\n"
                 "cudalab:     a loop that never ends? every later CUDA call returns "
                 "cudaErrorLaunchTimeout\n",
                 launch_heading(l).c_str(), how.c_str(), where.c_str());
    set_sticky_error(cudaErrorLaunchTimeout);
  } else if (memcheck_report_launch(l)) {
    // As under compute-sanitizer: the launch counts as failed.
    set_sticky_error(cudaErrorLaunchFailure);
  }
  if (l.stopped.load()) {
    std::fprintf(stderr, "%s", l.stop_report.c_str());
    set_sticky_error(l.stop_error);
  } else if (l.deadlocked.load()) {
    std::fprintf(stderr, "%s stopped: %s", launch_heading(l).c_str(), l.deadlock_report.c_str());
    std::fprintf(stderr,
                 "cudalab:     a GPU would hang here or give wrong results; every later CUDA "
                 "call returns cudaErrorLaunchFailure\n");
    set_sticky_error(cudaErrorLaunchFailure);
  } else if (l.faulted.load()) {
    report_fault(l);
    const cudaError_t e = (l.fault.signal == SIGFPE || l.fault.signal == SIGILL)
                              ? cudaErrorLaunchFailure
                          : l.fault.stack_overflow ? cudaErrorHardwareStackError
                                                   : cudaErrorIllegalAddress;
    set_sticky_error(e);
  }
  run_child_launches();
  return cudaSuccess;
}
}  // namespace

namespace {
struct RegisteredKernel {
  const char* name;
  KernelInvoker invoker;
};
std::mutex g_registry_mutex;
std::map<const void*, RegisteredKernel>& registry() {
  static std::map<const void*, RegisteredKernel> r;
  return r;
}
}  // namespace

void register_kernel_invoker(const void* kernel, const char* name, KernelInvoker invoker) {
  std::lock_guard lock(g_registry_mutex);
  registry()[kernel] = {name, invoker};
}

bool kernel_name_known(const std::string& name) {
  std::lock_guard lock(g_registry_mutex);
  for (const auto& [kernel, r] : registry())
    if (r.name && name == r.name) return true;
  return false;
}

namespace {
std::map<const void*, ParamLayout>& layouts() {
  static std::map<const void*, ParamLayout> l;
  return l;
}
}  // namespace

void register_kernel_layout(const void* kernel, ParamLayout layout) {
  std::lock_guard lock(g_registry_mutex);
  layouts()[kernel] = layout;
}

bool find_kernel_layout(const void* kernel, ParamLayout* layout) {
  std::lock_guard lock(g_registry_mutex);
  auto it = layouts().find(kernel);
  if (it == layouts().end()) return false;
  *layout = it->second;
  return true;
}

KernelInvoker find_kernel_invoker(const void* kernel, const char** name) {
  std::lock_guard lock(g_registry_mutex);
  auto it = registry().find(kernel);
  if (it == registry().end()) return nullptr;
  if (name) *name = it->second.name;
  return it->second.invoker;
}

namespace {
cudaError_t launch_by_pointer(const void* func, dim3 grid, dim3 block, void** args, size_t shmem,
                              cudaStream_t stream, unsigned flags, const char* api) {
  using namespace cudalab::rt;
  if (sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  const char* name = nullptr;
  KernelInvoker invoke = func ? find_kernel_invoker(func, &name) : nullptr;
  if (!invoke) {
    std::fprintf(stderr,
                 "cudalab: %s was given %s, which is not a kernel the simulator knows. cudalab "
                 "knows the non-template __global__ functions of the .cu files it compiled "
                 "(not those with default arguments, an #if among their parameters, or "
                 "defined by a #define); for another kernel pass the kernel itself (not cast "
                 "to void*) or launch it with <<<...>>> (cudaErrorInvalidDeviceFunction)\n",
                 api, func ? "a function pointer" : "a null pointer");
    record_last_error(cudaErrorInvalidDeviceFunction);
    return cudaErrorInvalidDeviceFunction;
  }
  const LaunchSite site{name, "(launched through a function pointer)", 0};
  return invoke(func, args, site, grid, block, shmem, stream, flags);
}
}  // namespace

}  // namespace cudalab::detail

cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shmem,
                             cudaStream_t stream) {
  return cudalab::detail::launch_by_pointer(func, grid, block, args, shmem, stream, 0,
                                            "cudaLaunchKernel");
}

cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block, void** args,
                                        size_t shmem, cudaStream_t stream) {
  return cudalab::detail::launch_by_pointer(func, grid, block, args, shmem, stream,
                                            cudalab::detail::kLaunchCooperative,
                                            "cudaLaunchCooperativeKernel");
}

namespace cudalab::sim {
LaunchSummary last_launch() { return cudalab::rt::last_summary(); }
bool instrumented() { return cudalab::rt::instrumented_build(); }
}  // namespace cudalab::sim

namespace cudalab::rt {
bool is_kernel_name(const std::string& name) { return cudalab::detail::kernel_name_known(name); }
}  // namespace cudalab::rt
