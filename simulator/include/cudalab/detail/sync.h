// Barriers, fences and warp-level operations as the scheduler runs them: a
// thread that arrives first waits until the others have arrived too (see
// docs/simulator.md). __syncthreads_count, __shfl_sync, __ballot_sync and the
// other public functions of cudalab/kernel_language.h call these. Defined in
// simulator/src/. Not for programs to call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace cudalab::detail {

void fence_executed();  // racecheck: this block publishes through fences

// Block barriers: __syncthreads and its votes.
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
// Waits on an object of the program's (libcu++'s barriers, latches,
// semaphores, pipelines, atomic waits: cudalab/libcudacxx.h): the calling
// thread sleeps until a thread of its block releases the same address, then
// returns and looks at the object again. A release that ends a barrier's
// phase orders memory for the checks as __syncthreads() does.
void wait_on_object(const void* object, const void* pc);
void release_object(const void* object, bool completes_barrier);
// racecheck: what the block's threads did before now is ordered before what
// they do after, as at a barrier (a cuda::barrier's phase ends).
void order_block_memory();
// The calling thread's lane (threadIdx linearized, modulo 32).
unsigned lane_id();

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

// The pc the public wrappers pass: none, as the runtime takes the caller's
// address itself (the wrappers are inlined).
#define CUDALAB_PC nullptr
