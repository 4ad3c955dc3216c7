// The CUDA C++ kernel language on the CPU: qualifiers, built-in index
// variables, barriers, atomics and the launch that the rewriter produces from
// `kernel<<<grid, block, shmem, stream>>>(args)`.
//
// Each CUDA thread runs as a fiber on a worker thread; a block stays on one
// worker from start to end, so the per-worker (thread_local) values below are
// the values of the fiber that runs now.
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cudalab/runtime_api.h"

#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
// Empty, not noinline: libstdc++ spells its own attribute __noinline__.
#define __noinline__
#define __forceinline__ inline __attribute__((always_inline))
#define __restrict__ __restrict
// GCC's attribute, like nvcc's: allowed after the type too (`int __align__(8) x[4]`).
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__
#define __cluster_dims__(...)
#define __launch_bounds__(...)
// Static shared memory: one copy per worker, and a worker runs one block at a
// time, so every block sees its own. The tag marks these variables in the
// program's symbol table, where the checks find them; their own section
// keeps them together, followed by a guard, away from the runtime's
// thread-locals (an access past the end of an array lands in the guard).
#define __shared__ \
  static thread_local __attribute__((abi_tag("cudalab_shared"), section("cudalab_shared")))

extern thread_local uint3 threadIdx;
extern thread_local uint3 blockIdx;
extern thread_local dim3 blockDim;
extern thread_local dim3 gridDim;
constexpr int warpSize = 32;

void __syncthreads();
namespace cudalab::detail {
void fence_executed();  // racecheck: this block publishes through fences
}
inline void __threadfence() {
#ifdef CUDALAB_INSTRUMENTED
  cudalab::detail::fence_executed();
#endif
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }

#include "cudalab/atomics.h"
#include "cudalab/device_functions.h"
#include "cudalab/vector_types.h"

