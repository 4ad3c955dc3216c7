// The operations behind CUDA's atomic functions (cudalab/atomics.h). Blocks
// run in parallel on several workers, so these are real hardware atomics (the
// compiler's __atomic built-ins, so that programs may be C++17 like nvcc's
// default). Not for programs to call.
#pragma once

#include <type_traits>

namespace cudalab::detail {
// The instrumented build (cudalab-cc's twin for the checks and traces) tells
// the runtime about every atomic: checked like any access, never a race.
void atomic_access(const void* p, unsigned size);
void atomic_store_access(const void* p, unsigned size);  // one that only writes
void atomic_load_access(const void* p, unsigned size);   // one that only reads
// A floating-point add (atomicAdd on a float or double): a GPU takes each
// lane's in turn (nvcc adds a warp's integers on one address first).
void atomic_float_access(const void* p, unsigned size);

// The operations CUDA's atomics need, on integers and (through their bits)
// on floating-point values.
template <class T>
class Atomic {
 public:
  // `float_add`: the operation is an add on floating-point values.
  explicit Atomic(T* p, bool float_add = false) : p_(p) {
#ifdef CUDALAB_INSTRUMENTED
    if (float_add)
      atomic_float_access(p, sizeof(T));
    else
      atomic_access(p, sizeof(T));
#else
    (void)float_add;
#endif
  }
  T load() const {
    T v;
#ifdef CUDALAB_INSTRUMENTED
    // Not a load instruction, which the instrumentation would count as a
    // plain read (a race with every atomic write beside it): a
    // compare-and-swap that fails, or writes back the value it found.
    __builtin_memset(&v, 0, sizeof(T));
    __atomic_compare_exchange(p_, &v, &v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
#else
    __atomic_load(p_, &v, __ATOMIC_SEQ_CST);
#endif
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
// An atomic load (atomic_ref::load): checked as an atomic, traced as a load
// (on a GPU it is a load instruction, not one of L2's atomic operations).
template <class T>
T atomic_load_value(T* p) {
  T v;
#ifdef CUDALAB_INSTRUMENTED
  atomic_load_access(p, sizeof(T));
  __builtin_memset(&v, 0, sizeof(T));  // a compare-and-swap, not a load (see load())
  __atomic_compare_exchange(p, &v, &v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
#else
  __atomic_load(p, &v, __ATOMIC_SEQ_CST);
#endif
  return v;
}
// An atomic store: it reads nothing (initcheck has nothing to say).
template <class T>
void atomic_store(T* p, T v) {
#ifdef CUDALAB_INSTRUMENTED
  atomic_store_access(p, sizeof(T));
  T old;  // an exchange, not a store instruction (see load())
  __atomic_exchange(p, &v, &old, __ATOMIC_SEQ_CST);
#else
  __atomic_store(p, &v, __ATOMIC_SEQ_CST);
#endif
}
template <class T, class F>
T atomic_update(T* address, F next) {
  return Atomic<T>(address).update(next);
}

// Each of CUDA's atomics, for any of the types it takes; each returns the
// old value, as CUDA's do.
template <class T>
T atomic_add(T* a, T v) {
  return Atomic<T>(a, std::is_floating_point_v<T>).fetch_add(v);
}
template <class T>
T atomic_sub(T* a, T v) {
  return atomic(a).fetch_sub(v);
}
template <class T>
T atomic_exch(T* a, T v) {
  return atomic(a).exchange(v);
}
template <class T>
T atomic_min(T* a, T v) {
  return atomic_update(a, [v](T old) { return v < old ? v : old; });
}
template <class T>
T atomic_max(T* a, T v) {
  return atomic_update(a, [v](T old) { return old < v ? v : old; });
}
// atomicInc, atomicDec: wrap around at `limit`, as CUDA defines them.
inline unsigned int atomic_inc(unsigned int* a, unsigned int limit) {
  return atomic_update(a, [limit](unsigned old) { return old >= limit ? 0u : old + 1; });
}
inline unsigned int atomic_dec(unsigned int* a, unsigned int limit) {
  return atomic_update(
      a, [limit](unsigned old) { return (old == 0 || old > limit) ? limit : old - 1; });
}
template <class T>
T atomic_cas(T* a, T compare, T value) {
  atomic(a).compare_exchange_strong(compare, value);
  return compare;
}
template <class T>
T atomic_and(T* a, T v) {
  return atomic(a).fetch_and(v);
}
template <class T>
T atomic_or(T* a, T v) {
  return atomic(a).fetch_or(v);
}
template <class T>
T atomic_xor(T* a, T v) {
  return atomic(a).fetch_xor(v);
}

// For the scoped atomics (cudalab/scoped_atomics.h): the types each takes.
// A parameter that takes its type from the pointer's, not from the value
// passed (`__nv_atomic_fetch_add(p_unsigned, 1, ...)` adds an unsigned 1).
template <class T>
struct same_as_pointee {
  using type = T;
};
template <class T>
using value_of = typename same_as_pointee<T>::type;

template <class T>
constexpr bool scoped_word = std::is_trivially_copyable_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);
template <class T>
constexpr bool scoped_integer = std::is_integral_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);
template <class T>
void scoped_add_types() {
  static_assert(std::is_same_v<T, int> || std::is_same_v<T, unsigned> ||
                    std::is_same_v<T, unsigned long long> ||
                    (std::is_same_v<T, unsigned long> && sizeof(long) == 8) ||
                    std::is_same_v<T, float> || std::is_same_v<T, double>,
                "atomic operations add and sub are valid on int, unsigned int, unsigned long "
                "long, float and double only (not on signed integers of size 8, as nvcc says)");
}
}  // namespace cudalab::detail
