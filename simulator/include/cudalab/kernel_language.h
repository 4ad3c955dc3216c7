// The CUDA C++ kernel language on the CPU: qualifiers, built-in index
// variables, barriers, atomics and the launch that the rewriter produces from
// `kernel<<<grid, block, shmem, stream>>>(args)`.
//
// Each CUDA thread runs as a fiber on a worker thread; a block stays on one
// worker from start to end, so the per-worker (thread_local) values below are
// the values of the fiber that runs now.
#pragma once

#include <atomic>
#include <cmath>
#include <cstdio>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cudalab/runtime_api.h"

#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
// Empty, not noinline: libstdc++ spells its own attribute __noinline__.
#define __noinline__
#define __forceinline__ inline __attribute__((always_inline))
#define __restrict__ __restrict
#define __align__(n) alignas(n)
#define __launch_bounds__(...)
// Static shared memory: one copy per worker, and a worker runs one block at a
// time, so every block sees its own.
#define __shared__ static thread_local

extern thread_local uint3 threadIdx;
extern thread_local uint3 blockIdx;
extern thread_local dim3 blockDim;
extern thread_local dim3 gridDim;
constexpr int warpSize = 32;

void __syncthreads();
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }

// Atomics: blocks run in parallel on several workers, so these are real
// hardware atomics.
template <class T>
T cudalab_atomic_add(T* address, T value) {
  return std::atomic_ref<T>(*address).fetch_add(value);
}
inline int atomicAdd(int* a, int v) { return cudalab_atomic_add(a, v); }
inline unsigned int atomicAdd(unsigned int* a, unsigned int v) { return cudalab_atomic_add(a, v); }
inline unsigned long long atomicAdd(unsigned long long* a, unsigned long long v) {
  return cudalab_atomic_add(a, v);
}
inline float atomicAdd(float* a, float v) { return cudalab_atomic_add(a, v); }
inline double atomicAdd(double* a, double v) { return cudalab_atomic_add(a, v); }
inline int atomicSub(int* a, int v) { return std::atomic_ref<int>(*a).fetch_sub(v); }
inline unsigned int atomicSub(unsigned int* a, unsigned int v) {
  return std::atomic_ref<unsigned int>(*a).fetch_sub(v);
}
template <class T>
T atomicExch(T* a, T v) {
  return std::atomic_ref<T>(*a).exchange(v);
}
template <class T>
T atomicCAS(T* a, T expected, T desired) {
  std::atomic_ref<T>(*a).compare_exchange_strong(expected, desired);
  return expected;
}
template <class T>
T atomicMax(T* a, T v) {
  std::atomic_ref<T> r(*a);
  T old = r.load();
  while (old < v && !r.compare_exchange_weak(old, v)) {
  }
  return old;
}
template <class T>
T atomicMin(T* a, T v) {
  std::atomic_ref<T> r(*a);
  T old = r.load();
  while (v < old && !r.compare_exchange_weak(old, v)) {
  }
  return old;
}

// A few of CUDA's math functions that C++ lacks (the full set is issue work).
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline float __expf(float x) { return std::exp(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __saturatef(float x) { return x < 0.f ? 0.f : (x > 1.f ? 1.f : x); }

namespace cudalab::detail {

// Address of the dynamic shared memory of the block running on this worker.
void* dynamic_shared_memory();

struct LaunchSite {
  const char* kernel;  // the kernel expression as written, e.g. "add<float>"
  const char* file;
  int line;
};

// Runs `body(closure)` once per CUDA thread of the launch; returns the launch
// error (also kept as the last error).
cudaError_t launch(const LaunchSite& site, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
                   void (*body)(void*), void* closure);

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
    launch(
        site_, grid_, block_, shmem_, stream_, [](void* c) { (*static_cast<Body*>(c))(); },
        &run_one_thread);
  }

 private:
  Call call_;
  LaunchSite site_;
  dim3 grid_, block_;
  size_t shmem_;
  cudaStream_t stream_;
};

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
