// Thrust's kernel launcher, thrust::cuda_cub::launcher::triple_chevron, on
// the simulator; CUB's device-wide algorithms (cub::DeviceReduce, ...)
// launch their kernels with it. Thrust's own header launches from the
// device whenever __CUDA_ARCH__ is set, which the simulator's single compile
// always sets; this one launches from the host as `k<<<grid, block,
// shared_mem, stream>>>(args...)` does. (A CUB algorithm called inside a
// kernel, which CUDA 12 no longer allows either, stops the launch.)
#pragma once

#include <cuda_runtime.h>
#include <thrust/detail/config.h>

#include <cstddef>
#include <tuple>
#include <utility>

THRUST_NAMESPACE_BEGIN
namespace cuda_cub {
namespace launcher {

struct triple_chevron {
  using Size = size_t;
  dim3 const grid;
  dim3 const block;
  Size const shared_mem;
  cudaStream_t const stream;

  __host__ __device__ triple_chevron(dim3 grid_, dim3 block_, Size shared_mem_ = 0,
                                     cudaStream_t stream_ = 0)
      : grid(grid_), block(block_), shared_mem(shared_mem_), stream(stream_) {}

  // As cudaLaunchKernel does: the arguments converted to the kernel's own
  // parameter types, then copied into each thread.
  template <class... P, class... Args>
  __host__ __device__ cudaError_t doit(void (*k)(P...), Args const&... args) const {
    static_assert(sizeof...(P) == sizeof...(Args),
                  "a kernel launched with too few or too many arguments");
    return launch(k, std::index_sequence_for<P...>{}, args...);
  }

 private:
  template <class... P, size_t... I, class... Args>
  cudaError_t launch(void (*k)(P...), std::index_sequence<I...>, Args const&... args) const {
    std::tuple<P...> exact(args...);
    void* argv[] = {static_cast<void*>(&std::get<I>(exact))..., nullptr};
    const ::cudalab::detail::LaunchSite site{"a CUB kernel", __FILE__, __LINE__};
    const cudaError_t e = ::cudalab::detail::invoker_for(k)(
        reinterpret_cast<const void*>(k), argv, site, grid, block, shared_mem, stream, 0);
    return e != cudaSuccess ? e : cudaPeekAtLastError();
  }
};

}  // namespace launcher
}  // namespace cuda_cub
THRUST_NAMESPACE_END
