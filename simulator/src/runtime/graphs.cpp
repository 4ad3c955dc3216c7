// CUDA graphs: graphs and their nodes and edges, executable graphs and their
// updates, conditional nodes, graph memory nodes, user objects (stream
// capture, which records a stream's work into a graph, is
// stream_capture.cpp's). A graph's launch runs its nodes in
// a topological order before cudaGraphLaunch returns, as every stream
// operation here does. A captured kernel launch keeps its own copy of the
// arguments (detail::KernelCall, launch.h); explicit kernel nodes get theirs
// from the kernel registry, which knows each registered kernel's parameters.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <thread>
#include <vector>

#include "checks/checks.h"
#include "cudalab/kernel_language.h"
#include "runtime/allocations.h"
#include "runtime/capture.h"
#include "runtime/errors.h"
#include "runtime/graph_nodes.h"

using cudalab::detail::KernelCall;
using cudalab::detail::LaunchSite;
using cudalab::rt::add_alloc;
using cudalab::rt::api_result;
using cudalab::rt::capture_node;
using cudalab::rt::capturing;
using cudalab::rt::check_copy;
using cudalab::rt::check_dependencies;
using cudalab::rt::check_memset;
using cudalab::rt::g_graphs_mutex;
using cudalab::rt::GraphBuffer;
using cudalab::rt::is_graph;
using cudalab::rt::new_node;
using cudalab::rt::register_graph;

struct CUgraphExec_st {
  std::unique_ptr<CUgraph_st> graph;
  unsigned long long flags = 0;
};

struct CUuserObject_st {
  void* ptr = nullptr;
  cudaHostFn_t destroy = nullptr;
  std::atomic<int> count{0};
};

namespace {
std::set<const CUgraph_st*> g_graphs;
std::set<const CUgraphNode_st*> g_nodes;
std::set<const CUgraphExec_st*> g_execs;
std::atomic<uint64_t> g_next_id{1};

struct Condition {
  unsigned default_value = 0;
  unsigned flags = 0;
  std::atomic<unsigned> value{0};
};
std::mutex g_condition_mutex;
std::map<cudaGraphConditionalHandle, std::unique_ptr<Condition>> g_conditions;
cudaGraphConditionalHandle g_next_handle = 1;

// Graph memory: what is mapped for graphs' allocations (reserved), kept
// until trimmed, and what live allocations use; in 32 MiB units, as a GPU.
constexpr size_t kGraphGranule = size_t(32) << 20;
size_t g_graph_reserved = 0, g_graph_live = 0, g_graph_used_high = 0, g_graph_reserved_high = 0;
std::map<void*, std::shared_ptr<GraphBuffer>> g_graph_buffers;  // by address, while mapped
size_t granules(size_t bytes) {
  return (bytes + kGraphGranule - 1) / kGraphGranule * kGraphGranule;
}

template <class T>
bool known(const std::set<const T*>& set, const T* p) {
  return p && set.count(p);
}

}  // namespace

