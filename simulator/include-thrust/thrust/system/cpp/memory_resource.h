// The memory resources of Thrust's CPP system, which is the device system
// on the simulator (thrust/detail/config.h here): device_vector and
// device_allocator take their memory from the simulator's cudaMalloc (so
// kernels may use it and cudaMemcpy copies it), universal_vector from
// cudaMallocManaged. This file stands in for Thrust's header of this name
// and declares the same names.
#pragma once

#include <thrust/detail/config.h>
#include <thrust/mr/fancy_pointer_resource.h>
#include <thrust/mr/memory_resource.h>
#include <thrust/system/cpp/pointer.h>

#include <new>

#include "cudalab/detail/runtime.h"

namespace cudalab::detail {
// A Thrust memory resource over the simulator's device memory; `Managed`:
// managed memory.
template <bool Managed>
class ThrustDeviceResource final : public thrust::mr::memory_resource<void*> {
 public:
  void* do_allocate(std::size_t bytes, std::size_t /*alignment*/) override {
    // Device memory is aligned to 256 bytes, more than Thrust asks.
    if (bytes == 0) return nullptr;
    void* p = Managed ? thrust_malloc_managed(bytes, "a Thrust container")
                      : thrust_malloc(bytes, "a Thrust container");
    if (!p) throw std::bad_alloc();
    return p;
  }
  void do_deallocate(void* p, std::size_t, std::size_t) override { thrust_free(p); }
};
}  // namespace cudalab::detail

THRUST_NAMESPACE_BEGIN
namespace system {
namespace cpp {
namespace detail {
typedef thrust::mr::fancy_pointer_resource<cudalab::detail::ThrustDeviceResource<false>,
                                           thrust::cpp::pointer<void>>
    native_resource;
typedef thrust::mr::fancy_pointer_resource<cudalab::detail::ThrustDeviceResource<true>,
                                           thrust::cpp::universal_pointer<void>>
    universal_native_resource;
typedef thrust::mr::fancy_pointer_resource<cudalab::detail::ThrustDeviceResource<true>,
                                           thrust::cpp::pointer<void>>
    pinned_native_resource;
}  // namespace detail
typedef detail::native_resource memory_resource;
typedef detail::universal_native_resource universal_memory_resource;
typedef detail::pinned_native_resource universal_host_pinned_memory_resource;
}  // namespace cpp
}  // namespace system
THRUST_NAMESPACE_END
