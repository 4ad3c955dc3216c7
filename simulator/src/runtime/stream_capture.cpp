// Stream capture: a stream's work recorded into a graph instead of done (one
// stream, or several joined through events), the calls a capture refuses,
// and the hooks through which launches, copies, memsets, allocations and
// events of a capturing stream become nodes. The graph and its nodes are
// graphs.cpp's (graph_nodes.h).
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cudalab/kernel_language.h"
#include "runtime/capture.h"
#include "runtime/errors.h"
#include "runtime/graph_nodes.h"

using cudalab::detail::KernelCall;
using cudalab::detail::LaunchSite;
using cudalab::rt::api_result;
using cudalab::rt::capture_node;
using cudalab::rt::check_dependencies;
using cudalab::rt::g_graphs_mutex;
using cudalab::rt::is_graph;
using cudalab::rt::register_graph;

namespace {
struct Capture {
  CUgraph_st* graph = nullptr;
  bool owns_graph = true;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
  unsigned long long id = 0;
  cudaStream_t origin = nullptr;
  bool invalid = false;
  std::thread::id thread;
};
struct StreamCapture {
  std::shared_ptr<Capture> capture;
  std::vector<CUgraphNode_st*> deps;
  std::vector<cudaGraphEdgeData> edges;  // for cudaStreamGetCaptureInfo
};
std::map<cudaStream_t, StreamCapture> g_captures;
struct EventCapture {
  std::weak_ptr<Capture> capture;
  std::vector<CUgraphNode_st*> deps;
};
std::map<cudaEvent_t, EventCapture> g_event_captures;
std::atomic<int> g_capturing{0};
unsigned long long g_next_capture = 1;
thread_local cudaStreamCaptureMode tl_capture_mode = cudaStreamCaptureModeGlobal;

StreamCapture* capture_of(cudaStream_t s) {
  auto it = g_captures.find(s);
  return it == g_captures.end() ? nullptr : &it->second;
}

void end_capture(const std::shared_ptr<Capture>& c) {
  for (auto it = g_captures.begin(); it != g_captures.end();)
    it = it->second.capture == c ? g_captures.erase(it) : std::next(it);
  g_capturing = int(g_captures.size());
}

// A node recorded into the capture of `stream`, with `value` as its `field`.
template <class T>
cudaError_t capture_value(cudaStream_t stream, cudaGraphNodeType type, T CUgraphNode_st::*field,
                          const T& value) {
  std::lock_guard lock(g_graphs_mutex);
  CUgraphNode_st* n = nullptr;
  if (const cudaError_t e = capture_node(stream, type, &n); e != cudaSuccess) return e;
  n->*field = value;
  return cudaSuccess;
}
}  // namespace

namespace cudalab::rt {

bool capturing(cudaStream_t stream) { return capture_of(stream) != nullptr; }

// A node recorded into the capture of `stream` (which must be capturing).
cudaError_t capture_node(cudaStream_t stream, cudaGraphNodeType type, CUgraphNode_st** node) {
  StreamCapture* sc = capture_of(stream);
  if (!sc) return cudaErrorIllegalState;
  if (sc->capture->invalid) return cudaErrorStreamCaptureInvalidated;
  CUgraphNode_st* n = new_node(sc->capture->graph, type);
  n->deps = sc->deps;
  sc->deps = {n};
  *node = n;
  return cudaSuccess;
}

}  // namespace cudalab::rt

// ---- hooks of launch.h, memory.cpp and streams.cpp ----------------------------------------
bool cudalab::detail::capturing_launches(cudaStream_t stream) {
  if (g_capturing.load(std::memory_order_relaxed) == 0) return false;
  std::lock_guard lock(g_graphs_mutex);
  return capture_of(stream) != nullptr;
}

cudaError_t cudalab::detail::capture_kernel(cudaStream_t stream, const LaunchSite& site, dim3 grid,
                                            dim3 block, size_t shmem, unsigned flags,
                                            const void* kernel, KernelCall* call) {
  std::shared_ptr<KernelCall> owned(call);
  std::lock_guard lock(g_graphs_mutex);
  CUgraphNode_st* n = nullptr;
  if (const cudaError_t e = capture_node(stream, cudaGraphNodeTypeKernel, &n); e != cudaSuccess)
    return api_result(e);
  n->kernel.func = const_cast<void*>(kernel);
  n->kernel.gridDim = grid;
  n->kernel.blockDim = block;
  n->kernel.sharedMemBytes = unsigned(shmem);
  n->kernel.kernelParams = owned->arguments();
  n->call = std::move(owned);
  n->site = site;
  n->launch_flags = flags;
  return api_result(cudaSuccess);
}

