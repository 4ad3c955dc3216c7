// Device buffers that copy themselves in and back, as PyCUDA's drv.In,
// drv.Out and drv.InOut do: a kernel argument made from a host vector.
//
//   std::vector<float> a(n), b(n), c(n);
//   add<<<blocks, threads>>>(cudalab::In(a), cudalab::In(b), cudalab::Out(c), n);
//   // here c holds what the kernel wrote
//
// In(v) copies v to a new device buffer; Out(v) makes a device buffer as
// large as v and copies it back into v when it goes away; InOut(v) does
// both. Each turns into the device pointer the kernel takes, and lives
// until the end of the statement that made it: the copy back (a
// cudaMemcpy, which waits for the kernel) happens there. Kept in a named
// variable, a buffer lives, and copies back, until its scope ends (copies
// of it share the one buffer: the last to go copies back).
//
// A failed allocation or copy ends the program with CUDA's reason, as
// cudalab::check does: a buffer cannot hand back an error from a kernel's
// argument list.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

namespace cudalab {
namespace buffers_detail {

inline void stop_on_error(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "cudalab buffer: %s failed: %s (%s)\n", what, cudaGetErrorString(e),
               cudaGetErrorName(e));
  std::exit(1);
}

// A device buffer of `count` elements of T, copied from `in` when given and
// back into `back` when given, and freed, when the last copy of the
// argument that holds it goes away. (Arguments are copies that share one
// buffer: a launch may copy its arguments, as the simulator's does.)
template <class T>
class Shared {
 public:
  Shared(const std::vector<T>* in, std::vector<T>* back, size_t count)
      : state_(std::make_shared<State>(count, back)) {
    if (in)
      stop_on_error(cudaMemcpy(state_->device, in->data(), state_->bytes, cudaMemcpyHostToDevice),
                    "the copy of a buffer to the device");
  }
  T* device() const { return state_->device; }

 private:
  struct State {
    State(size_t count, std::vector<T>* to) : bytes(count * sizeof(T)), back(to) {
      stop_on_error(cudaMalloc(reinterpret_cast<void**>(&device), bytes ? bytes : 1), "cudaMalloc");
    }
    State(const State&) = delete;
    State& operator=(const State&) = delete;
    ~State() {
      if (back)
        stop_on_error(cudaMemcpy(back->data(), device, bytes, cudaMemcpyDeviceToHost),
                      "the copy of a buffer back to the host");
      cudaFree(device);
    }
    size_t bytes;
    std::vector<T>* back;
    T* device = nullptr;
  };
  std::shared_ptr<State> state_;
};

}  // namespace buffers_detail

// A copy of `host` on the device, for a kernel to read.
template <class T>
class In {
 public:
  explicit In(const std::vector<T>& host) : buffer_(&host, nullptr, host.size()) {}
  operator const T*() const { return buffer_.device(); }

 private:
  buffers_detail::Shared<T> buffer_;
};

// A device buffer as large as `host`, copied back into it at the end.
template <class T>
class Out {
 public:
  explicit Out(std::vector<T>& host) : buffer_(nullptr, &host, host.size()) {}
  operator T*() const { return buffer_.device(); }

 private:
  buffers_detail::Shared<T> buffer_;
};

// A copy of `host` on the device, copied back into it at the end.
template <class T>
class InOut {
 public:
  explicit InOut(std::vector<T>& host) : buffer_(&host, &host, host.size()) {}
  operator T*() const { return buffer_.device(); }

 private:
  buffers_detail::Shared<T> buffer_;
};

}  // namespace cudalab
