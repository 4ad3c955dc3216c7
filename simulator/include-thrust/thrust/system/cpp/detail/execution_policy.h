// Thrust's CPP system (the device system on the simulator) with the
// simulator's device memory: after Thrust's header of this name, the
// system's malloc and free, which thrust::device_malloc, thrust::malloc and
// the algorithms' scratch space call, become cudaMalloc and cudaFree (they
// are found by argument-dependent lookup, and preferred to the sequential
// system's, whose policies are this system's bases).
#pragma once

#include_next <thrust/system/cpp/detail/execution_policy.h>

#include <cstddef>

#include "cudalab/detail/runtime.h"

namespace cudalab::detail {
// The address in a pointer Thrust frees: a plain one, or one of Thrust's
// (thrust::pointer, device_ptr).
template <typename T>
void* thrust_address(T* p) {
  return const_cast<void*>(static_cast<const void*>(p));
}
template <typename Pointer>
void* thrust_address(const Pointer& p) {
  return static_cast<void*>(p.get());
}
}  // namespace cudalab::detail

THRUST_NAMESPACE_BEGIN
namespace system {
namespace cpp {
namespace detail {
template <typename DerivedPolicy>
inline void* malloc(execution_policy<DerivedPolicy>&, std::size_t n) {
  return cudalab::detail::thrust_malloc(n, "thrust::device_malloc or a Thrust algorithm");
}

template <typename DerivedPolicy, typename Pointer>
inline void free(execution_policy<DerivedPolicy>&, Pointer ptr) {
  cudalab::detail::thrust_free(cudalab::detail::thrust_address(ptr));
}
}  // namespace detail
}  // namespace cpp
}  // namespace system
THRUST_NAMESPACE_END
