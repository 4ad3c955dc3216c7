// CUDA 12.8's built-in scoped atomics (__nv_atomic_fetch_add and the rest,
// in the style of GCC's __atomic built-ins), with their memory orders and
// thread scopes (kernel_language.h includes this after __threadfence). On
// the CPU every one is sequentially consistent at the
// scope of the whole machine: stronger than any order and scope a program
// asks for, so a program correct on a GPU is correct here. The types each
// takes are the GPU's: nvcc refuses the others, and so does this header.
#pragma once

#include <cstring>
#include <type_traits>

#include "cudalab/detail/atomic.h"

// The names nvcc gives the orders and scopes (in its device_functions.h).
enum {
  __NV_ATOMIC_RELAXED,
  __NV_ATOMIC_CONSUME,
  __NV_ATOMIC_ACQUIRE,
  __NV_ATOMIC_RELEASE,
  __NV_ATOMIC_ACQ_REL,
  __NV_ATOMIC_SEQ_CST
};
enum {
  __NV_THREAD_SCOPE_THREAD,
  __NV_THREAD_SCOPE_BLOCK,
  __NV_THREAD_SCOPE_CLUSTER,
  __NV_THREAD_SCOPE_DEVICE,
  __NV_THREAD_SCOPE_SYSTEM
};

// Read-modify-write: each returns the value before.
template <class T>
T __nv_atomic_fetch_add(T* p, cudalab::detail::value_of<T> v, int, int = __NV_THREAD_SCOPE_SYSTEM) {
  cudalab::detail::scoped_add_types<T>();
  return cudalab::detail::atomic(p).fetch_add(v);
}
template <class T>
T __nv_atomic_fetch_sub(T* p, cudalab::detail::value_of<T> v, int, int = __NV_THREAD_SCOPE_SYSTEM) {
  cudalab::detail::scoped_add_types<T>();
  if constexpr (std::is_integral_v<T>)
    return cudalab::detail::atomic(p).fetch_sub(v);
  else
    return cudalab::detail::atomic(p).fetch_add(-v);
}
#define CUDALAB_SCOPED_BITS(name, op)                                                             \
  template <class T>                                                                              \
  T name(T* p, cudalab::detail::value_of<T> v, int, int = __NV_THREAD_SCOPE_SYSTEM) {             \
    static_assert(cudalab::detail::scoped_integer<T>, #name " takes an integer of 4 or 8 bytes"); \
    return cudalab::detail::op(p, v);                                                             \
  }
CUDALAB_SCOPED_BITS(__nv_atomic_fetch_and, atomic_and)
CUDALAB_SCOPED_BITS(__nv_atomic_fetch_or, atomic_or)
CUDALAB_SCOPED_BITS(__nv_atomic_fetch_xor, atomic_xor)
CUDALAB_SCOPED_BITS(__nv_atomic_fetch_min, atomic_min)
CUDALAB_SCOPED_BITS(__nv_atomic_fetch_max, atomic_max)
#undef CUDALAB_SCOPED_BITS

// Loads and stores, by value (_n) or through a pointer.
template <class T>
T __nv_atomic_load_n(const T* p, int, int = __NV_THREAD_SCOPE_SYSTEM) {
  static_assert(cudalab::detail::scoped_word<T>, "__nv_atomic_load_n takes 4 or 8 bytes");
  return cudalab::detail::atomic(const_cast<T*>(p)).load();
}
template <class T>
void __nv_atomic_load(const T* p, T* out, int order, int scope = __NV_THREAD_SCOPE_SYSTEM) {
  *out = __nv_atomic_load_n(p, order, scope);
}
template <class T>
void __nv_atomic_store_n(T* p, cudalab::detail::value_of<T> v, int,
                         int = __NV_THREAD_SCOPE_SYSTEM) {
  static_assert(cudalab::detail::scoped_word<T>, "__nv_atomic_store_n takes 4 or 8 bytes");
  cudalab::detail::atomic(p).exchange(v);
}
template <class T>
void __nv_atomic_store(T* p, T* v, int order, int scope = __NV_THREAD_SCOPE_SYSTEM) {
  __nv_atomic_store_n(p, *v, order, scope);
}

// Exchanges: the value before, by value (_n) or through a pointer.
template <class T>
T __nv_atomic_exchange_n(T* p, cudalab::detail::value_of<T> v, int,
                         int = __NV_THREAD_SCOPE_SYSTEM) {
  static_assert(cudalab::detail::scoped_word<T>, "__nv_atomic_exchange_n takes 4 or 8 bytes");
  return cudalab::detail::atomic(p).exchange(v);
}
template <class T>
void __nv_atomic_exchange(T* p, T* v, T* old, int order, int scope = __NV_THREAD_SCOPE_SYSTEM) {
  *old = __nv_atomic_exchange_n(p, *v, order, scope);
}

// Compare and exchange: true when *p held *expected and now holds desired;
// otherwise *expected gets what *p holds. `weak` may fail spuriously on a
// GPU; here it never does.
template <class T>
bool __nv_atomic_compare_exchange_n(T* p, T* expected, cudalab::detail::value_of<T> desired, bool,
                                    int, int, int = __NV_THREAD_SCOPE_SYSTEM) {
  static_assert(cudalab::detail::scoped_word<T>,
                "__nv_atomic_compare_exchange_n takes 4 or 8 bytes");
  return cudalab::detail::atomic(p).compare_exchange_strong(*expected, desired);
}
template <class T>
bool __nv_atomic_compare_exchange(T* p, T* expected, T* desired, bool weak, int success,
                                  int failure, int scope = __NV_THREAD_SCOPE_SYSTEM) {
  return __nv_atomic_compare_exchange_n(p, expected, *desired, weak, success, failure, scope);
}

// A fence of any scope is __threadfence() here (the checks see it too).
inline void __nv_atomic_thread_fence(int, int = __NV_THREAD_SCOPE_SYSTEM) { __threadfence(); }
