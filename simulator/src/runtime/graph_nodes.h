// What graphs.cpp and stream_capture.cpp share: a graph and its nodes, the
// lock that guards every graph, node and capture, and the steps both take
// to add a node (graphs.cpp defines them). Not a public header.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cudalab/graphs.h"
#include "cudalab/kernel_language.h"

namespace cudalab::rt {
// Graph memory: each allocation node has an address of its own for the
// graph's life; the memory behind it counts while the allocation lives.
struct GraphBuffer {
  void* block = nullptr;
  void* ptr = nullptr;
  size_t size = 0;
  bool live = false;
  bool orphan = false;  // its node is gone: unmap once freed
  std::string site;
};
}  // namespace cudalab::rt

struct CUgraphNode_st {
  CUgraph_st* graph = nullptr;
  cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
  uint64_t id = 0;      // unique
  uint64_t origin = 0;  // the node this one was copied from (executable graphs, clones)
  std::vector<CUgraphNode_st*> deps;
  // kernel
  cudaKernelNodeParams kernel{};
  std::shared_ptr<cudalab::detail::KernelCall> call;
  cudalab::detail::LaunchSite site{"kernel", "(a graph's kernel node)", 0};
  unsigned launch_flags = 0;
  // memcpy, memset, host, event
  cudaMemcpy3DParms copy{};
  cudaMemsetParams memset{};
  cudaHostNodeParams host{};
  cudaEvent_t event = nullptr;
  // child graph, conditional bodies
  std::unique_ptr<CUgraph_st> child;
  std::vector<std::unique_ptr<CUgraph_st>> bodies;
  std::vector<cudaGraph_t> body_handles;
  cudaGraphConditionalHandle handle = 0;
  cudaGraphConditionalNodeType cond_type = cudaGraphCondTypeIf;
  // memory nodes
  std::shared_ptr<cudalab::rt::GraphBuffer> buffer;
  cudaMemAllocNodeParams alloc{};
  void* free_ptr = nullptr;
  bool enabled = true;
  ~CUgraphNode_st();
};

struct CUgraph_st {
  std::vector<std::unique_ptr<CUgraphNode_st>> nodes;
  std::vector<cudaGraphConditionalHandle> handles;
  bool registered = false;
  ~CUgraph_st();
};

namespace cudalab::rt {

// Guards every graph, node, executable graph and stream capture.
extern std::recursive_mutex g_graphs_mutex;
// Whether `g` is a graph made by cudaGraphCreate or a capture (not freed).
bool is_graph(const CUgraph_st* g);
void register_graph(CUgraph_st* g);
// A new node of `type` in `g`, with no dependencies yet.
CUgraphNode_st* new_node(CUgraph_st* g, cudaGraphNodeType type);
// Checks a node's dependencies: all of `g`, none twice.
cudaError_t check_dependencies(CUgraph_st* g, const cudaGraphNode_t* deps, size_t count);
cudaError_t check_memset(const cudaMemsetParams& p);
cudaError_t check_copy(const cudaMemcpy3DParms& p);
// Makes an allocation node's buffer (its address is the graph's for life).
cudaError_t add_alloc(CUgraphNode_st& n, cudaMemAllocNodeParams& p, std::string site);

// stream_capture.cpp, with g_graphs_mutex held: whether `stream` is
// capturing, and a node recorded into its capture after its last work.
bool capturing(cudaStream_t stream);
cudaError_t capture_node(cudaStream_t stream, cudaGraphNodeType type, CUgraphNode_st** node);

}  // namespace cudalab::rt
