// Thrust's execution policies, and on the simulator also the CUDA system's
// names for them, which programs built with nvcc use: thrust::cuda::par and
// par_nosync, with `.on(stream)`. Thrust's algorithms run on the host here
// (the CPP system: thrust/detail/config.h in this folder), and launches and
// copies finish before their calls return, so a stream orders nothing more
// and `on` gives the policy back.
#pragma once

#include_next <thrust/execution_policy.h>

#include "cuda_runtime.h"

THRUST_NAMESPACE_BEGIN
namespace system {
namespace cuda {
namespace detail {
struct par_t : thrust::system::cpp::detail::par_t {
  constexpr par_t() = default;
  thrust::system::cpp::detail::par_t on(cudaStream_t) const { return {}; }
};
}  // namespace detail
THRUST_INLINE_CONSTANT detail::par_t par;
THRUST_INLINE_CONSTANT detail::par_t par_nosync;
}  // namespace cuda
}  // namespace system
namespace cuda {
using thrust::system::cuda::par;
using thrust::system::cuda::par_nosync;
}  // namespace cuda
THRUST_NAMESPACE_END
