// Graphs, stream capture and memory pools as the other runtime files meet
// them: a capturing stream's work is recorded instead of done, and pools and
// graphs own some buffers (graphs.cpp, stream_ordered.cpp, streams.cpp).
// Not a public header.
#pragma once

#include <string>

#include "cudalab/detail/launch.h"
#include "cudalab/graphs.h"
#include "cudalab/runtime_api.h"

namespace cudalab::rt {

// A captured `<<<...>>>` launch as a graph keeps it: the graph's node owns
// `bound`, a copy of the launch's arguments and call (launch.h's Bound),
// and runs it at each launch of the graph (graphs.cpp; launch.cpp's
// launch_bound captures through it).
cudalab::detail::KernelCall* bound_kernel_call(const cudalab::detail::BoundOps& ops, void* bound);

// keeps its mapping); it notes that the buffer was freed.
bool graph_buffer_freed(void* ptr);
// cudaFreeAsync's pool bookkeeping for a buffer leaving the table.
void pool_buffer_freed(void* ptr);
// At a synchronization, pools give back what they keep above their release
// threshold.
void release_pool_memory();
unsigned stream_flags(cudaStream_t stream);  // streams.cpp
// Calls a capture does not allow: cudaSuccess when it does, else the error
// (and the capture is invalidated). kUnsafe: cudaMalloc, cudaFree (refused
// in global and thread-local capture); kDeviceSync: refused in every mode.
enum class CaptureRule { kUnsafe, kDeviceSync };
cudaError_t capture_refuses(CaptureRule rule);
// cudaStreamSynchronize and cudaStreamQuery of a capturing stream.
cudaError_t capture_refuses_stream_sync(cudaStream_t stream);
// Work into the legacy stream while a blocking stream captures.
cudaError_t capture_refuses_legacy(cudaStream_t stream);
// Stream work recorded into the capture (each returns the call's result).
cudaError_t capture_memcpy(cudaStream_t stream, const cudaMemcpy3DParms& p);
cudaError_t capture_memset(cudaStream_t stream, void* ptr, size_t pitch, unsigned value,
                           unsigned element_size, size_t width, size_t height);
cudaError_t capture_host(cudaStream_t stream, cudaHostFn_t fn, void* data);
cudaError_t capture_alloc(cudaStream_t stream, void** ptr, size_t bytes, const std::string& site,
                          const std::string& name);
cudaError_t capture_free(cudaStream_t stream, void* ptr);
// Events in capture: true when the call was the capture's (result in *e).
bool capture_event_record(cudaEvent_t event, cudaStream_t stream, unsigned flags, cudaError_t* e);
bool capture_event_wait(cudaStream_t stream, cudaEvent_t event, unsigned flags, cudaError_t* e);
bool event_recorded_in_capture(cudaEvent_t event);
void forget_capture_of(cudaStream_t stream, cudaEvent_t event);

}  // namespace cudalab::rt
