// The CUDA C++ kernel language on the CPU: qualifiers, built-in index
// variables, barriers, warp operations, and (through the headers it includes)
// atomics, math and vector types. The launch that the rewriter produces from
// `kernel<<<grid, block, shmem, stream>>>(args)` and the runtime calls behind
// barriers and warp operations are in cudalab/detail/.
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

#include "cudalab/detail/clock.h"
#include "cudalab/detail/launch.h"
#include "cudalab/detail/sync.h"
#include "cudalab/runtime_api.h"

// Kernels are marked for the plain build's block loops (simulator/passes/),
// which find them by this annotation.
#ifdef __clang__
#define __global__ __attribute__((annotate("cudalab_kernel")))
#else
#define __global__
#endif
#define __device__
#define __host__
// CUDA's guard for these macros: headers that undefine them unless it is
// set (Thrust's guarded_cuda_runtime_api.h) leave them alone.
#define __HOST_DEFINES_H__
// A __constant__ variable is an ordinary one, marked (under clang) for the
// instrumented build, which tells the runtime where it lies: a trace
// counts its reads as a GPU's constant cache serves them.
#ifdef __clang__
#define CUDALAB_CONSTANT_MARK __attribute__((annotate("cudalab_constant")))
#else
#define CUDALAB_CONSTANT_MARK
#endif
#ifdef CUDALAB_MODULE
// In a module (NVRTC, cudalab-cc -fatbin) the host writes a `static
// __constant__` array only through cuModuleGetGlobal: kept as a variable,
// not folded to the zeros the compiler would otherwise assume.
#define __constant__ __attribute__((used)) CUDALAB_CONSTANT_MARK
#else
#define __constant__ CUDALAB_CONSTANT_MARK
#endif
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

// Constant-initialized (workers.cpp): saying so lets clang read them straight
// from thread-local storage, without a call to an initialization wrapper at
// every use (which also kept loop values out of registers). Not in the
// instrumented twin, whose loads and stores must each stay at their own line
// for the checks: without that call in a loop, the optimizer moves a
// `counts[threadIdx.x] += ...` out of it, to the loop's first line.
#if defined(__clang__) && __has_cpp_attribute(clang::require_constant_initialization) && \
    !defined(CUDALAB_INSTRUMENTED)
#define CUDALAB_CONSTANT_INITIALIZED [[clang::require_constant_initialization]]
#else
#define CUDALAB_CONSTANT_INITIALIZED
#endif
CUDALAB_CONSTANT_INITIALIZED extern thread_local uint3 threadIdx;
CUDALAB_CONSTANT_INITIALIZED extern thread_local uint3 blockIdx;
CUDALAB_CONSTANT_INITIALIZED extern thread_local dim3 blockDim;
CUDALAB_CONSTANT_INITIALIZED extern thread_local dim3 gridDim;
constexpr int warpSize = 32;

void __syncthreads();
inline void __threadfence() {
#ifdef CUDALAB_INSTRUMENTED
  cudalab::detail::fence_executed();
#endif
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }

#include "cudalab/atomics.h"
#include "cudalab/device_functions.h"
#include "cudalab/scoped_atomics.h"
#include "cudalab/vector_types.h"

// dp4a and dp2a on vectors of bytes and shorts: device_functions.h's on
// their bits.
namespace cudalab::detail {
template <class R, class A, class B>
R on_bits(R (*f)(R, R, R), A a, B b, R c) {
  static_assert(sizeof(A) == sizeof(R) && sizeof(B) == sizeof(R));
  R x, y;
  std::memcpy(&x, &a, sizeof x), std::memcpy(&y, &b, sizeof y);
  return f(x, y, c);
}
}  // namespace cudalab::detail
inline int __dp4a(char4 a, char4 b, int c) {
  return cudalab::detail::on_bits<int>(__dp4a, a, b, c);
}
inline unsigned __dp4a(uchar4 a, uchar4 b, unsigned c) {
  return cudalab::detail::on_bits<unsigned>(__dp4a, a, b, c);
}
inline int __dp2a_lo(short2 a, char4 b, int c) {
  return cudalab::detail::on_bits<int>(__dp2a_lo, a, b, c);
}
inline unsigned __dp2a_lo(ushort2 a, uchar4 b, unsigned c) {
  return cudalab::detail::on_bits<unsigned>(__dp2a_lo, a, b, c);
}
inline int __dp2a_hi(short2 a, char4 b, int c) {
  return cudalab::detail::on_bits<int>(__dp2a_hi, a, b, c);
}
inline unsigned __dp2a_hi(ushort2 a, uchar4 b, unsigned c) {
  return cudalab::detail::on_bits<unsigned>(__dp2a_hi, a, b, c);
}

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

// Time inside kernels: clock64() counts GPU cycles (wall time at the
// simulated clock rate), and so does clock() in a kernel; clock() outside
// kernels stays the C library's (calls of clock() are the rewriter's: see
// cudalab/detail/clock.h). __nanosleep sleeps (at most a millisecond, as on a
// GPU).
long long clock64();
void __nanosleep(unsigned int ns);
// Stops the launch with cudaErrorLaunchFailure, as a GPU's trap does.
[[noreturn]] void __trap();
inline void __brkpt() {}

// ---- warp-level operations (lanes of a warp meet; see docs/simulator.md) ---------------
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
