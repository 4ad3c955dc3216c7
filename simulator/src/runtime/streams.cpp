// Streams and events. Every operation runs to completion before its call
// returns, which is one valid order of a CUDA stream; events record the wall
// clock so cudaEventElapsedTime measures real simulator time.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <mutex>
#include <set>
#include <thread>

#include "grid/grid.h"
#include "runtime/capture.h"
#include "runtime/device.h"
#include "runtime/errors.h"

struct CUstream_st {
  unsigned flags = 0;
};
struct CUevent_st {
  unsigned flags = 0;
  bool recorded = false;
  std::chrono::steady_clock::time_point when;
};

namespace {
std::mutex g_handles_mutex;
std::set<void*> g_streams, g_events;

bool live(std::set<void*>& set, void* p) {
  std::lock_guard lock(g_handles_mutex);
  return set.count(p) != 0;
}

// A stream the API takes: the default stream (0, cudaStreamLegacy,
// cudaStreamPerThread) or one created and not destroyed.
bool valid_stream(cudaStream_t stream) {
  return !stream || stream == cudaStreamLegacy || stream == cudaStreamPerThread ||
         live(g_streams, stream);
}
}  // namespace

using cudalab::rt::api_result;

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  if (!stream || flags > cudaStreamNonBlocking) return api_result(cudaErrorInvalidValue);
  auto* s = new CUstream_st{flags};
  std::lock_guard lock(g_handles_mutex);
  g_streams.insert(s);
  *stream = s;
  return api_result(cudaSuccess);
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}

unsigned cudalab::rt::stream_flags(cudaStream_t stream) {
  if (!stream || !live(g_streams, stream)) return 0;
  return stream->flags;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  std::lock_guard lock(g_handles_mutex);
  if (!stream || !g_streams.erase(stream)) return api_result(cudaErrorInvalidResourceHandle);
  cudalab::rt::forget_capture_of(stream, nullptr);
  delete stream;
  return api_result(cudaSuccess);
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (!valid_stream(stream)) return api_result(cudaErrorInvalidResourceHandle);
  if (const cudaError_t e = cudalab::rt::capture_refuses_stream_sync(stream); e != cudaSuccess)
    return api_result(e);
  cudalab::rt::release_pool_memory();
  return api_result(cudaSuccess);
}

cudaError_t cudaStreamQuery(cudaStream_t stream) { return cudaStreamSynchronize(stream); }

cudaError_t cudaDeviceSynchronize() {
  if (cudalab::rt::tl_thread) {
    // CUDA 12 removed waiting for child grids in a kernel (nvcc refuses it).
    static std::atomic<bool> said{false};
    if (!said.exchange(true))
      std::fprintf(stderr,
                   "cudalab: a kernel called cudaDeviceSynchronize(), which CUDA 12 removed from "
                   "kernels (nvcc refuses it for a GPU build); here it does not wait: the grids "
                   "this kernel launched run after its own grid\n");
  }
  using cudalab::rt::CaptureRule;
  if (const cudaError_t e = cudalab::rt::capture_refuses(CaptureRule::kDeviceSync);
      e != cudaSuccess)
    return api_result(e);
  cudalab::rt::release_pool_memory();
  return api_result(cudaSuccess);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  if (!event || flags > (cudaEventBlockingSync | cudaEventDisableTiming))
    return api_result(cudaErrorInvalidValue);
  auto* e = new CUevent_st{flags, false, {}};
  std::lock_guard lock(g_handles_mutex);
  g_events.insert(e);
  *event = e;
  return api_result(cudaSuccess);
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  std::lock_guard lock(g_handles_mutex);
  if (!event || !g_events.erase(event)) return api_result(cudaErrorInvalidResourceHandle);
  cudalab::rt::forget_capture_of(nullptr, event);
  delete event;
  return api_result(cudaSuccess);
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return cudaEventRecordWithFlags(event, stream, cudaEventRecordDefault);
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  if (!event || !live(g_events, event)) return api_result(cudaErrorInvalidResourceHandle);
  if (!valid_stream(stream)) return api_result(cudaErrorInvalidResourceHandle);
  if (flags > cudaEventRecordExternal) return api_result(cudaErrorInvalidValue);
  if (cudaError_t e; cudalab::rt::capture_event_record(event, stream, flags, &e))
    return api_result(e);
  event->recorded = true;
  event->when = std::chrono::steady_clock::now();
  return api_result(cudaSuccess);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (!event || !live(g_events, event)) return api_result(cudaErrorInvalidResourceHandle);
  if (cudalab::rt::event_recorded_in_capture(event)) return api_result(cudaErrorCapturedEvent);
  cudalab::rt::release_pool_memory();
  return api_result(cudaSuccess);
}

cudaError_t cudaEventQuery(cudaEvent_t event) { return cudaEventSynchronize(event); }

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (!ms) return api_result(cudaErrorInvalidValue);
  if (!start || !end || !live(g_events, start) || !live(g_events, end))
    return api_result(cudaErrorInvalidResourceHandle);
  if ((start->flags | end->flags) & cudaEventDisableTiming)
    return api_result(cudaErrorInvalidResourceHandle);
  if (!start->recorded || !end->recorded) return api_result(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return api_result(cudaSuccess);
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void* user_data, unsigned int flags) {
  if (!callback || flags != 0) return api_result(cudaErrorInvalidValue);
  if (!valid_stream(stream)) return api_result(cudaErrorInvalidResourceHandle);
  if (cudalab::detail::capturing_launches(stream))
    return api_result(cudaErrorStreamCaptureUnsupported);
  // Everything before it in the stream has finished: call it now.
  callback(stream, cudalab::rt::sticky_error(), user_data);
  return api_result(cudaSuccess);
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data) {
  if (!fn) return api_result(cudaErrorInvalidValue);
  if (!valid_stream(stream)) return api_result(cudaErrorInvalidResourceHandle);
  if (cudalab::detail::capturing_launches(stream))
    return api_result(cudalab::rt::capture_host(stream, fn, user_data));
  if (const cudaError_t e = cudalab::rt::capture_refuses_legacy(stream); e != cudaSuccess)
    return api_result(e);
  fn(user_data);
  return api_result(cudaSuccess);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  if (!event || !live(g_events, event)) return api_result(cudaErrorInvalidResourceHandle);
  if (!valid_stream(stream)) return api_result(cudaErrorInvalidResourceHandle);
  if (flags > cudaEventWaitExternal) return api_result(cudaErrorInvalidValue);
  if (cudaError_t e; cudalab::rt::capture_event_wait(stream, event, flags, &e))
    return api_result(e);
  return api_result(cudaSuccess);
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int) {
  return cudaStreamCreateWithFlags(stream, flags);
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return api_result(cudaSuccess);
}

cudaError_t cudaThreadSynchronize() { return cudaDeviceSynchronize(); }
cudaError_t cudaThreadExit() { return cudaDeviceReset(); }

// GPU cycles: wall time at the simulated GPU's clock rate, so that a kernel
// that waits `ms * clockRate` cycles waits `ms` milliseconds, as on a GPU.
long long clock64() {
  static const double cycles_per_ns = cudalab::rt::device_properties().clockRate / 1e6;
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count();
  return static_cast<long long>(double(ns) * cycles_per_ns);
}

clock_t cudalab::detail::clock() {
  // In a kernel, the GPU's clock(); on the host, the C library's.
  if (cudalab::rt::tl_thread) return static_cast<clock_t>(clock64());
  return std::clock();
}

void __nanosleep(unsigned int ns) {
  std::this_thread::sleep_for(std::chrono::nanoseconds(std::min(ns, 1000000u)));
}
