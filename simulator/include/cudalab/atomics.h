// CUDA's atomic functions on the CPU. Blocks run in parallel on several
// workers, so these are real hardware atomics (std::atomic_ref). The _block
// and _system scopes are as strong as the device scope here.
#pragma once

#include <atomic>

namespace cudalab::detail {
template <class T>
std::atomic_ref<T> atomic(T* address) {
  return std::atomic_ref<T>(*address);
}
template <class T, class F>
T atomic_update(T* address, F next) {
  std::atomic_ref<T> r(*address);
  T old = r.load();
  while (!r.compare_exchange_weak(old, next(old))) {
  }
  return old;
}
}  // namespace cudalab::detail

#define CUDALAB_ATOMIC_SCOPES(ret, name, params, args) \
  inline ret name params { return name##_impl args; }  \
  inline ret name##_block params { return name##_impl args; } \
  inline ret name##_system params { return name##_impl args; }

// atomicAdd
#define CUDALAB_ATOMIC_ADD(T)                                                                \
  inline T atomicAdd_impl(T* a, T v) { return cudalab::detail::atomic(a).fetch_add(v); }     \
  CUDALAB_ATOMIC_SCOPES(T, atomicAdd, (T * a, T v), (a, v))
CUDALAB_ATOMIC_ADD(int)
CUDALAB_ATOMIC_ADD(unsigned int)
CUDALAB_ATOMIC_ADD(unsigned long long)
CUDALAB_ATOMIC_ADD(float)
CUDALAB_ATOMIC_ADD(double)
#undef CUDALAB_ATOMIC_ADD

// atomicSub
#define CUDALAB_ATOMIC_SUB(T)                                                                \
  inline T atomicSub_impl(T* a, T v) { return cudalab::detail::atomic(a).fetch_sub(v); }     \
  CUDALAB_ATOMIC_SCOPES(T, atomicSub, (T * a, T v), (a, v))
CUDALAB_ATOMIC_SUB(int)
CUDALAB_ATOMIC_SUB(unsigned int)
#undef CUDALAB_ATOMIC_SUB

// atomicExch
#define CUDALAB_ATOMIC_EXCH(T)                                                               \
  inline T atomicExch_impl(T* a, T v) { return cudalab::detail::atomic(a).exchange(v); }     \
  CUDALAB_ATOMIC_SCOPES(T, atomicExch, (T * a, T v), (a, v))
CUDALAB_ATOMIC_EXCH(int)
CUDALAB_ATOMIC_EXCH(unsigned int)
CUDALAB_ATOMIC_EXCH(unsigned long long)
CUDALAB_ATOMIC_EXCH(float)
#undef CUDALAB_ATOMIC_EXCH

// atomicMin, atomicMax
#define CUDALAB_ATOMIC_MINMAX(T)                                                             \
  inline T atomicMin_impl(T* a, T v) {                                                       \
    return cudalab::detail::atomic_update(a, [v](T old) { return v < old ? v : old; });     \
  }                                                                                          \
  inline T atomicMax_impl(T* a, T v) {                                                       \
    return cudalab::detail::atomic_update(a, [v](T old) { return old < v ? v : old; });     \
  }                                                                                          \
  CUDALAB_ATOMIC_SCOPES(T, atomicMin, (T * a, T v), (a, v))                                  \
  CUDALAB_ATOMIC_SCOPES(T, atomicMax, (T * a, T v), (a, v))
CUDALAB_ATOMIC_MINMAX(int)
CUDALAB_ATOMIC_MINMAX(unsigned int)
CUDALAB_ATOMIC_MINMAX(long long)
CUDALAB_ATOMIC_MINMAX(unsigned long long)
#undef CUDALAB_ATOMIC_MINMAX

// atomicInc, atomicDec: wrap around at `limit`, as CUDA defines them.
inline unsigned int atomicInc_impl(unsigned int* a, unsigned int limit) {
  return cudalab::detail::atomic_update(a, [limit](unsigned old) {
    return old >= limit ? 0u : old + 1;
  });
}
inline unsigned int atomicDec_impl(unsigned int* a, unsigned int limit) {
  return cudalab::detail::atomic_update(a, [limit](unsigned old) {
    return (old == 0 || old > limit) ? limit : old - 1;
  });
}
CUDALAB_ATOMIC_SCOPES(unsigned int, atomicInc, (unsigned int* a, unsigned int v), (a, v))
CUDALAB_ATOMIC_SCOPES(unsigned int, atomicDec, (unsigned int* a, unsigned int v), (a, v))

// atomicCAS
#define CUDALAB_ATOMIC_CAS(T)                                           \
  inline T atomicCAS_impl(T* a, T compare, T value) {                   \
    cudalab::detail::atomic(a).compare_exchange_strong(compare, value); \
    return compare;                                                     \
  }                                                                     \
  CUDALAB_ATOMIC_SCOPES(T, atomicCAS, (T * a, T c, T v), (a, c, v))
CUDALAB_ATOMIC_CAS(int)
CUDALAB_ATOMIC_CAS(unsigned int)
CUDALAB_ATOMIC_CAS(unsigned long long)
CUDALAB_ATOMIC_CAS(unsigned short)
#undef CUDALAB_ATOMIC_CAS

// atomicAnd, atomicOr, atomicXor
#define CUDALAB_ATOMIC_BITS(T)                                                                 \
  inline T atomicAnd_impl(T* a, T v) { return cudalab::detail::atomic(a).fetch_and(v); }       \
  inline T atomicOr_impl(T* a, T v) { return cudalab::detail::atomic(a).fetch_or(v); }         \
  inline T atomicXor_impl(T* a, T v) { return cudalab::detail::atomic(a).fetch_xor(v); }       \
  CUDALAB_ATOMIC_SCOPES(T, atomicAnd, (T * a, T v), (a, v))                                    \
  CUDALAB_ATOMIC_SCOPES(T, atomicOr, (T * a, T v), (a, v))                                     \
  CUDALAB_ATOMIC_SCOPES(T, atomicXor, (T * a, T v), (a, v))
CUDALAB_ATOMIC_BITS(int)
CUDALAB_ATOMIC_BITS(unsigned int)
CUDALAB_ATOMIC_BITS(unsigned long long)
#undef CUDALAB_ATOMIC_BITS
#undef CUDALAB_ATOMIC_SCOPES