// What stream_capture.cpp uses too (graph_nodes.h).
namespace cudalab::rt {

std::recursive_mutex g_graphs_mutex;

bool is_graph(const CUgraph_st* g) { return known(g_graphs, g); }

void register_graph(CUgraph_st* g) {
  g->registered = true;
  g_graphs.insert(g);
}

CUgraphNode_st* new_node(CUgraph_st* g, cudaGraphNodeType type) {
  auto n = std::make_unique<CUgraphNode_st>();
  n->graph = g;
  n->type = type;
  n->id = n->origin = g_next_id++;
  CUgraphNode_st* raw = n.get();
  g->nodes.push_back(std::move(n));
  if (g->registered) g_nodes.insert(raw);
  return raw;
}

// ---- adding nodes ------------------------------------------------------------------------
// Checks a node's dependencies: all of `g`, none twice.
cudaError_t check_dependencies(CUgraph_st* g, const cudaGraphNode_t* deps, size_t count) {
  if (count && !deps) return cudaErrorInvalidValue;
  std::set<const CUgraphNode_st*> seen;
  for (size_t i = 0; i < count; ++i) {
    if (!known(g_nodes, static_cast<const CUgraphNode_st*>(deps[i])) || deps[i]->graph != g)
      return cudaErrorInvalidValue;
    if (!seen.insert(deps[i]).second) return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

cudaError_t check_memset(const cudaMemsetParams& p) {
  if (!p.dst || (p.elementSize != 1 && p.elementSize != 2 && p.elementSize != 4))
    return cudaErrorInvalidValue;
  if (p.height > 1 && p.pitch < p.width * p.elementSize) return cudaErrorInvalidValue;
  return cudaSuccess;
}

cudaError_t check_copy(const cudaMemcpy3DParms& p) {
  if (p.srcArray || p.dstArray) return cudaErrorNotSupported;
  if (!p.srcPtr.ptr || !p.dstPtr.ptr) return cudaErrorInvalidValue;
  if (p.kind < cudaMemcpyHostToHost || p.kind > cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  return cudaSuccess;
}

cudaError_t add_alloc(CUgraphNode_st& n, cudaMemAllocNodeParams& p, std::string site) {
  if (p.bytesize == 0 || p.poolProps.allocType != cudaMemAllocationTypePinned ||
      p.poolProps.location.type != cudaMemLocationTypeDevice || p.poolProps.location.id != 0)
    return cudaErrorInvalidValue;
  auto b = std::make_shared<GraphBuffer>();
  b->size = p.bytesize;
  b->ptr = cudalab::rt::map_device_block(p.bytesize, &b->block);
  if (!b->ptr) return cudaErrorMemoryAllocation;
  b->site = std::move(site);
  g_graph_buffers[b->ptr] = b;
  n.buffer = b;
  p.dptr = b->ptr;
  n.alloc = p;
  return cudaSuccess;
}

}  // namespace cudalab::rt

namespace {

std::unique_ptr<CUgraph_st> clone_graph(const CUgraph_st& from, bool visible);

void copy_node(CUgraphNode_st& to, const CUgraphNode_st& from, bool visible) {
  to.type = from.type;
  to.origin = from.id;
  to.kernel = from.kernel;
  to.call = from.call;
  to.site = from.site;
  to.launch_flags = from.launch_flags;
  to.copy = from.copy;
  to.memset = from.memset;
  to.host = from.host;
  to.event = from.event;
  to.child = from.child ? clone_graph(*from.child, visible) : nullptr;
  to.bodies.clear();
  to.body_handles.clear();
  for (const auto& b : from.bodies) {
    to.bodies.push_back(clone_graph(*b, visible));
    to.body_handles.push_back(to.bodies.back().get());
  }
  to.handle = from.handle;
  to.cond_type = from.cond_type;
  to.buffer = from.buffer;
  to.alloc = from.alloc;
  to.free_ptr = from.free_ptr;
  to.enabled = from.enabled;
}

std::unique_ptr<CUgraph_st> clone_graph(const CUgraph_st& from, bool visible) {
  auto g = std::make_unique<CUgraph_st>();
  if (visible) register_graph(g.get());
  g->handles = from.handles;
  std::map<const CUgraphNode_st*, CUgraphNode_st*> map;
  for (const auto& n : from.nodes) {
    CUgraphNode_st* c = new_node(g.get(), n->type);
    copy_node(*c, *n, visible);
    map[n.get()] = c;
  }
  for (const auto& n : from.nodes)
    for (const CUgraphNode_st* d : n->deps) map[n.get()]->deps.push_back(map[d]);
  return g;
}

// The nodes in an order that runs each after its dependencies; false when
// the edges make a cycle.
bool topological_order(const CUgraph_st& g, std::vector<CUgraphNode_st*>* order) {
  std::map<const CUgraphNode_st*, size_t> waiting;
  std::map<const CUgraphNode_st*, std::vector<CUgraphNode_st*>> dependents;
  for (const auto& n : g.nodes) {
    waiting[n.get()] = n->deps.size();
    for (const CUgraphNode_st* d : n->deps) dependents[d].push_back(n.get());
  }
  order->clear();
  std::vector<CUgraphNode_st*> ready;
  for (const auto& n : g.nodes)
    if (n->deps.empty()) ready.push_back(n.get());
  for (size_t i = 0; i < ready.size(); ++i) {
    order->push_back(ready[i]);
    for (CUgraphNode_st* next : dependents[ready[i]])
      if (--waiting[next] == 0) ready.push_back(next);
  }
  return order->size() == g.nodes.size();
}

bool cycle_free(const CUgraph_st& g) {
  std::vector<CUgraphNode_st*> order;
  if (!topological_order(g, &order)) return false;
  for (const auto& n : g.nodes) {
    if (n->child && !cycle_free(*n->child)) return false;
    for (const auto& b : n->bodies)
      if (!cycle_free(*b)) return false;
  }
  return true;
}

// ---- running a graph --------------------------------------------------------------------
void graph_memory_changed() {
  g_graph_used_high = std::max(g_graph_used_high, g_graph_reserved);
  g_graph_reserved_high = std::max(g_graph_reserved_high, g_graph_reserved);
}

cudaError_t run_memset(const cudaMemsetParams& p) {
  if (p.elementSize != 1 && p.elementSize != 2 && p.elementSize != 4) return cudaErrorInvalidValue;
  for (size_t r = 0; r < p.height; ++r) {
    char* row = static_cast<char*>(p.dst) + r * p.pitch;
    const size_t bytes = p.width * p.elementSize;
    // cudaMemset checks the range and notes the bytes as written.
    if (const cudaError_t e = cudaMemset(row, 0, bytes); e != cudaSuccess) return e;
    for (size_t i = 0; i < p.width; ++i)
      std::memcpy(row + i * p.elementSize, &p.value, p.elementSize);
  }
  return cudaSuccess;
}

cudaError_t run_graph(CUgraph_st& g, cudaStream_t stream);

void reset_conditions(const CUgraph_st& g) {
  std::lock_guard lock(g_condition_mutex);
  for (cudaGraphConditionalHandle h : g.handles) {
    auto it = g_conditions.find(h);
    if (it != g_conditions.end() && (it->second->flags & cudaGraphCondAssignDefault))
      it->second->value = it->second->default_value;
  }
}

unsigned condition_value(cudaGraphConditionalHandle h) {
  std::lock_guard lock(g_condition_mutex);
  auto it = g_conditions.find(h);
  return it == g_conditions.end() ? 0 : it->second->value.load();
}

cudaError_t run_node(CUgraphNode_st& n, cudaStream_t stream) {
  if (!n.enabled) return cudaSuccess;
  switch (n.type) {
    case cudaGraphNodeTypeKernel:
      if (!n.call) return cudaErrorInvalidDeviceFunction;
      return n.call->run(n.site, n.kernel.gridDim, n.kernel.blockDim, n.kernel.sharedMemBytes,
                         stream, n.launch_flags);
    case cudaGraphNodeTypeMemcpy:
      return cudaMemcpy3D(&n.copy);
    case cudaGraphNodeTypeMemset:
      return run_memset(n.memset);
    case cudaGraphNodeTypeHost:
      n.host.fn(n.host.userData);
      return cudaSuccess;
    case cudaGraphNodeTypeGraph:
      return run_graph(*n.child, stream);
    case cudaGraphNodeTypeEventRecord:
      return cudaEventRecord(n.event, stream);
    case cudaGraphNodeTypeMemAlloc: {
      std::lock_guard lock(g_graphs_mutex);
      GraphBuffer& b = *n.buffer;
      if (b.live) return cudaErrorInvalidValue;  // still allocated from an earlier launch
      const size_t need = granules(b.size);
      if (g_graph_reserved - g_graph_live < need)
        g_graph_reserved += need - (g_graph_reserved - g_graph_live);
      g_graph_live += need;
      graph_memory_changed();
      b.live = true;
      cudalab::rt::add_device_buffer(b.ptr, b.size, b.block, b.site, "");
      return cudaSuccess;
    }
    case cudaGraphNodeTypeMemFree:
      return cudalab::rt::free_device_buffer(n.free_ptr, "a graph's memory free node", nullptr);
    case cudaGraphNodeTypeConditional: {
      if (n.cond_type == cudaGraphCondTypeWhile) {
        while (condition_value(n.handle) != 0)
          if (const cudaError_t e = run_graph(*n.bodies[0], stream); e != cudaSuccess) return e;
        return cudaSuccess;
      }
      const unsigned v = condition_value(n.handle);
      if (n.cond_type == cudaGraphCondTypeIf) {
        if (v != 0) return run_graph(*n.bodies[0], stream);
        if (n.bodies.size() == 2) return run_graph(*n.bodies[1], stream);
        return cudaSuccess;
      }
      if (v < n.bodies.size()) return run_graph(*n.bodies[v], stream);
      return cudaSuccess;
    }
    default:
      return cudaSuccess;
  }
}

cudaError_t run_graph(CUgraph_st& g, cudaStream_t stream) {
  std::vector<CUgraphNode_st*> order;
  {
    std::lock_guard lock(g_graphs_mutex);
    if (!topological_order(g, &order)) return cudaErrorInvalidValue;
  }
  reset_conditions(g);
  for (CUgraphNode_st* n : order) {
    if (cudalab::rt::sticky_error() != cudaSuccess) return cudaSuccess;
    if (const cudaError_t e = run_node(*n, stream); e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

// Starts a node of `type` in `graph` after `deps`: *node, or the error.
cudaError_t begin_node(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* deps,
                       size_t count, cudaGraphNodeType type, CUgraphNode_st** node) {
  if (!out || !known(g_graphs, static_cast<const CUgraph_st*>(graph))) return cudaErrorInvalidValue;
  if (const cudaError_t e = check_dependencies(graph, deps, count); e != cudaSuccess) return e;
  CUgraphNode_st* n = new_node(graph, type);
  n->deps.assign(deps, deps + count);
  *out = n;
  *node = n;
  return cudaSuccess;
}

cudaError_t kernel_call_of(const cudaKernelNodeParams& p, std::shared_ptr<KernelCall>* call,
                           LaunchSite* site);

cudaError_t set_kernel(CUgraphNode_st& n, const cudaKernelNodeParams& p) {
  std::shared_ptr<KernelCall> call;
  LaunchSite site = n.site;
  if (const cudaError_t e = kernel_call_of(p, &call, &site); e != cudaSuccess) return e;
  n.kernel = p;
  n.kernel.kernelParams = call->arguments();
  n.kernel.extra = nullptr;
  n.call = std::move(call);
  n.site = site;
  n.launch_flags = 0;
  return cudaSuccess;
}

// ---- a node's parameters: checked and stored, read -----------------------------------------
// `node` when it is a node of a live graph; nullptr otherwise.
CUgraphNode_st* live_node(cudaGraphNode_t node) {
  return known(g_nodes, static_cast<const CUgraphNode_st*>(node)) ? node : nullptr;
}

// Each node type's parameters checked and stored in `n`: the error a GPU
// gives for wrong ones. (set_kernel above is the kernel node's.)
template <class P>
using Setter = cudaError_t (*)(CUgraphNode_st& n, const P& p);

cudaError_t set_copy(CUgraphNode_st& n, const cudaMemcpy3DParms& p) {
  if (const cudaError_t e = check_copy(p); e != cudaSuccess) return e;
  n.copy = p;
  return cudaSuccess;
}

cudaError_t set_memset(CUgraphNode_st& n, const cudaMemsetParams& p) {
  if (const cudaError_t e = check_memset(p); e != cudaSuccess) return e;
  n.memset = p;
  return cudaSuccess;
}

cudaError_t set_host(CUgraphNode_st& n, const cudaHostNodeParams& p) {
  if (!p.fn) return cudaErrorInvalidValue;
  n.host = p;
  return cudaSuccess;
}

cudaError_t set_event(CUgraphNode_st& n, const cudaEvent_t& event) {
  if (!event) return cudaErrorInvalidValue;
  n.event = event;
  return cudaSuccess;
}

cudaError_t set_free_ptr(CUgraphNode_st& n, void* const& ptr) {
  if (!ptr) return cudaErrorInvalidValue;
  n.free_ptr = ptr;
  return cudaSuccess;
}

// The cudaGraph*NodeSetParams and cudaGraphExec*NodeSetParams calls: `n`
// is the node they name (nullptr: none), which must be of `type`.
template <class P>
cudaError_t set_params(CUgraphNode_st* n, cudaGraphNodeType type, const P* params, Setter<P> set) {
  if (!params || !n || n->type != type) return cudaErrorInvalidValue;
  return set(*n, *params);
}

// The cudaGraph*NodeGet* calls: what `read` (a member, or a function of
// the node) gives of `node`, which must be of `type`, in *out.
template <class T, class Read>
cudaError_t get_params(cudaGraphNode_t node, cudaGraphNodeType type, T* out, Read read) {
  const CUgraphNode_st* n = live_node(node);
  if (!out || !n || n->type != type) return cudaErrorInvalidValue;
  *out = std::invoke(read, *n);
  return cudaSuccess;
}

// The cudaGraphAdd*Node calls: a node of `type` after `deps`, with the
// parameters `set` takes; they are checked before the node is added.
template <class P>
cudaError_t add_node(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                     size_t count, cudaGraphNodeType type, const P* params, Setter<P> set) {
  if (!params) return cudaErrorInvalidValue;
  CUgraphNode_st n0;
  n0.type = type;
  if (const cudaError_t e = set(n0, *params); e != cudaSuccess) return e;
  CUgraphNode_st* n = nullptr;
  if (const cudaError_t e = begin_node(node, graph, deps, count, type, &n); e != cudaSuccess)
    return e;
  copy_node(*n, n0, true);
  n->origin = n->id;
  return cudaSuccess;
}

// cudaGraphNodeParams' forms of the parameters as the older calls take them.
cudaKernelNodeParams v1(const cudaKernelNodeParamsV2& k) {
  return {k.func, k.gridDim, k.blockDim, k.sharedMemBytes, k.kernelParams, k.extra};
}
cudaMemsetParams v1(const cudaMemsetParamsV2& m) {
  return {m.dst, m.pitch, m.value, m.elementSize, m.width, m.height};
}
cudaHostNodeParams v1(const cudaHostNodeParamsV2& h) { return {h.fn, h.userData}; }

// cudaGraphNodeSetParams and cudaGraphExecNodeSetParams: `n` is the node
// they name (nullptr: none).
cudaError_t set_node_params(CUgraphNode_st* n, const cudaGraphNodeParams& p) {
  switch (p.type) {
    case cudaGraphNodeTypeKernel: {
      const cudaKernelNodeParams k = v1(p.kernel);
      return set_params(n, p.type, &k, set_kernel);
    }
    case cudaGraphNodeTypeMemcpy:
      return set_params(n, p.type, &p.memcpy.copyParams, set_copy);
    case cudaGraphNodeTypeMemset: {
      const cudaMemsetParams m = v1(p.memset);
      return set_params(n, p.type, &m, set_memset);
    }
    case cudaGraphNodeTypeHost: {
      const cudaHostNodeParams h = v1(p.host);
      return set_params(n, p.type, &h, set_host);
    }
    default:
      return cudaErrorNotSupported;
  }
}

cudaError_t add_conditional(CUgraphNode_st& n, cudaConditionalNodeParams& p) {
  {
    std::lock_guard lock(g_condition_mutex);
    if (!g_conditions.count(p.handle)) return cudaErrorInvalidValue;
  }
  const unsigned size = p.size;
  if (size == 0 || (p.type == cudaGraphCondTypeWhile && size != 1) ||
      (p.type == cudaGraphCondTypeIf && size > 2) || p.type > cudaGraphCondTypeSwitch)
    return cudaErrorInvalidValue;
  n.handle = p.handle;
  n.cond_type = p.type;
  for (unsigned i = 0; i < size; ++i) {
    n.bodies.push_back(std::make_unique<CUgraph_st>());
    register_graph(n.bodies.back().get());
    n.body_handles.push_back(n.bodies.back().get());
  }
  p.phGraph_out = n.body_handles.data();
  return cudaSuccess;
}

}  // namespace

CUgraphNode_st::~CUgraphNode_st() {
  g_nodes.erase(this);
  if (buffer && buffer.use_count() == 2) {  // this node and the address table
    if (buffer->live)
      buffer->orphan = true;  // freed later by cudaFree
    else {
      cudalab::rt::unmap_device_block(buffer->block, buffer->size);
      g_graph_buffers.erase(buffer->ptr);
    }
  }
}

CUgraph_st::~CUgraph_st() { g_graphs.erase(this); }

// ---- the kernels' calls a graph keeps ------------------------------------------------------
namespace {
// A registered (or exactly typed) kernel's arguments as bytes, in an
// allocation aligned for each; run through the kernel's invoker.
class StoredKernelCall final : public KernelCall {
 public:
  StoredKernelCall(const void* kernel, cudalab::detail::KernelInvoker invoker,
                   cudalab::detail::ParamLayout layout, void* const* args)
      : kernel_(kernel), invoker_(invoker), pointers_(layout.count + 1, nullptr) {
    size_t end = 0;
    std::vector<size_t> offsets(layout.count);
    for (size_t i = 0; i < layout.count; ++i) {
      align_ = std::max(align_, layout.alignments[i]);
      offsets[i] = (end + layout.alignments[i] - 1) / layout.alignments[i] * layout.alignments[i];
      end = offsets[i] + layout.sizes[i];
    }
    bytes_ = static_cast<unsigned char*>(
        ::operator new(std::max<size_t>(end, 1), std::align_val_t(align_)));
    for (size_t i = 0; i < layout.count; ++i) {
      std::memcpy(bytes_ + offsets[i], args[i], layout.sizes[i]);
      pointers_[i] = bytes_ + offsets[i];
    }
  }
  ~StoredKernelCall() override { ::operator delete(bytes_, std::align_val_t(align_)); }
  StoredKernelCall(const StoredKernelCall&) = delete;
  StoredKernelCall& operator=(const StoredKernelCall&) = delete;
  cudaError_t run(const LaunchSite& site, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
                  unsigned flags) override {
    return invoker_(kernel_, pointers_.data(), site, grid, block, shmem, stream,
                    flags | cudalab::detail::kLaunchFromGraph);
  }
  void** arguments() override { return pointers_.data(); }

 private:
  const void* kernel_;
  cudalab::detail::KernelInvoker invoker_;
  size_t align_ = alignof(std::max_align_t);
  unsigned char* bytes_ = nullptr;
  std::vector<void*> pointers_;
};

// A captured `<<<...>>>` launch: its own copy of the launch's arguments
// and call (launch.h's Bound).
class BoundKernelCall final : public KernelCall {
 public:
  BoundKernelCall(const cudalab::detail::BoundOps& ops, void* bound)
      : ops_(ops), bound_(bound), pointers_(ops.count + 1, nullptr) {
    ops.arguments(bound, pointers_.data());
  }
  ~BoundKernelCall() override { ops_.destroy(bound_); }
  BoundKernelCall(const BoundKernelCall&) = delete;
  BoundKernelCall& operator=(const BoundKernelCall&) = delete;
  cudaError_t run(const LaunchSite& site, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
                  unsigned flags) override {
    const char* frame = static_cast<const char*>(bound_);
    return cudalab::detail::launch(site, grid, block, shmem, stream, ops_.run, bound_, flags, frame,
                                   frame + ops_.size);
  }
  void** arguments() override { return pointers_.data(); }

 private:
  const cudalab::detail::BoundOps& ops_;
  void* bound_;
  std::vector<void*> pointers_;
};

cudaError_t kernel_call_of(const cudaKernelNodeParams& p, std::shared_ptr<KernelCall>* call,
                           LaunchSite* site) {
  if (!p.func) return cudaErrorInvalidDeviceFunction;
  const char* name = "kernel";
  const cudalab::detail::KernelInvoker invoker =
      cudalab::detail::find_kernel_invoker(p.func, &name);
  cudalab::detail::ParamLayout layout{};
  if (!invoker || !cudalab::detail::find_kernel_layout(p.func, &layout)) {
    std::fprintf(stderr,
                 "cudalab: a kernel node was given a function pointer that is not a kernel the "
                 "simulator knows. cudalab knows the non-template __global__ functions of the "
                 ".cu files it compiled; capture a launch of a template kernel (<<<...>>> or "
                 "cudaLaunchKernel with the kernel itself) instead "
                 "(cudaErrorInvalidDeviceFunction)\n");
    return cudaErrorInvalidDeviceFunction;
  }
  if (p.extra) return cudaErrorInvalidValue;  // the "extra" form is not supported
  KernelCall* made = cudalab::detail::stored_kernel_call(p.func, invoker, layout, p.kernelParams);
  if (!made) return cudaErrorInvalidValue;
  call->reset(made);
  *site = LaunchSite{name ? name : "kernel", "(a graph's kernel node)", 0};
  return cudaSuccess;
}
}  // namespace

KernelCall* cudalab::detail::stored_kernel_call(const void* kernel, KernelInvoker invoker,
                                                ParamLayout layout, void* const* args) {
  if (layout.count > 0 && !args) return nullptr;
  return new StoredKernelCall(kernel, invoker, layout, args);
}

KernelCall* cudalab::rt::bound_kernel_call(const cudalab::detail::BoundOps& ops, void* bound) {
  return new BoundKernelCall(ops, bound);
}

namespace cudalab::rt {

bool graph_buffer_freed(void* ptr) {
  std::lock_guard lock(g_graphs_mutex);
  auto it = g_graph_buffers.find(ptr);
  if (it == g_graph_buffers.end()) return false;
  GraphBuffer& b = *it->second;
  if (b.live) {
    b.live = false;
    g_graph_live -= std::min(g_graph_live, granules(b.size));
  }
  if (b.orphan) {
    // Its node is gone: the address goes too (memcheck may keep the memory).
    if (!memcheck_enabled()) unmap_device_block(b.block, b.size);
    g_graph_buffers.erase(it);
  }
  return true;
}

}  // namespace cudalab::rt

// ---- the API: graphs and nodes ------------------------------------------------------------
cudaError_t cudaGraphCreate(cudaGraph_t* graph, unsigned int flags) {
  if (!graph || flags != 0) return api_result(cudaErrorInvalidValue);
  std::lock_guard lock(g_graphs_mutex);
  auto* g = new CUgraph_st;
  register_graph(g);
  *graph = g;
  return api_result(cudaSuccess);
}

namespace {
// Top-level graphs only: bodies and child graphs belong to their node.
bool owned_by_node(const CUgraph_st* g) {
  for (const CUgraphNode_st* n : g_nodes) {
    if (n->child.get() == g) return true;
    for (const auto& b : n->bodies)
      if (b.get() == g) return true;
  }
  return false;
}
}  // namespace

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  std::lock_guard lock(g_graphs_mutex);
  if (!known(g_graphs, static_cast<const CUgraph_st*>(graph)) || owned_by_node(graph))
    return api_result(cudaErrorInvalidValue);
  delete graph;
  return api_result(cudaSuccess);
}

cudaError_t cudaGraphClone(cudaGraph_t* clone, cudaGraph_t original) {
  std::lock_guard lock(g_graphs_mutex);
  if (!clone || !known(g_graphs, static_cast<const CUgraph_st*>(original)))
    return api_result(cudaErrorInvalidValue);
  *clone = clone_graph(*original, true).release();
  return api_result(cudaSuccess);
}

cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t* node, cudaGraphNode_t original,
                                     cudaGraph_t clone) {
  std::lock_guard lock(g_graphs_mutex);
  if (!node || !known(g_nodes, static_cast<const CUgraphNode_st*>(original)) ||
      !known(g_graphs, static_cast<const CUgraph_st*>(clone)))
    return api_result(cudaErrorInvalidValue);
  for (const auto& n : clone->nodes)
    if (n->origin == original->id) {
      *node = n.get();
      return api_result(cudaSuccess);
    }
  return api_result(cudaErrorInvalidValue);
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* deps, size_t count,
                                   const cudaKernelNodeParams* params) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(
      add_node(node, graph, deps, count, cudaGraphNodeTypeKernel, params, set_kernel));
}

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams* params) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(get_params(node, cudaGraphNodeTypeKernel, params, &CUgraphNode_st::kernel));
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const cudaKernelNodeParams* params) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(set_params(live_node(node), cudaGraphNodeTypeKernel, params, set_kernel));
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* deps, size_t count,
                                   const cudaMemcpy3DParms* params) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(add_node(node, graph, deps, count, cudaGraphNodeTypeMemcpy, params, set_copy));
}

