// CUDA's atomic functions on the CPU. Blocks run in parallel on several
// workers, so these are real hardware atomics (the compiler's __atomic
// built-ins, so that programs may be C++17 like nvcc's default). The _block
// and _system scopes are as strong as the device scope here.
#pragma once

#include <cstring>
#include <type_traits>

namespace cudalab::detail {
// The instrumented build (cudalab-cc's twin for the checks and traces) tells
// the runtime about every atomic: checked like any access, never a race.
void atomic_access(const void* p, unsigned size);

// The operations CUDA's atomics need, on integers and (through their bits)
// on floating-point values.
template <class T>
class Atomic {
 public:
  explicit Atomic(T* p) : p_(p) {
#ifdef CUDALAB_INSTRUMENTED
    atomic_access(p, sizeof(T));
#endif
  }
  T load() const {
    T v;
    __atomic_load(p_, &v, __ATOMIC_SEQ_CST);
    return v;
  }
  bool compare_exchange_weak(T& expected, T desired) {
    return __atomic_compare_exchange(p_, &expected, &desired, true, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST);
  }
  bool compare_exchange_strong(T& expected, T desired) {
    return __atomic_compare_exchange(p_, &expected, &desired, false, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST);
  }
  T exchange(T v) {
    T old;
    __atomic_exchange(p_, &v, &old, __ATOMIC_SEQ_CST);
    return old;
  }
  T fetch_add(T v) {
    if constexpr (std::is_integral_v<T>)
      return __atomic_fetch_add(p_, v, __ATOMIC_SEQ_CST);
    else
      return update([v](T old) { return old + v; });
  }
  T fetch_sub(T v) { return __atomic_fetch_sub(p_, v, __ATOMIC_SEQ_CST); }
  T fetch_and(T v) { return __atomic_fetch_and(p_, v, __ATOMIC_SEQ_CST); }
  T fetch_or(T v) { return __atomic_fetch_or(p_, v, __ATOMIC_SEQ_CST); }
  T fetch_xor(T v) { return __atomic_fetch_xor(p_, v, __ATOMIC_SEQ_CST); }
  template <class F>
  T update(F next) {
    T old = load();
    while (!compare_exchange_weak(old, next(old))) {
    }
    return old;
  }

 private:
  T* p_;
};
template <class T>
Atomic<T> atomic(T* address) {
  return Atomic<T>(address);
}
template <class T, class F>
T atomic_update(T* address, F next) {
  return Atomic<T>(address).update(next);
}
}  // namespace cudalab::detail

#define CUDALAB_ATOMIC_SCOPES(ret, name, params, args)        \
  inline ret name params { return name##_impl args; }         \
  inline ret name##_block params { return name##_impl args; } \
  inline ret name##_system params { return name##_impl args; }

// atomicAdd
#define CUDALAB_ATOMIC_ADD(T)                                                            \
  inline T atomicAdd_impl(T* a, T v) { return cudalab::detail::atomic(a).fetch_add(v); } \
  CUDALAB_ATOMIC_SCOPES(T, atomicAdd, (T * a, T v), (a, v))
CUDALAB_ATOMIC_ADD(int)
CUDALAB_ATOMIC_ADD(unsigned int)
CUDALAB_ATOMIC_ADD(unsigned long long)
CUDALAB_ATOMIC_ADD(float)
CUDALAB_ATOMIC_ADD(double)
#undef CUDALAB_ATOMIC_ADD

// atomicSub
#define CUDALAB_ATOMIC_SUB(T)                                                            \
  inline T atomicSub_impl(T* a, T v) { return cudalab::detail::atomic(a).fetch_sub(v); } \
  CUDALAB_ATOMIC_SCOPES(T, atomicSub, (T * a, T v), (a, v))
CUDALAB_ATOMIC_SUB(int)
CUDALAB_ATOMIC_SUB(unsigned int)
#undef CUDALAB_ATOMIC_SUB

// atomicExch
#define CUDALAB_ATOMIC_EXCH(T)                                                           \
  inline T atomicExch_impl(T* a, T v) { return cudalab::detail::atomic(a).exchange(v); } \
  CUDALAB_ATOMIC_SCOPES(T, atomicExch, (T * a, T v), (a, v))
CUDALAB_ATOMIC_EXCH(int)
CUDALAB_ATOMIC_EXCH(unsigned int)
CUDALAB_ATOMIC_EXCH(unsigned long long)
CUDALAB_ATOMIC_EXCH(float)
#undef CUDALAB_ATOMIC_EXCH

// atomicMin, atomicMax
#define CUDALAB_ATOMIC_MINMAX(T)                                                        \
  inline T atomicMin_impl(T* a, T v) {                                                  \
    return cudalab::detail::atomic_update(a, [v](T old) { return v < old ? v : old; }); \
  }                                                                                     \
  inline T atomicMax_impl(T* a, T v) {                                                  \
    return cudalab::detail::atomic_update(a, [v](T old) { return old < v ? v : old; }); \
  }                                                                                     \
  CUDALAB_ATOMIC_SCOPES(T, atomicMin, (T * a, T v), (a, v))                             \
  CUDALAB_ATOMIC_SCOPES(T, atomicMax, (T * a, T v), (a, v))
CUDALAB_ATOMIC_MINMAX(int)
CUDALAB_ATOMIC_MINMAX(unsigned int)
CUDALAB_ATOMIC_MINMAX(long long)
CUDALAB_ATOMIC_MINMAX(unsigned long long)
#undef CUDALAB_ATOMIC_MINMAX

// atomicInc, atomicDec: wrap around at `limit`, as CUDA defines them.
inline unsigned int atomicInc_impl(unsigned int* a, unsigned int limit) {
  return cudalab::detail::atomic_update(
      a, [limit](unsigned old) { return old >= limit ? 0u : old + 1; });
}
inline unsigned int atomicDec_impl(unsigned int* a, unsigned int limit) {
  return cudalab::detail::atomic_update(
      a, [limit](unsigned old) { return (old == 0 || old > limit) ? limit : old - 1; });
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
#define CUDALAB_ATOMIC_BITS(T)                                                           \
  inline T atomicAnd_impl(T* a, T v) { return cudalab::detail::atomic(a).fetch_and(v); } \
  inline T atomicOr_impl(T* a, T v) { return cudalab::detail::atomic(a).fetch_or(v); }   \
  inline T atomicXor_impl(T* a, T v) { return cudalab::detail::atomic(a).fetch_xor(v); } \
  CUDALAB_ATOMIC_SCOPES(T, atomicAnd, (T * a, T v), (a, v))                              \
  CUDALAB_ATOMIC_SCOPES(T, atomicOr, (T * a, T v), (a, v))                               \
  CUDALAB_ATOMIC_SCOPES(T, atomicXor, (T * a, T v), (a, v))
CUDALAB_ATOMIC_BITS(int)
CUDALAB_ATOMIC_BITS(unsigned int)
CUDALAB_ATOMIC_BITS(unsigned long long)
#undef CUDALAB_ATOMIC_BITS
#undef CUDALAB_ATOMIC_SCOPES