namespace cudalab::detail {

// Block barriers and warp-level operations, run by the scheduler: a thread
// that arrives first waits until the others have arrived too.
enum class BarrierOp : uint8_t { kSync, kCount, kAnd, kOr };
int block_barrier(BarrierOp op, int predicate, const void* pc);

enum class WarpOp : uint8_t {
  kSync,
  kShflIdx,
  kShflUp,
  kShflDown,
  kShflXor,
  kBallot,
  kMatchAny,
  kMatchAll,
  kReduceAdd,
  kReduceMinUnsigned,
  kReduceMaxUnsigned,
  kReduceMinSigned,
  kReduceMaxSigned,
  kReduceAnd,
  kReduceOr,
  kReduceXor,
  kActiveMask,  // meets the lanes that are here, not those waiting elsewhere
};
// `value` is the lane's 8 bytes; `arg` the source lane, delta or lane mask;
// `width` the shuffle segment. For kMatchAll the result's bit 32 is the
// "all equal" predicate.
uint64_t warp_op(WarpOp op, unsigned mask, uint64_t value, int arg, int width, const void* pc);
// The lanes of the calling thread's warp that reach this point together:
// not those that returned or wait elsewhere.
unsigned active_mask();
// The calling thread's lane (threadIdx linearized, modulo 32).
unsigned lane_id();

// Address of the dynamic shared memory of the block running on this worker.
void* dynamic_shared_memory();

struct LaunchSite {
  const char* kernel;  // the kernel expression as written, e.g. "add<float>"
  const char* file;
  int line;
};

// Runs `body(closure)` once per CUDA thread of the launch; returns the launch
// error (also kept as the last error). A cooperative launch runs all its
// blocks at once, so that the grid can sync.
enum LaunchFlags : unsigned { kLaunchCooperative = 1 };
// [frame_low, frame_high): host memory the kernel threads read to get their
// arguments (the launch's own objects), which memcheck allows.
cudaError_t launch(const LaunchSite& site, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
                   void (*body)(void*), void* closure, unsigned flags = 0,
                   const void* frame_low = nullptr, const void* frame_high = nullptr);
// The lowest and highest byte of the objects at `p...`.
template <class... T>
inline std::pair<const void*, const void*> span_of(const T&... objects) {
  const char* low = nullptr;
  const char* high = nullptr;
  for (auto [b, n] :
       {std::pair<const char*, size_t>(reinterpret_cast<const char*>(&objects), sizeof(T))...}) {
    if (!low || b < low) low = b;
    if (!high || b + n > high) high = b + n;
  }
  return {low, high};
}

// Kernels launched through a function pointer (cudaLaunchKernel and
// cudaLaunchCooperativeKernel) need their parameter types: the rewriter
// registers every non-template __global__ function a .cu file defines.
using KernelInvoker = cudaError_t (*)(const void* kernel, void** args, const LaunchSite& site,
                                      dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
                                      unsigned flags);
void register_kernel_invoker(const void* kernel, const char* name, KernelInvoker invoker);
// 0 when the kernel was not registered.
KernelInvoker find_kernel_invoker(const void* kernel, const char** name);

template <class... P, size_t... I>
cudaError_t invoke_with_args(void (*kernel)(P...), void** args, const LaunchSite& site, dim3 grid,
                             dim3 block, size_t shmem, cudaStream_t stream, unsigned flags,
                             std::index_sequence<I...>) {
  // Each argument is read from the address the caller gave, as CUDA does.
  std::tuple<std::decay_t<P>...> params(*static_cast<std::decay_t<P>*>(args[I])...);
  auto run_one_thread = [&] { std::apply(kernel, params); };
  using Body = decltype(run_one_thread);
  const auto frame = span_of(params, run_one_thread, kernel);
  return launch(
      site, grid, block, shmem, stream, [](void* c) { (*static_cast<Body*>(c))(); },
      &run_one_thread, flags, frame.first, frame.second);
}

template <class... P>
KernelInvoker invoker_for(void (*)(P...)) {
  return [](const void* k, void** args, const LaunchSite& site, dim3 grid, dim3 block, size_t shmem,
            cudaStream_t stream, unsigned flags) {
    auto kernel = reinterpret_cast<void (*)(P...)>(const_cast<void*>(k));
    if (sizeof...(P) > 0 && !args) return cudaErrorInvalidValue;
    return invoke_with_args(kernel, args, site, grid, block, shmem, stream, flags,
                            std::index_sequence_for<P...>{});
  };
}

template <class... P>
int register_kernel(void (*kernel)(P...), const char* name) {
  register_kernel_invoker(reinterpret_cast<const void*>(kernel), name, invoker_for(kernel));
  return 0;
}

template <class Call>
class Launcher {
 public:
  Launcher(Call call, LaunchSite site, dim3 grid, dim3 block, size_t shmem = 0,
           cudaStream_t stream = nullptr)
      : call_(call), site_(site), grid_(grid), block_(block), shmem_(shmem), stream_(stream) {}

  // Arguments are copied once at the launch, as CUDA copies them into the
  // kernel's parameter space; each thread then gets its own copy of them.
  template <class... Args>
  void operator()(Args&&... args) {
    auto params = std::make_tuple(std::decay_t<Args>(std::forward<Args>(args))...);
    auto run_one_thread = [&] { std::apply(call_, params); };
    using Body = decltype(run_one_thread);
    const auto frame = span_of(params, run_one_thread, *this);
    launch(
        site_, grid_, block_, shmem_, stream_, [](void* c) { (*static_cast<Body*>(c))(); },
        &run_one_thread, 0, frame.first, frame.second);
  }

 private:
  Call call_;
  LaunchSite site_;
  dim3 grid_, block_;
  size_t shmem_;
  cudaStream_t stream_;
};

template <class... P>
cudaError_t launch_typed(void (*func)(P...), dim3 grid, dim3 block, void** args, size_t shmem,
                         cudaStream_t stream, unsigned flags, const char* file, int line) {
  const char* name = "kernel";
  find_kernel_invoker(reinterpret_cast<const void*>(func), &name);
  const LaunchSite site{name, file, line};
  return invoker_for(func)(reinterpret_cast<const void*>(func), args, site, grid, block, shmem,
                           stream, flags);
}

// make_launcher(call, site)(grid, block[, shmem[, stream]])(args...): the
// configuration goes through a plain function call so that it converts as in
// CUDA (a literal 0 is a null stream, an int is a dim3).
template <class Call>
struct LaunchBuilder {
  Call call;
  LaunchSite site;
  Launcher<Call> operator()(dim3 grid, dim3 block, size_t shmem = 0,
                            cudaStream_t stream = nullptr) const {
    return Launcher<Call>(call, site, grid, block, shmem, stream);
  }
};

template <class Call>
LaunchBuilder<Call> make_launcher(Call call, LaunchSite site) {
  return LaunchBuilder<Call>{call, site};
}

}  // namespace cudalab::detail