namespace cudalab::rt {

cudaError_t capture_refuses(CaptureRule rule) {
  if (g_capturing.load() == 0) return cudaSuccess;
  std::lock_guard lock(g_graphs_mutex);
  cudaError_t result = cudaSuccess;
  for (auto& [stream, sc] : g_captures) {
    Capture& c = *sc.capture;
    bool refused = rule == CaptureRule::kDeviceSync;
    if (rule == CaptureRule::kUnsafe)
      refused =
          c.mode == cudaStreamCaptureModeGlobal ||
          (c.mode == cudaStreamCaptureModeThreadLocal && c.thread == std::this_thread::get_id());
    if (tl_capture_mode == cudaStreamCaptureModeRelaxed && rule == CaptureRule::kUnsafe)
      refused = false;
    if (refused) {
      c.invalid = true;
      result = cudaErrorStreamCaptureUnsupported;
    }
  }
  return result;
}

cudaError_t capture_refuses_stream_sync(cudaStream_t stream) {
  if (g_capturing.load() == 0) return cudaSuccess;
  std::lock_guard lock(g_graphs_mutex);
  if (StreamCapture* sc = capture_of(stream)) {
    sc->capture->invalid = true;
    return cudaErrorStreamCaptureUnsupported;
  }
  return capture_refuses_legacy(stream);
}

cudaError_t capture_refuses_legacy(cudaStream_t stream) {
  if ((stream && stream != cudaStreamLegacy) || g_capturing.load() == 0) return cudaSuccess;
  std::lock_guard lock(g_graphs_mutex);
  cudaError_t result = cudaSuccess;
  for (auto& [s, sc] : g_captures) {
    if (stream_flags(s) & cudaStreamNonBlocking) continue;
    sc.capture->invalid = true;
    result = cudaErrorStreamCaptureImplicit;
  }
  return result;
}

cudaError_t capture_memcpy(cudaStream_t stream, const cudaMemcpy3DParms& p) {
  if (const cudaError_t e = check_copy(p); e != cudaSuccess) return e;
  return capture_value(stream, cudaGraphNodeTypeMemcpy, &CUgraphNode_st::copy, p);
}

cudaError_t capture_memset(cudaStream_t stream, void* ptr, size_t pitch, unsigned value,
                           unsigned element_size, size_t width, size_t height) {
  const cudaMemsetParams p = {ptr, pitch, value, element_size, width, height};
  if (width == 0) return cudaSuccess;
  if (const cudaError_t e = check_memset(p); e != cudaSuccess) return e;
  return capture_value(stream, cudaGraphNodeTypeMemset, &CUgraphNode_st::memset, p);
}

cudaError_t capture_host(cudaStream_t stream, cudaHostFn_t fn, void* data) {
  return capture_value(stream, cudaGraphNodeTypeHost, &CUgraphNode_st::host,
                       cudaHostNodeParams{fn, data});
}

cudaError_t capture_alloc(cudaStream_t stream, void** ptr, size_t bytes, const std::string& site,
                          const std::string&) {
  std::lock_guard lock(g_graphs_mutex);
  StreamCapture* sc = capture_of(stream);
  if (!sc) return cudaErrorIllegalState;
  if (sc->capture->invalid) return cudaErrorStreamCaptureInvalidated;
  cudaMemAllocNodeParams p = {};
  p.bytesize = bytes;
  p.poolProps.allocType = cudaMemAllocationTypePinned;
  p.poolProps.location = {cudaMemLocationTypeDevice, 0};
  CUgraphNode_st* n = nullptr;
  if (const cudaError_t e = capture_node(stream, cudaGraphNodeTypeMemAlloc, &n); e != cudaSuccess)
    return e;
  if (const cudaError_t e = add_alloc(*n, p, site); e != cudaSuccess) {
    n->type = cudaGraphNodeTypeEmpty;
    return e;
  }
  *ptr = p.dptr;
  return cudaSuccess;
}

cudaError_t capture_free(cudaStream_t stream, void* ptr) {
  return capture_value(stream, cudaGraphNodeTypeMemFree, &CUgraphNode_st::free_ptr, ptr);
}

bool capture_event_record(cudaEvent_t event, cudaStream_t stream, unsigned flags, cudaError_t* e) {
  if (g_capturing.load() == 0) return false;
  std::lock_guard lock(g_graphs_mutex);
  StreamCapture* sc = capture_of(stream);
  if (!sc) {
    *e = capture_refuses_legacy(stream);
    return *e != cudaSuccess;
  }
  if (sc->capture->invalid) {
    *e = cudaErrorStreamCaptureInvalidated;
    return true;
  }
  if (flags & cudaEventRecordExternal) {
    *e = capture_value(stream, cudaGraphNodeTypeEventRecord, &CUgraphNode_st::event, event);
    return true;
  }
  g_event_captures[event] = {sc->capture, sc->deps};
  *e = cudaSuccess;
  return true;
}

bool capture_event_wait(cudaStream_t stream, cudaEvent_t event, unsigned flags, cudaError_t* e) {
  if (g_capturing.load() == 0) return false;
  std::lock_guard lock(g_graphs_mutex);
  StreamCapture* sc = capture_of(stream);
  auto it = g_event_captures.find(event);
  std::shared_ptr<Capture> from;
  if (it != g_event_captures.end()) from = it->second.capture.lock();
  if (!from) {
    if (sc && (flags & cudaEventWaitExternal)) {
      *e = capture_value(stream, cudaGraphNodeTypeWaitEvent, &CUgraphNode_st::event, event);
      return true;
    }
    if (!sc) {
      *e = capture_refuses_legacy(stream);
      return *e != cudaSuccess;
    }
    *e = cudaSuccess;  // work from outside the capture: nothing to record
    return true;
  }
  const std::vector<CUgraphNode_st*>& deps = it->second.deps;
  if (!sc) {
    // The stream joins the capture (a fork).
    g_captures[stream] = StreamCapture{from, deps, {}};
    g_capturing = int(g_captures.size());
    *e = from->invalid ? cudaErrorStreamCaptureInvalidated : cudaSuccess;
    return true;
  }
  if (sc->capture != from) {
    *e = cudaErrorStreamCaptureIsolation;
    return true;
  }
  for (CUgraphNode_st* d : deps)
    if (std::find(sc->deps.begin(), sc->deps.end(), d) == sc->deps.end()) sc->deps.push_back(d);
  *e = sc->capture->invalid ? cudaErrorStreamCaptureInvalidated : cudaSuccess;
  return true;
}

bool event_recorded_in_capture(cudaEvent_t event) {
  if (g_capturing.load() == 0) return false;
  std::lock_guard lock(g_graphs_mutex);
  auto it = g_event_captures.find(event);
  return it != g_event_captures.end() && !it->second.capture.expired();
}

void forget_capture_of(cudaStream_t stream, cudaEvent_t event) {
  std::lock_guard lock(g_graphs_mutex);
  if (event) g_event_captures.erase(event);
  if (stream) {
    g_captures.erase(stream);
    g_capturing = int(g_captures.size());
  }
}

}  // namespace cudalab::rt