namespace {
cudaMemcpy3DParms copy_1d(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(const_cast<void*>(src), bytes, bytes, 1);
  p.dstPtr = make_cudaPitchedPtr(dst, bytes, bytes, 1);
  p.extent = make_cudaExtent(bytes, 1, 1);
  p.kind = kind;
  return p;
}
}  // namespace

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* node, cudaGraph_t graph,
                                     const cudaGraphNode_t* deps, size_t count, void* dst,
                                     const void* src, size_t bytes, cudaMemcpyKind kind) {
  const cudaMemcpy3DParms p = copy_1d(dst, src, bytes, kind);
  return cudaGraphAddMemcpyNode(node, graph, deps, count, &p);
}

cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, cudaMemcpy3DParms* params) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(get_params(node, cudaGraphNodeTypeMemcpy, params, &CUgraphNode_st::copy));
}

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const cudaMemcpy3DParms* params) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(set_params(live_node(node), cudaGraphNodeTypeMemcpy, params, set_copy));
}

cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void* dst, const void* src,
                                           size_t bytes, cudaMemcpyKind kind) {
  const cudaMemcpy3DParms p = copy_1d(dst, src, bytes, kind);
  return cudaGraphMemcpyNodeSetParams(node, &p);
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* deps, size_t count,
                                   const cudaMemsetParams* params) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(
      add_node(node, graph, deps, count, cudaGraphNodeTypeMemset, params, set_memset));
}

cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, cudaMemsetParams* params) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(get_params(node, cudaGraphNodeTypeMemset, params, &CUgraphNode_st::memset));
}

cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const cudaMemsetParams* params) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(set_params(live_node(node), cudaGraphNodeTypeMemset, params, set_memset));
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                 const cudaGraphNode_t* deps, size_t count,
                                 const cudaHostNodeParams* params) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(add_node(node, graph, deps, count, cudaGraphNodeTypeHost, params, set_host));
}

cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, cudaHostNodeParams* params) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(get_params(node, cudaGraphNodeTypeHost, params, &CUgraphNode_st::host));
}

cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const cudaHostNodeParams* params) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(set_params(live_node(node), cudaGraphNodeTypeHost, params, set_host));
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                  const cudaGraphNode_t* deps, size_t count) {
  std::lock_guard lock(g_graphs_mutex);
  CUgraphNode_st* n = nullptr;
  return api_result(begin_node(node, graph, deps, count, cudaGraphNodeTypeEmpty, &n));
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                       const cudaGraphNode_t* deps, size_t count,
                                       cudaGraph_t child) {
  std::lock_guard lock(g_graphs_mutex);
  if (!known(g_graphs, static_cast<const CUgraph_st*>(child)) || child == graph)
    return api_result(cudaErrorInvalidValue);
  CUgraphNode_st* n = nullptr;
  if (const cudaError_t e = begin_node(node, graph, deps, count, cudaGraphNodeTypeGraph, &n);
      e != cudaSuccess)
    return api_result(e);
  n->child = clone_graph(*child, true);
  return api_result(cudaSuccess);
}

cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t* graph) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(get_params(node, cudaGraphNodeTypeGraph, graph,
                               [](const CUgraphNode_st& n) { return n.child.get(); }));
}

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                        const cudaGraphNode_t* deps, size_t count,
                                        cudaEvent_t event) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(
      add_node(node, graph, deps, count, cudaGraphNodeTypeEventRecord, &event, set_event));
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                      const cudaGraphNode_t* deps, size_t count,
                                      cudaEvent_t event) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(
      add_node(node, graph, deps, count, cudaGraphNodeTypeWaitEvent, &event, set_event));
}

cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(get_params(node, cudaGraphNodeTypeEventRecord, event, &CUgraphNode_st::event));
}

cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(get_params(node, cudaGraphNodeTypeWaitEvent, event, &CUgraphNode_st::event));
}

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                     const cudaGraphNode_t* deps, size_t count,
                                     cudaMemAllocNodeParams* params) {
  std::lock_guard lock(g_graphs_mutex);
  if (!params) return api_result(cudaErrorInvalidValue);
  cudaMemAllocNodeParams p = *params;
  CUgraphNode_st* n = nullptr;
  if (const cudaError_t e = begin_node(node, graph, deps, count, cudaGraphNodeTypeMemAlloc, &n);
      e != cudaSuccess)
    return api_result(e);
  if (const cudaError_t e = add_alloc(*n, p, "a graph's memory allocation node");
      e != cudaSuccess) {
    graph->nodes.pop_back();
    return api_result(e);
  }
  params->dptr = p.dptr;
  return api_result(cudaSuccess);
}

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, cudaMemAllocNodeParams* params) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(get_params(node, cudaGraphNodeTypeMemAlloc, params, &CUgraphNode_st::alloc));
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                    const cudaGraphNode_t* deps, size_t count, void* dptr) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(
      add_node(node, graph, deps, count, cudaGraphNodeTypeMemFree, &dptr, set_free_ptr));
}

// `dptr` is where the address goes (a void**, as CUDA's signature has it).
cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void* dptr) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(get_params(node, cudaGraphNodeTypeMemFree, static_cast<void**>(dptr),
                               &CUgraphNode_st::free_ptr));
}

cudaError_t cudaGraphAddNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                             const cudaGraphEdgeData* edge_data, size_t count,
                             cudaGraphNodeParams* params) {
  (void)edge_data;
  if (!params) return api_result(cudaErrorInvalidValue);
  switch (params->type) {
    case cudaGraphNodeTypeKernel: {
      const cudaKernelNodeParams p = v1(params->kernel);
      return cudaGraphAddKernelNode(node, graph, deps, count, &p);
    }
    case cudaGraphNodeTypeMemcpy:
      return cudaGraphAddMemcpyNode(node, graph, deps, count, &params->memcpy.copyParams);
    case cudaGraphNodeTypeMemset: {
      const cudaMemsetParams p = v1(params->memset);
      return cudaGraphAddMemsetNode(node, graph, deps, count, &p);
    }
    case cudaGraphNodeTypeHost: {
      const cudaHostNodeParams p = v1(params->host);
      return cudaGraphAddHostNode(node, graph, deps, count, &p);
    }
    case cudaGraphNodeTypeGraph:
      return cudaGraphAddChildGraphNode(node, graph, deps, count, params->graph.graph);
    case cudaGraphNodeTypeEmpty:
      return cudaGraphAddEmptyNode(node, graph, deps, count);
    case cudaGraphNodeTypeEventRecord:
      return cudaGraphAddEventRecordNode(node, graph, deps, count, params->eventRecord.event);
    case cudaGraphNodeTypeWaitEvent:
      return cudaGraphAddEventWaitNode(node, graph, deps, count, params->eventWait.event);
    case cudaGraphNodeTypeMemAlloc: {
      cudaMemAllocNodeParams p;
      std::memcpy(&p, &params->alloc, sizeof(p));
      const cudaError_t e = cudaGraphAddMemAllocNode(node, graph, deps, count, &p);
      params->alloc.dptr = p.dptr;
      return e;
    }
    case cudaGraphNodeTypeMemFree:
      return cudaGraphAddMemFreeNode(node, graph, deps, count, params->free.dptr);
    case cudaGraphNodeTypeConditional: {
      std::lock_guard lock(g_graphs_mutex);
      CUgraphNode_st* n = nullptr;
      cudaGraphNode_t made = nullptr;
      if (const cudaError_t e =
              begin_node(&made, graph, deps, count, cudaGraphNodeTypeConditional, &n);
          e != cudaSuccess)
        return api_result(e);
      if (const cudaError_t e = add_conditional(*n, params->conditional); e != cudaSuccess) {
        graph->nodes.pop_back();
        return api_result(e);
      }
      if (node) *node = made;
      return api_result(cudaSuccess);
    }
    default:
      return api_result(cudaErrorNotSupported);
  }
}

cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, cudaGraphNodeParams* params) {
  if (!params) return api_result(cudaErrorInvalidValue);
  std::lock_guard lock(g_graphs_mutex);
  return api_result(set_node_params(live_node(node), *params));
}

cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
  std::lock_guard lock(g_graphs_mutex);
  if (!known(g_nodes, static_cast<const CUgraphNode_st*>(node)))
    return api_result(cudaErrorInvalidValue);
  CUgraph_st* g = node->graph;
  for (auto& n : g->nodes) {
    auto& d = n->deps;
    d.erase(std::remove(d.begin(), d.end(), node), d.end());
  }
  auto it = std::find_if(g->nodes.begin(), g->nodes.end(),
                         [&](const auto& n) { return n.get() == node; });
  g->nodes.erase(it);
  return api_result(cudaSuccess);
}

// ---- edges ---------------------------------------------------------------------------------
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                     const cudaGraphNode_t* to, const cudaGraphEdgeData*,
                                     size_t count) {
  std::lock_guard lock(g_graphs_mutex);
  if (!known(g_graphs, static_cast<const CUgraph_st*>(graph)) || (count && (!from || !to)))
    return api_result(cudaErrorInvalidValue);
  for (size_t i = 0; i < count; ++i) {
    if (!known(g_nodes, static_cast<const CUgraphNode_st*>(from[i])) ||
        !known(g_nodes, static_cast<const CUgraphNode_st*>(to[i])) || from[i]->graph != graph ||
        to[i]->graph != graph || from[i] == to[i])
      return api_result(cudaErrorInvalidValue);
    auto& d = to[i]->deps;
    if (std::find(d.begin(), d.end(), from[i]) != d.end()) return api_result(cudaErrorInvalidValue);
  }
  for (size_t i = 0; i < count; ++i) to[i]->deps.push_back(from[i]);
  return api_result(cudaSuccess);
}

cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                        const cudaGraphNode_t* to, const cudaGraphEdgeData*,
                                        size_t count) {
  std::lock_guard lock(g_graphs_mutex);
  if (!known(g_graphs, static_cast<const CUgraph_st*>(graph)) || (count && (!from || !to)))
    return api_result(cudaErrorInvalidValue);
  for (size_t i = 0; i < count; ++i) {
    if (!known(g_nodes, static_cast<const CUgraphNode_st*>(from[i])) ||
        !known(g_nodes, static_cast<const CUgraphNode_st*>(to[i])) || to[i]->graph != graph)
      return api_result(cudaErrorInvalidValue);
    auto& d = to[i]->deps;
    auto it = std::find(d.begin(), d.end(), from[i]);
    if (it == d.end()) return api_result(cudaErrorInvalidValue);
    d.erase(it);
  }
  return api_result(cudaSuccess);
}

namespace {
cudaError_t list_nodes(const std::vector<CUgraphNode_st*>& list, cudaGraphNode_t* out,
                       cudaGraphEdgeData* edges, size_t* count) {
  if (!count) return cudaErrorInvalidValue;
  if (out) {
    const size_t n = std::min(*count, list.size());
    for (size_t i = 0; i < n; ++i) {
      out[i] = list[i];
      if (edges) edges[i] = cudaGraphEdgeData{};
    }
    for (size_t i = n; i < *count; ++i) out[i] = nullptr;
  }
  *count = list.size();
  return cudaSuccess;
}
}  // namespace

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count) {
  std::lock_guard lock(g_graphs_mutex);
  if (!known(g_graphs, static_cast<const CUgraph_st*>(graph)))
    return api_result(cudaErrorInvalidValue);
  std::vector<CUgraphNode_st*> list;
  for (const auto& n : graph->nodes) list.push_back(n.get());
  return api_result(list_nodes(list, nodes, nullptr, count));
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count) {
  std::lock_guard lock(g_graphs_mutex);
  if (!known(g_graphs, static_cast<const CUgraph_st*>(graph)))
    return api_result(cudaErrorInvalidValue);
  std::vector<CUgraphNode_st*> list;
  for (const auto& n : graph->nodes)
    if (n->deps.empty()) list.push_back(n.get());
  return api_result(list_nodes(list, nodes, nullptr, count));
}

cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to,
                              cudaGraphEdgeData* edge_data, size_t* count) {
  std::lock_guard lock(g_graphs_mutex);
  if (!count || !known(g_graphs, static_cast<const CUgraph_st*>(graph)) || (!from != !to))
    return api_result(cudaErrorInvalidValue);
  size_t total = 0;
  for (const auto& n : graph->nodes)
    for (CUgraphNode_st* d : n->deps) {
      if (from && total < *count) {
        from[total] = d;
        to[total] = n.get();
        if (edge_data) edge_data[total] = cudaGraphEdgeData{};
      }
      ++total;
    }
  *count = total;
  return api_result(cudaSuccess);
}

cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* deps,
                                         cudaGraphEdgeData* edge_data, size_t* count) {
  std::lock_guard lock(g_graphs_mutex);
  if (!known(g_nodes, static_cast<const CUgraphNode_st*>(node)))
    return api_result(cudaErrorInvalidValue);
  return api_result(list_nodes(node->deps, deps, edge_data, count));
}

cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t* dependents,
                                           cudaGraphEdgeData* edge_data, size_t* count) {
  std::lock_guard lock(g_graphs_mutex);
  if (!known(g_nodes, static_cast<const CUgraphNode_st*>(node)))
    return api_result(cudaErrorInvalidValue);
  std::vector<CUgraphNode_st*> list;
  for (const auto& n : node->graph->nodes)
    if (std::find(n->deps.begin(), n->deps.end(), node) != n->deps.end()) list.push_back(n.get());
  return api_result(list_nodes(list, dependents, edge_data, count));
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType* type) {
  std::lock_guard lock(g_graphs_mutex);
  if (!type || !known(g_nodes, static_cast<const CUgraphNode_st*>(node)))
    return api_result(cudaErrorInvalidValue);
  *type = node->type;
  return api_result(cudaSuccess);
}