// ---- barriers with a vote ------------------------------------------------------------
inline int __syncthreads_count(int predicate) {
  return cudalab::detail::block_barrier(cudalab::detail::BarrierOp::kCount, predicate, nullptr);
}
inline int __syncthreads_and(int predicate) {
  return cudalab::detail::block_barrier(cudalab::detail::BarrierOp::kAnd, predicate, nullptr);
}
inline int __syncthreads_or(int predicate) {
  return cudalab::detail::block_barrier(cudalab::detail::BarrierOp::kOr, predicate, nullptr);
}
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }

// Time inside kernels: clock() and clock64() count GPU cycles (wall time at
// the simulated clock rate); clock() outside kernels stays the C library's.
// __nanosleep sleeps (at most a millisecond, as on a GPU).
long long clock64();
clock_t cudalab_clock();
namespace std {
using ::cudalab_clock;
}
#define clock() cudalab_clock()
void __nanosleep(unsigned int ns);
// Stops the launch with cudaErrorLaunchFailure, as a GPU's trap does.
[[noreturn]] void __trap();
inline void __brkpt() {}

// ---- warp-level operations (lanes of a warp meet; see docs/simulator.md) ---------------
namespace cudalab::detail {
template <class T>
uint64_t to_bits(const T& v) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>,
                "warp votes and matches take values of at most 8 bytes");
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  return bits;
}
template <class T>
T from_bits(uint64_t bits) {
  T v;
  std::memcpy(&v, &bits, sizeof(T));
  return v;
}
// Values larger than 8 bytes (uint4, double2, ...) move in 8-byte pieces,
// one warp operation each, as cooperative groups' shuffles do on a GPU.
template <class T>
T shuffle(WarpOp op, unsigned mask, T var, int arg, int width, const void* pc) {
  static_assert(std::is_trivially_copyable_v<T>, "warp shuffles move trivially copyable values");
  if constexpr (sizeof(T) <= 8) {
    return from_bits<T>(warp_op(op, mask, to_bits(var), arg, width, pc));
  } else {
    constexpr size_t pieces = (sizeof(T) + 7) / 8;
    uint64_t in[pieces] = {}, out[pieces];
    std::memcpy(in, &var, sizeof(T));
    for (size_t i = 0; i < pieces; ++i) out[i] = warp_op(op, mask, in[i], arg, width, pc);
    T result;
    std::memcpy(&result, out, sizeof(T));
    return result;
  }
}
}  // namespace cudalab::detail

