// Kernel launches: what the rewriter turns `kernel<<<grid, block, shmem,
// stream>>>(args)` into (make_launcher), the registry that lets
// cudaLaunchKernel call a kernel through a void pointer (register_kernel),
// and the dynamic shared memory that `extern __shared__` arrays become.
// What is not a template here is defined in simulator/src/. Not for
// programs to call.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cudalab/driver_types.h"

namespace cudalab::detail {

// Address of the dynamic shared memory of the block running on this worker.
void* dynamic_shared_memory();

struct LaunchSite {
  const char* kernel;  // the kernel expression as written, e.g. "add<float>"
  const char* file;
  int line;
};

// Runs `body(closure)` once per CUDA thread of the launch; returns the launch
// error (also kept as the last error). A cooperative launch runs all its
// blocks at once, so that the grid can sync.
enum LaunchFlags : unsigned { kLaunchCooperative = 1 };
// [frame_low, frame_high): host memory the kernel threads read to get their
// arguments (the launch's own objects), which memcheck allows.
cudaError_t launch(const LaunchSite& site, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
                   void (*body)(void*), void* closure, unsigned flags = 0,
                   const void* frame_low = nullptr, const void* frame_high = nullptr);
// The lowest and highest byte of the objects at `p...`.
template <class... T>
inline std::pair<const void*, const void*> span_of(const T&... objects) {
  const char* low = nullptr;
  const char* high = nullptr;
  for (auto [b, n] :
       {std::pair<const char*, size_t>(reinterpret_cast<const char*>(&objects), sizeof(T))...}) {
    if (!low || b < low) low = b;
    if (!high || b + n > high) high = b + n;
  }
  return {low, high};
}

// Kernels launched through a function pointer (cudaLaunchKernel and
// cudaLaunchCooperativeKernel) need their parameter types: the rewriter
// registers every non-template __global__ function a .cu file defines.
using KernelInvoker = cudaError_t (*)(const void* kernel, void** args, const LaunchSite& site,
                                      dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
                                      unsigned flags);
void register_kernel_invoker(const void* kernel, const char* name, KernelInvoker invoker);
// 0 when the kernel was not registered.
KernelInvoker find_kernel_invoker(const void* kernel, const char** name);
// Each parameter's size and alignment, for cuLaunchKernel's packed argument
// buffer (CU_LAUNCH_PARAM_BUFFER_POINTER).
struct ParamLayout {
  size_t count;
  const size_t* sizes;
  const size_t* alignments;
};
void register_kernel_layout(const void* kernel, ParamLayout layout);
bool find_kernel_layout(const void* kernel, ParamLayout* layout);
template <class... P>
ParamLayout layout_for(void (*)(P...)) {
  static constexpr size_t sizes[] = {sizeof(std::decay_t<P>)..., 0};
  static constexpr size_t alignments[] = {alignof(std::decay_t<P>)..., 0};
  return {sizeof...(P), sizes, alignments};
}

template <class... P, size_t... I>
cudaError_t invoke_with_args(void (*kernel)(P...), void** args, const LaunchSite& site, dim3 grid,
                             dim3 block, size_t shmem, cudaStream_t stream, unsigned flags,
                             std::index_sequence<I...>) {
  // Each argument is read from the address the caller gave, as CUDA does.
  std::tuple<std::decay_t<P>...> params(*static_cast<std::decay_t<P>*>(args[I])...);
  auto run_one_thread = [&] { std::apply(kernel, params); };
  using Body = decltype(run_one_thread);
  const auto frame = span_of(params, run_one_thread, kernel);
  return launch(
      site, grid, block, shmem, stream, [](void* c) { (*static_cast<Body*>(c))(); },
      &run_one_thread, flags, frame.first, frame.second);
}

template <class... P>
KernelInvoker invoker_for(void (*)(P...)) {
  return [](const void* k, void** args, const LaunchSite& site, dim3 grid, dim3 block, size_t shmem,
            cudaStream_t stream, unsigned flags) {
    auto kernel = reinterpret_cast<void (*)(P...)>(const_cast<void*>(k));
    if (sizeof...(P) > 0 && !args) return cudaErrorInvalidValue;
    return invoke_with_args(kernel, args, site, grid, block, shmem, stream, flags,
                            std::index_sequence_for<P...>{});
  };
}

template <class... P>
int register_kernel(void (*kernel)(P...), const char* name) {
  register_kernel_invoker(reinterpret_cast<const void*>(kernel), name, invoker_for(kernel));
  register_kernel_layout(reinterpret_cast<const void*>(kernel), layout_for(kernel));
  return 0;
}

template <class Call>
class Launcher {
 public:
  Launcher(Call call, LaunchSite site, dim3 grid, dim3 block, size_t shmem = 0,
           cudaStream_t stream = nullptr)
      : call_(call), site_(site), grid_(grid), block_(block), shmem_(shmem), stream_(stream) {}

  // Arguments are copied once at the launch, as CUDA copies them into the
  // kernel's parameter space; each thread then gets its own copy of them.
  template <class... Args>
  void operator()(Args&&... args) {
    auto params = std::make_tuple(std::decay_t<Args>(std::forward<Args>(args))...);
    auto run_one_thread = [&] { std::apply(call_, params); };
    using Body = decltype(run_one_thread);
    const auto frame = span_of(params, run_one_thread, *this);
    launch(
        site_, grid_, block_, shmem_, stream_, [](void* c) { (*static_cast<Body*>(c))(); },
        &run_one_thread, 0, frame.first, frame.second);
  }

 private:
  Call call_;
  LaunchSite site_;
  dim3 grid_, block_;
  size_t shmem_;
  cudaStream_t stream_;
};

template <class... P>
cudaError_t launch_typed(void (*func)(P...), dim3 grid, dim3 block, void** args, size_t shmem,
                         cudaStream_t stream, unsigned flags, const char* file, int line) {
  const char* name = "kernel";
  find_kernel_invoker(reinterpret_cast<const void*>(func), &name);
  const LaunchSite site{name, file, line};
  return invoker_for(func)(reinterpret_cast<const void*>(func), args, site, grid, block, shmem,
                           stream, flags);
}

// make_launcher(call, site)(grid, block[, shmem[, stream]])(args...): the
// configuration goes through a plain function call so that it converts as in
// CUDA (a literal 0 is a null stream, an int is a dim3).
template <class Call>
struct LaunchBuilder {
  Call call;
  LaunchSite site;
  Launcher<Call> operator()(dim3 grid, dim3 block, size_t shmem = 0,
                            cudaStream_t stream = nullptr) const {
    return Launcher<Call>(call, site, grid, block, shmem, stream);
  }
};

template <class Call>
LaunchBuilder<Call> make_launcher(Call call, LaunchSite site) {
  return LaunchBuilder<Call>{call, site};
}

}  // namespace cudalab::detail