// ---- conditional handles -------------------------------------------------------------------
cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle* handle, cudaGraph_t graph,
                                             unsigned int default_value, unsigned int flags) {
  std::lock_guard lock(g_graphs_mutex);
  if (!handle || !known(g_graphs, static_cast<const CUgraph_st*>(graph)) ||
      flags > cudaGraphCondAssignDefault)
    return api_result(cudaErrorInvalidValue);
  std::lock_guard condition_lock(g_condition_mutex);
  const cudaGraphConditionalHandle h = g_next_handle++;
  auto c = std::make_unique<Condition>();
  c->default_value = default_value;
  c->flags = flags;
  c->value = default_value;
  g_conditions[h] = std::move(c);
  graph->handles.push_back(h);
  *handle = h;
  return api_result(cudaSuccess);
}

void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value) {
  std::lock_guard lock(g_condition_mutex);
  auto it = g_conditions.find(handle);
  if (it != g_conditions.end()) it->second->value = value;
}

// ---- executable graphs ---------------------------------------------------------------------
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                 unsigned long long flags) {
  std::lock_guard lock(g_graphs_mutex);
  if (!exec || !known(g_graphs, static_cast<const CUgraph_st*>(graph)))
    return api_result(cudaErrorInvalidValue);
  if (!cycle_free(*graph)) return api_result(cudaErrorInvalidValue);
  auto* e = new CUgraphExec_st;
  e->graph = clone_graph(*graph, false);
  e->flags = flags;
  g_execs.insert(e);
  *exec = e;
  return api_result(cudaSuccess);
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph,
                                          unsigned long long flags) {
  return cudaGraphInstantiate(exec, graph, flags);
}

cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t* exec, cudaGraph_t graph,
                                           cudaGraphInstantiateParams* params) {
  if (!params) return api_result(cudaErrorInvalidValue);
  const cudaError_t e = cudaGraphInstantiate(exec, graph, params->flags);
  params->errNode_out = nullptr;
  params->result_out = e == cudaSuccess ? cudaGraphInstantiateSuccess : cudaGraphInstantiateError;
  return e;
}

cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t exec, unsigned long long* flags) {
  std::lock_guard lock(g_graphs_mutex);
  if (!flags || !known(g_execs, static_cast<const CUgraphExec_st*>(exec)))
    return api_result(cudaErrorInvalidValue);
  *flags = exec->flags;
  return api_result(cudaSuccess);
}

cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(known(g_execs, static_cast<const CUgraphExec_st*>(exec))
                        ? cudaSuccess
                        : cudaErrorInvalidValue);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  {
    std::lock_guard lock(g_graphs_mutex);
    if (!known(g_execs, static_cast<const CUgraphExec_st*>(exec)))
      return api_result(cudaErrorInvalidValue);
    if (capturing(stream)) {
      // Launched into a capture: the graph becomes a child graph node.
      CUgraphNode_st* n = nullptr;
      if (const cudaError_t e = capture_node(stream, cudaGraphNodeTypeGraph, &n); e != cudaSuccess)
        return api_result(e);
      n->child = clone_graph(*exec->graph, true);
      return api_result(cudaSuccess);
    }
  }
  if (cudalab::rt::sticky_error() != cudaSuccess) return api_result(cudaSuccess);
  if (const cudaError_t e = cudalab::rt::capture_refuses_legacy(stream); e != cudaSuccess)
    return api_result(e);
  return api_result(run_graph(*exec->graph, stream));
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  std::lock_guard lock(g_graphs_mutex);
  if (!known(g_execs, static_cast<const CUgraphExec_st*>(exec)))
    return api_result(cudaErrorInvalidValue);
  g_execs.erase(exec);
  delete exec;
  return api_result(cudaSuccess);
}

namespace {
// The node of `exec` made from `node` (of the graph it was made from, or
// updated from); nullptr when none.
CUgraphNode_st* exec_node(cudaGraphExec_t exec, cudaGraphNode_t node) {
  if (!known(g_execs, static_cast<const CUgraphExec_st*>(exec)) ||
      !known(g_nodes, static_cast<const CUgraphNode_st*>(node)))
    return nullptr;
  for (auto& n : exec->graph->nodes)
    if (n->origin == node->id) return n.get();
  return nullptr;
}

// Same nodes (by type) and edges, in the order they were added.
cudaGraphExecUpdateResult compare(const CUgraph_st& a, const CUgraph_st& b) {
  if (a.nodes.size() != b.nodes.size()) return cudaGraphExecUpdateErrorTopologyChanged;
  std::map<const CUgraphNode_st*, size_t> ia, ib;
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    ia[a.nodes[i].get()] = i;
    ib[b.nodes[i].get()] = i;
  }
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const CUgraphNode_st& x = *a.nodes[i];
    const CUgraphNode_st& y = *b.nodes[i];
    if (x.deps.size() != y.deps.size()) return cudaGraphExecUpdateErrorTopologyChanged;
    std::vector<size_t> dx, dy;
    for (const CUgraphNode_st* d : x.deps) dx.push_back(ia[d]);
    for (const CUgraphNode_st* d : y.deps) dy.push_back(ib[d]);
    std::sort(dx.begin(), dx.end());
    std::sort(dy.begin(), dy.end());
    if (dx != dy) return cudaGraphExecUpdateErrorTopologyChanged;
  }
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const CUgraphNode_st& x = *a.nodes[i];
    const CUgraphNode_st& y = *b.nodes[i];
    if (x.type != y.type) return cudaGraphExecUpdateErrorNodeTypeChanged;
    if (x.type == cudaGraphNodeTypeMemAlloc || x.type == cudaGraphNodeTypeMemFree)
      if (x.buffer != y.buffer || x.free_ptr != y.free_ptr)
        return cudaGraphExecUpdateErrorNotSupported;
    if (x.type == cudaGraphNodeTypeGraph) {
      const cudaGraphExecUpdateResult r = compare(*x.child, *y.child);
      if (r != cudaGraphExecUpdateSuccess) return r;
    }
    if (x.type == cudaGraphNodeTypeConditional) {
      if (x.bodies.size() != y.bodies.size() || x.cond_type != y.cond_type)
        return cudaGraphExecUpdateErrorParametersChanged;
      for (size_t k = 0; k < x.bodies.size(); ++k) {
        const cudaGraphExecUpdateResult r = compare(*x.bodies[k], *y.bodies[k]);
        if (r != cudaGraphExecUpdateSuccess) return r;
      }
    }
  }
  return cudaGraphExecUpdateSuccess;
}
}  // namespace

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                cudaGraphExecUpdateResultInfo* info) {
  std::lock_guard lock(g_graphs_mutex);
  if (!info || !known(g_execs, static_cast<const CUgraphExec_st*>(exec)) ||
      !known(g_graphs, static_cast<const CUgraph_st*>(graph)))
    return api_result(cudaErrorInvalidValue);
  *info = {cudaGraphExecUpdateSuccess, nullptr, nullptr};
  const cudaGraphExecUpdateResult r = compare(*exec->graph, *graph);
  if (r != cudaGraphExecUpdateSuccess) {
    info->result = r;
    return api_result(cudaErrorGraphExecUpdateFailure);
  }
  for (size_t i = 0; i < graph->nodes.size(); ++i) {
    CUgraphNode_st& to = *exec->graph->nodes[i];
    auto deps = to.deps;
    copy_node(to, *graph->nodes[i], false);
    to.deps = deps;
  }
  return api_result(cudaSuccess);
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaKernelNodeParams* params) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(set_params(exec_node(exec, node), cudaGraphNodeTypeKernel, params, set_kernel));
}

cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaMemcpy3DParms* params) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(set_params(exec_node(exec, node), cudaGraphNodeTypeMemcpy, params, set_copy));
}

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t exec, cudaGraphNode_t node,
                                               void* dst, const void* src, size_t bytes,
                                               cudaMemcpyKind kind) {
  const cudaMemcpy3DParms p = copy_1d(dst, src, bytes, kind);
  return cudaGraphExecMemcpyNodeSetParams(exec, node, &p);
}

cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaMemsetParams* params) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(set_params(exec_node(exec, node), cudaGraphNodeTypeMemset, params, set_memset));
}

cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                           const cudaHostNodeParams* params) {
  std::lock_guard lock(g_graphs_mutex);
  return api_result(set_params(exec_node(exec, node), cudaGraphNodeTypeHost, params, set_host));
}

cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                 cudaGraph_t child) {
  std::lock_guard lock(g_graphs_mutex);
  CUgraphNode_st* n = exec_node(exec, node);
  if (!n || n->type != cudaGraphNodeTypeGraph ||
      !known(g_graphs, static_cast<const CUgraph_st*>(child)))
    return api_result(cudaErrorInvalidValue);
  if (compare(*n->child, *child) != cudaGraphExecUpdateSuccess)
    return api_result(cudaErrorInvalidValue);
  n->child = clone_graph(*child, false);
  return api_result(cudaSuccess);
}

cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                       cudaGraphNodeParams* params) {
  if (!params) return api_result(cudaErrorInvalidValue);
  std::lock_guard lock(g_graphs_mutex);
  return api_result(set_node_params(exec_node(exec, node), *params));
}

cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node,
                                    unsigned int enabled) {
  std::lock_guard lock(g_graphs_mutex);
  CUgraphNode_st* n = exec_node(exec, node);
  if (!n) return api_result(cudaErrorInvalidValue);
  n->enabled = enabled != 0;
  return api_result(cudaSuccess);
}

cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node,
                                    unsigned int* enabled) {
  std::lock_guard lock(g_graphs_mutex);
  CUgraphNode_st* n = exec_node(exec, node);
  if (!n || !enabled) return api_result(cudaErrorInvalidValue);
  *enabled = n->enabled ? 1 : 0;
  return api_result(cudaSuccess);
}

// ---- graph memory --------------------------------------------------------------------------
cudaError_t cudaDeviceGetGraphMemAttribute(int device, cudaGraphMemAttributeType attr,
                                           void* value) {
  if (device != 0) return api_result(cudaErrorInvalidDevice);
  if (!value) return api_result(cudaErrorInvalidValue);
  std::lock_guard lock(g_graphs_mutex);
  unsigned long long v = 0;
  switch (attr) {
    case cudaGraphMemAttrUsedMemCurrent:
    case cudaGraphMemAttrReservedMemCurrent:
      v = g_graph_reserved;
      break;
    case cudaGraphMemAttrUsedMemHigh:
      v = g_graph_used_high;
      break;
    case cudaGraphMemAttrReservedMemHigh:
      v = g_graph_reserved_high;
      break;
    default:
      return api_result(cudaErrorInvalidValue);
  }
  *static_cast<unsigned long long*>(value) = v;
  return api_result(cudaSuccess);
}

cudaError_t cudaDeviceSetGraphMemAttribute(int device, cudaGraphMemAttributeType attr,
                                           void* value) {
  if (device != 0) return api_result(cudaErrorInvalidDevice);
  if (!value) return api_result(cudaErrorInvalidValue);
  std::lock_guard lock(g_graphs_mutex);
  // Only the high-water marks may be set, and only to zero (a reset).
  if (*static_cast<unsigned long long*>(value) != 0) return api_result(cudaErrorInvalidValue);
  if (attr == cudaGraphMemAttrUsedMemHigh)
    g_graph_used_high = g_graph_reserved;
  else if (attr == cudaGraphMemAttrReservedMemHigh)
    g_graph_reserved_high = g_graph_reserved;
  else
    return api_result(cudaErrorInvalidValue);
  return api_result(cudaSuccess);
}

cudaError_t cudaDeviceGraphMemTrim(int device) {
  if (device != 0) return api_result(cudaErrorInvalidDevice);
  std::lock_guard lock(g_graphs_mutex);
  g_graph_reserved = g_graph_live;
  return api_result(cudaSuccess);
}

// ---- user objects ----------------------------------------------------------------------------
namespace {
std::set<const CUuserObject_st*> g_user_objects;
void release(cudaUserObject_t o, unsigned count) {
  if ((o->count -= int(count)) <= 0) {
    if (o->destroy) o->destroy(o->ptr);
    g_user_objects.erase(o);
    delete o;
  }
}
}  // namespace

cudaError_t cudaUserObjectCreate(cudaUserObject_t* object, void* ptr, cudaHostFn_t destroy,
                                 unsigned int initial_refcount, unsigned int flags) {
  if (!object || !destroy || initial_refcount == 0 || flags != cudaUserObjectNoDestructorSync)
    return api_result(cudaErrorInvalidValue);
  std::lock_guard lock(g_graphs_mutex);
  auto* o = new CUuserObject_st;
  o->ptr = ptr;
  o->destroy = destroy;
  o->count = int(initial_refcount);
  g_user_objects.insert(o);
  *object = o;
  return api_result(cudaSuccess);
}

cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned int count) {
  std::lock_guard lock(g_graphs_mutex);
  if (!known(g_user_objects, static_cast<const CUuserObject_st*>(object)) || count == 0)
    return api_result(cudaErrorInvalidValue);
  object->count += int(count);
  return api_result(cudaSuccess);
}

cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count) {
  std::lock_guard lock(g_graphs_mutex);
  if (!known(g_user_objects, static_cast<const CUuserObject_st*>(object)) || count == 0)
    return api_result(cudaErrorInvalidValue);
  release(object, count);
  return api_result(cudaSuccess);
}

// A graph's references are kept until the program ends: a graph's copies
// (clones, executable graphs) would share them on a GPU.
cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object,
                                      unsigned int count, unsigned int flags) {
  std::lock_guard lock(g_graphs_mutex);
  if (!known(g_graphs, static_cast<const CUgraph_st*>(graph)) ||
      !known(g_user_objects, static_cast<const CUuserObject_st*>(object)) || count == 0)
    return api_result(cudaErrorInvalidValue);
  if (!(flags & cudaGraphUserObjectMove)) object->count += int(count);
  return api_result(cudaSuccess);
}

cudaError_t cudaGraphReleaseUserObject(cudaGraph_t graph, cudaUserObject_t object,
                                       unsigned int count) {
  std::lock_guard lock(g_graphs_mutex);
  if (!known(g_graphs, static_cast<const CUgraph_st*>(graph)) ||
      !known(g_user_objects, static_cast<const CUuserObject_st*>(object)) || count == 0)
    return api_result(cudaErrorInvalidValue);
  release(object, count);
  return api_result(cudaSuccess);
}