// ---- the API -------------------------------------------------------------------------------
namespace {
cudaError_t begin_capture(cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t* deps,
                          size_t count, cudaStreamCaptureMode mode) {
  if (!stream || stream == cudaStreamLegacy) return cudaErrorStreamCaptureUnsupported;
  if (mode > cudaStreamCaptureModeRelaxed) return cudaErrorInvalidValue;
  std::lock_guard lock(g_graphs_mutex);
  if (capture_of(stream)) return cudaErrorIllegalState;
  auto c = std::make_shared<Capture>();
  c->mode = mode;
  c->id = g_next_capture++;
  c->origin = stream;
  c->thread = std::this_thread::get_id();
  StreamCapture sc;
  if (graph) {
    if (!is_graph(graph)) return cudaErrorInvalidValue;
    if (const cudaError_t e = check_dependencies(graph, deps, count); e != cudaSuccess) return e;
    c->graph = graph;
    c->owns_graph = false;
    sc.deps.assign(deps, deps + count);
  } else {
    c->graph = new CUgraph_st;
    register_graph(c->graph);
  }
  sc.capture = c;
  g_captures[stream] = std::move(sc);
  g_capturing = int(g_captures.size());
  return cudaSuccess;
}

// Whether every node a forked stream added reaches the origin stream's
// last work (its dependencies, and theirs).
bool joined(const Capture& c) {
  const StreamCapture* origin = capture_of(c.origin);
  std::set<const CUgraphNode_st*> reached;
  std::vector<const CUgraphNode_st*> todo(origin->deps.begin(), origin->deps.end());
  while (!todo.empty()) {
    const CUgraphNode_st* n = todo.back();
    todo.pop_back();
    if (!reached.insert(n).second) continue;
    for (const CUgraphNode_st* d : n->deps) todo.push_back(d);
  }
  for (const auto& [s, sc] : g_captures) {
    if (sc.capture.get() != &c || s == c.origin) continue;
    for (const CUgraphNode_st* d : sc.deps)
      if (!reached.count(d)) return false;
  }
  return true;
}
}  // namespace

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  return api_result(begin_capture(stream, nullptr, nullptr, 0, mode));
}

cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                          const cudaGraphNode_t* deps, const cudaGraphEdgeData*,
                                          size_t count, cudaStreamCaptureMode mode) {
  if (!graph) return api_result(cudaErrorInvalidValue);
  return api_result(begin_capture(stream, graph, deps, count, mode));
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  std::lock_guard lock(g_graphs_mutex);
  StreamCapture* sc = capture_of(stream);
  if (!sc) return api_result(cudaErrorIllegalState);
  std::shared_ptr<Capture> c = sc->capture;
  // A capture into the caller's graph may leave the graph out.
  cudaGraph_t unused = nullptr;
  if (!graph && c->owns_graph) return api_result(cudaErrorInvalidValue);
  if (!graph) graph = &unused;
  if (c->origin != stream) {
    c->invalid = true;
    return api_result(cudaErrorStreamCaptureUnmatched);
  }
  if (c->mode == cudaStreamCaptureModeThreadLocal && c->thread != std::this_thread::get_id())
    return api_result(cudaErrorStreamCaptureWrongThread);
  cudaError_t result = cudaSuccess;
  if (c->invalid)
    result = cudaErrorStreamCaptureInvalidated;
  else if (!joined(*c))
    result = cudaErrorStreamCaptureUnjoined;
  end_capture(c);
  if (result != cudaSuccess) {
    if (c->owns_graph) delete c->graph;
    *graph = nullptr;
    return api_result(result);
  }
  *graph = c->graph;
  return api_result(cudaSuccess);
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status) {
  if (!status) return api_result(cudaErrorInvalidValue);
  if (const cudaError_t e = cudalab::rt::capture_refuses_legacy(stream); e != cudaSuccess)
    return api_result(e);
  std::lock_guard lock(g_graphs_mutex);
  const StreamCapture* sc = capture_of(stream);
  *status = !sc                    ? cudaStreamCaptureStatusNone
            : sc->capture->invalid ? cudaStreamCaptureStatusInvalidated
                                   : cudaStreamCaptureStatusActive;
  return api_result(cudaSuccess);
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                     unsigned long long* id, cudaGraph_t* graph,
                                     const cudaGraphNode_t** deps,
                                     const cudaGraphEdgeData** edge_data, size_t* count) {
  if (!status) return api_result(cudaErrorInvalidValue);
  if (const cudaError_t e = cudalab::rt::capture_refuses_legacy(stream); e != cudaSuccess)
    return api_result(e);
  std::lock_guard lock(g_graphs_mutex);
  StreamCapture* sc = capture_of(stream);
  if (!sc) {
    *status = cudaStreamCaptureStatusNone;
    return api_result(cudaSuccess);
  }
  *status =
      sc->capture->invalid ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
  if (id) *id = sc->capture->id;
  if (graph) *graph = sc->capture->graph;
  sc->edges.assign(sc->deps.size(), cudaGraphEdgeData{});
  if (deps) *deps = sc->deps.data();
  if (edge_data) *edge_data = sc->edges.data();
  if (count) *count = sc->deps.size();
  return api_result(cudaSuccess);
}

cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* deps,
                                                const cudaGraphEdgeData*, size_t count,
                                                unsigned int flags) {
  if (flags > cudaStreamSetCaptureDependencies) return api_result(cudaErrorInvalidValue);
  std::lock_guard lock(g_graphs_mutex);
  StreamCapture* sc = capture_of(stream);
  if (!sc) return api_result(cudaErrorIllegalState);
  if (sc->capture->invalid) return api_result(cudaErrorStreamCaptureInvalidated);
  if (const cudaError_t e = check_dependencies(sc->capture->graph, deps, count); e != cudaSuccess)
    return api_result(e);
  if (flags == cudaStreamSetCaptureDependencies) sc->deps.clear();
  for (size_t i = 0; i < count; ++i)
    if (std::find(sc->deps.begin(), sc->deps.end(), deps[i]) == sc->deps.end())
      sc->deps.push_back(deps[i]);
  return api_result(cudaSuccess);
}

cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* mode) {
  if (!mode || *mode > cudaStreamCaptureModeRelaxed) return api_result(cudaErrorInvalidValue);
  std::swap(*mode, tl_capture_mode);
  return api_result(cudaSuccess);
}