// The runtime takes the caller's address itself (these wrappers are inlined).
#define CUDALAB_PC nullptr
inline void __syncwarp(unsigned mask = 0xffffffffu) {
  cudalab::detail::warp_op(cudalab::detail::WarpOp::kSync, mask, 0, 0, 32, CUDALAB_PC);
}
template <class T>
T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize) {
  return cudalab::detail::shuffle(cudalab::detail::WarpOp::kShflIdx, mask, var, src_lane, width,
                                  CUDALAB_PC);
}
template <class T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  return cudalab::detail::shuffle(cudalab::detail::WarpOp::kShflUp, mask, var, int(delta), width,
                                  CUDALAB_PC);
}
template <class T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  return cudalab::detail::shuffle(cudalab::detail::WarpOp::kShflDown, mask, var, int(delta), width,
                                  CUDALAB_PC);
}
template <class T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize) {
  return cudalab::detail::shuffle(cudalab::detail::WarpOp::kShflXor, mask, var, lane_mask, width,
                                  CUDALAB_PC);
}
inline unsigned __ballot_sync(unsigned mask, int predicate) {
  return unsigned(cudalab::detail::warp_op(cudalab::detail::WarpOp::kBallot, mask, predicate != 0,
                                           0, 32, CUDALAB_PC));
}
inline int __any_sync(unsigned mask, int predicate) {
  return cudalab::detail::warp_op(cudalab::detail::WarpOp::kBallot, mask, predicate != 0, 0, 32,
                                  CUDALAB_PC) != 0;
}
inline int __all_sync(unsigned mask, int predicate) {
  // All lanes that took part voted yes: the ballot equals the lanes that voted.
  const unsigned voted = unsigned(
      cudalab::detail::warp_op(cudalab::detail::WarpOp::kBallot, mask, 1, 0, 32, CUDALAB_PC));
  const unsigned yes = unsigned(cudalab::detail::warp_op(cudalab::detail::WarpOp::kBallot, mask,
                                                         predicate != 0, 0, 32, CUDALAB_PC));
  return yes == voted;
}
inline unsigned __activemask() { return cudalab::detail::active_mask(); }
template <class T>
unsigned __match_any_sync(unsigned mask, T value) {
  return unsigned(cudalab::detail::warp_op(cudalab::detail::WarpOp::kMatchAny, mask,
                                           cudalab::detail::to_bits(value), 0, 32, CUDALAB_PC));
}
template <class T>
unsigned __match_all_sync(unsigned mask, T value, int* pred) {
  const uint64_t r = cudalab::detail::warp_op(cudalab::detail::WarpOp::kMatchAll, mask,
                                              cudalab::detail::to_bits(value), 0, 32, CUDALAB_PC);
  if (pred) *pred = int((r >> 32) & 1);
  return unsigned(r);
}
#define CUDALAB_WARP_REDUCE(name, T, OP)                                                           \
  inline T name(unsigned mask, T value) {                                                          \
    return T(uint32_t(cudalab::detail::warp_op(cudalab::detail::WarpOp::OP, mask, uint32_t(value), \
                                               0, 32, CUDALAB_PC)));                               \
  }
CUDALAB_WARP_REDUCE(__reduce_add_sync, unsigned, kReduceAdd)
CUDALAB_WARP_REDUCE(__reduce_add_sync, int, kReduceAdd)
CUDALAB_WARP_REDUCE(__reduce_min_sync, unsigned, kReduceMinUnsigned)
CUDALAB_WARP_REDUCE(__reduce_min_sync, int, kReduceMinSigned)
CUDALAB_WARP_REDUCE(__reduce_max_sync, unsigned, kReduceMaxUnsigned)
CUDALAB_WARP_REDUCE(__reduce_max_sync, int, kReduceMaxSigned)
CUDALAB_WARP_REDUCE(__reduce_and_sync, unsigned, kReduceAnd)
CUDALAB_WARP_REDUCE(__reduce_or_sync, unsigned, kReduceOr)
CUDALAB_WARP_REDUCE(__reduce_xor_sync, unsigned, kReduceXor)
#undef CUDALAB_WARP_REDUCE

// cudaLaunchKernel with the kernel itself (not cast to void*): its parameter
// types are known here, registered or not.
template <class... P>
cudaError_t cudaLaunchKernel(void (*func)(P...), dim3 grid, dim3 block, void** args,
                             size_t shmem = 0, cudaStream_t stream = nullptr,
                             const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return cudalab::detail::launch_typed(func, grid, block, args, shmem, stream, 0, file, line);
}
template <class... P>
cudaError_t cudaLaunchCooperativeKernel(void (*func)(P...), dim3 grid, dim3 block, void** args,
                                        size_t shmem = 0, cudaStream_t stream = nullptr,
                                        const char* file = __builtin_FILE(),
                                        int line = __builtin_LINE()) {
  return cudalab::detail::launch_typed(func, grid, block, args, shmem, stream,
                                       cudalab::detail::kLaunchCooperative, file, line);
}
