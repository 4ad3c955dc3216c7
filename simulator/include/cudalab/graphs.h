// CUDA graphs and stream-ordered allocation as CUDA's runtime API has them:
// graphs, their nodes and edges, stream capture, executable graphs,
// conditional nodes, graph memory nodes, memory pools and
// cudaMallocAsync/cudaFreeAsync. Names, values and signatures follow CUDA
// 13's headers so programs compile unchanged; the behaviour lives in
// simulator/src/runtime/graphs.cpp and simulator/src/runtime/stream_ordered.cpp.
#pragma once

#include <cstddef>

#include "cudalab/driver_types.h"

struct CUgraph_st;
struct CUgraphNode_st;
struct CUgraphExec_st;
struct CUmemPoolHandle_st;
struct CUuserObject_st;
using cudaGraph_t = CUgraph_st*;
using cudaGraphNode_t = CUgraphNode_st*;
using cudaGraphExec_t = CUgraphExec_st*;
using cudaMemPool_t = CUmemPoolHandle_st*;
using cudaUserObject_t = CUuserObject_st*;
using cudaGraphConditionalHandle = unsigned long long;

namespace cudalab::detail {
// cudaMallocAsync and cudaMallocFromPoolAsync (pool null: the device's
// current pool); simulator/src/runtime/stream_ordered.cpp.
cudaError_t malloc_async(void** ptr, size_t bytes, cudaMemPool_t pool, cudaStream_t stream,
                         const char* file, int line);
}  // namespace cudalab::detail

// ---- memory pools ------------------------------------------------------------------------
enum cudaMemAllocationType {
  cudaMemAllocationTypeInvalid = 0x0,
  cudaMemAllocationTypePinned = 0x1,
  cudaMemAllocationTypeMax = 0x7FFFFFFF,
};
enum cudaMemAllocationHandleType {
  cudaMemHandleTypeNone = 0x0,
  cudaMemHandleTypePosixFileDescriptor = 0x1,
  cudaMemHandleTypeWin32 = 0x2,
  cudaMemHandleTypeWin32Kmt = 0x4,
  cudaMemHandleTypeFabric = 0x8,
};
enum cudaMemAccessFlags {
  cudaMemAccessFlagsProtNone = 0,
  cudaMemAccessFlagsProtRead = 1,
  cudaMemAccessFlagsProtReadWrite = 3,
};
struct cudaMemAccessDesc {
  cudaMemLocation location;
  cudaMemAccessFlags flags;
};
struct cudaMemPoolProps {
  cudaMemAllocationType allocType;
  cudaMemAllocationHandleType handleTypes;
  cudaMemLocation location;
  void* win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
};
enum cudaMemPoolAttr {
  cudaMemPoolReuseFollowEventDependencies = 0x1,
  cudaMemPoolReuseAllowOpportunistic = 0x2,
  cudaMemPoolReuseAllowInternalDependencies = 0x3,
  cudaMemPoolAttrReleaseThreshold = 0x4,
  cudaMemPoolAttrReservedMemCurrent = 0x5,
  cudaMemPoolAttrReservedMemHigh = 0x6,
  cudaMemPoolAttrUsedMemCurrent = 0x7,
  cudaMemPoolAttrUsedMemHigh = 0x8,
};

// The allocation is named after the call's line in checks and traces, as
// cudaMalloc's are.
inline cudaError_t cudaMallocAsync(void** ptr, size_t bytes, cudaStream_t stream,
                                   const char* file = __builtin_FILE(),
                                   int line = __builtin_LINE()) {
  return cudalab::detail::malloc_async(ptr, bytes, nullptr, stream, file, line);
}
template <class T>
cudaError_t cudaMallocAsync(T** ptr, size_t bytes, cudaStream_t stream,
                            const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return cudalab::detail::malloc_async(reinterpret_cast<void**>(ptr), bytes, nullptr, stream, file,
                                       line);
}
inline cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t bytes, cudaMemPool_t pool,
                                           cudaStream_t stream, const char* file = __builtin_FILE(),
                                           int line = __builtin_LINE()) {
  if (!pool) return cudaErrorInvalidValue;
  return cudalab::detail::malloc_async(ptr, bytes, pool, stream, file, line);
}
template <class T>
cudaError_t cudaMallocFromPoolAsync(T** ptr, size_t bytes, cudaMemPool_t pool, cudaStream_t stream,
                                    const char* file = __builtin_FILE(),
                                    int line = __builtin_LINE()) {
  return cudaMallocFromPoolAsync(reinterpret_cast<void**>(ptr), bytes, pool, stream, file, line);
}
template <class T>
cudaError_t cudaMallocAsync(T** ptr, size_t bytes, cudaMemPool_t pool, cudaStream_t stream,
                            const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return cudaMallocFromPoolAsync(reinterpret_cast<void**>(ptr), bytes, pool, stream, file, line);
}
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream);
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device);
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device);
cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool);
cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const cudaMemPoolProps* props);
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value);
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value);
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t min_bytes_to_keep);
cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const cudaMemAccessDesc* descs, size_t count);
cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags* flags, cudaMemPool_t pool,
                                 cudaMemLocation* location);

// ---- graphs: types -----------------------------------------------------------------------
enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2,
};
enum cudaStreamCaptureStatus {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2,
};
enum cudaStreamUpdateCaptureDependenciesFlags {
  cudaStreamAddCaptureDependencies = 0x0,
  cudaStreamSetCaptureDependencies = 0x1,
};
enum cudaGraphNodeType {
  cudaGraphNodeTypeKernel = 0x00,
  cudaGraphNodeTypeMemcpy = 0x01,
  cudaGraphNodeTypeMemset = 0x02,
  cudaGraphNodeTypeHost = 0x03,
  cudaGraphNodeTypeGraph = 0x04,
  cudaGraphNodeTypeEmpty = 0x05,
  cudaGraphNodeTypeWaitEvent = 0x06,
  cudaGraphNodeTypeEventRecord = 0x07,
  cudaGraphNodeTypeExtSemaphoreSignal = 0x08,
  cudaGraphNodeTypeExtSemaphoreWait = 0x09,
  cudaGraphNodeTypeMemAlloc = 0x0a,
  cudaGraphNodeTypeMemFree = 0x0b,
  cudaGraphNodeTypeConditional = 0x0d,
  cudaGraphNodeTypeCount,
};
enum cudaGraphConditionalNodeType {
  cudaGraphCondTypeIf = 0,
  cudaGraphCondTypeWhile = 1,
  cudaGraphCondTypeSwitch = 2,
};
enum cudaGraphConditionalHandleFlags { cudaGraphCondAssignDefault = 1 };
enum cudaGraphExecUpdateResult {
  cudaGraphExecUpdateSuccess = 0x0,
  cudaGraphExecUpdateError = 0x1,
  cudaGraphExecUpdateErrorTopologyChanged = 0x2,
  cudaGraphExecUpdateErrorNodeTypeChanged = 0x3,
  cudaGraphExecUpdateErrorFunctionChanged = 0x4,
  cudaGraphExecUpdateErrorParametersChanged = 0x5,
  cudaGraphExecUpdateErrorNotSupported = 0x6,
  cudaGraphExecUpdateErrorUnsupportedFunctionChange = 0x7,
  cudaGraphExecUpdateErrorAttributesChanged = 0x8,
};
struct cudaGraphExecUpdateResultInfo {
  cudaGraphExecUpdateResult result;
  cudaGraphNode_t errorNode;
  cudaGraphNode_t errorFromNode;
};
enum cudaGraphInstantiateFlags {
  cudaGraphInstantiateFlagAutoFreeOnLaunch = 1,
  cudaGraphInstantiateFlagUpload = 2,
  cudaGraphInstantiateFlagDeviceLaunch = 4,
  cudaGraphInstantiateFlagUseNodePriority = 8,
};
enum cudaGraphInstantiateResult {
  cudaGraphInstantiateSuccess = 0,
  cudaGraphInstantiateError = 1,
  cudaGraphInstantiateInvalidStructure = 2,
  cudaGraphInstantiateNodeOperationNotSupported = 3,
  cudaGraphInstantiateMultipleDevicesNotSupported = 4,
  cudaGraphInstantiateConditionalHandleUnused = 5,
};
struct cudaGraphInstantiateParams {
  unsigned long long flags;
  cudaStream_t uploadStream;
  cudaGraphNode_t errNode_out;
  cudaGraphInstantiateResult result_out;
};
enum cudaGraphMemAttributeType {
  cudaGraphMemAttrUsedMemCurrent = 0x0,
  cudaGraphMemAttrUsedMemHigh = 0x1,
  cudaGraphMemAttrReservedMemCurrent = 0x2,
  cudaGraphMemAttrReservedMemHigh = 0x3,
};
enum cudaGraphDependencyType {
  cudaGraphDependencyTypeDefault = 0,
  cudaGraphDependencyTypeProgrammatic = 1,
};
struct cudaGraphEdgeData {
  unsigned char from_port;
  unsigned char to_port;
  unsigned char type;
  unsigned char reserved[5];
};
#define cudaEventRecordDefault 0x00
#define cudaEventRecordExternal 0x01
#define cudaEventWaitDefault 0x00
#define cudaEventWaitExternal 0x01
#define cudaGraphKernelNodePortDefault 0
#define cudaGraphKernelNodePortProgrammatic 1
#define cudaGraphKernelNodePortLaunchCompletion 2
enum cudaUserObjectFlags { cudaUserObjectNoDestructorSync = 0x1 };
enum cudaUserObjectRetainFlags { cudaGraphUserObjectMove = 0x1 };

struct cudaKernelNodeParams {
  void* func;
  dim3 gridDim;
  dim3 blockDim;
  unsigned int sharedMemBytes;
  void** kernelParams;
  void** extra;
};
struct cudaKernelNodeParamsV2 {
  void* func;
  dim3 gridDim;
  dim3 blockDim;
  unsigned int sharedMemBytes;
  void** kernelParams;
  void** extra;
};
struct cudaMemsetParams {
  void* dst;
  size_t pitch;
  unsigned int value;
  unsigned int elementSize;
  size_t width;
  size_t height;
};
struct cudaMemsetParamsV2 {
  void* dst;
  size_t pitch;
  unsigned int value;
  unsigned int elementSize;
  size_t width;
  size_t height;
};
struct cudaHostNodeParams {
  cudaHostFn_t fn;
  void* userData;
};
struct cudaHostNodeParamsV2 {
  cudaHostFn_t fn;
  void* userData;
};
struct cudaMemcpyNodeParams {
  int flags;
  int reserved[3];
  cudaMemcpy3DParms copyParams;
};
struct cudaChildGraphNodeParams {
  cudaGraph_t graph;
};
struct cudaEventRecordNodeParams {
  cudaEvent_t event;
};
struct cudaEventWaitNodeParams {
  cudaEvent_t event;
};
struct cudaMemAllocNodeParams {
  cudaMemPoolProps poolProps;
  const cudaMemAccessDesc* accessDescs;
  size_t accessDescCount;
  size_t bytesize;
  void* dptr;
};
struct cudaMemAllocNodeParamsV2 {
  cudaMemPoolProps poolProps;
  const cudaMemAccessDesc* accessDescs;
  size_t accessDescCount;
  size_t bytesize;
  void* dptr;
};
struct cudaMemFreeNodeParams {
  void* dptr;
};
struct cudaConditionalNodeParams {
  cudaGraphConditionalHandle handle;
  cudaGraphConditionalNodeType type;
  unsigned int size;
  cudaGraph_t* phGraph_out;
};
// One node's type and parameters, for cudaGraphAddNode (a kernel's
// parameters are copied when the node is added).
struct cudaGraphNodeParams {
  cudaGraphNodeType type;
  int reserved0[3];
  union {
    long long reserved1[29];
    cudaKernelNodeParamsV2 kernel;
    cudaMemcpyNodeParams memcpy;
    cudaMemsetParamsV2 memset;
    cudaHostNodeParamsV2 host;
    cudaChildGraphNodeParams graph;
    cudaEventWaitNodeParams eventWait;
    cudaEventRecordNodeParams eventRecord;
    cudaMemAllocNodeParamsV2 alloc;
    cudaMemFreeNodeParams free;
    cudaConditionalNodeParams conditional;
  };
  long long reserved2;
};

// ---- graphs: building --------------------------------------------------------------------
cudaError_t cudaGraphCreate(cudaGraph_t* graph, unsigned int flags);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphClone(cudaGraph_t* clone, cudaGraph_t original);
cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t* node, cudaGraphNode_t original,
                                     cudaGraph_t clone);
cudaError_t cudaGraphAddNode(cudaGraphNode_t* node, cudaGraph_t graph,
                             const cudaGraphNode_t* dependencies,
                             const cudaGraphEdgeData* edge_data, size_t count,
                             cudaGraphNodeParams* params);
cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, cudaGraphNodeParams* params);
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies, size_t count,
                                   const cudaKernelNodeParams* params);
cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams* params);
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const cudaKernelNodeParams* params);
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies, size_t count,
                                   const cudaMemcpy3DParms* params);
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* node, cudaGraph_t graph,
                                     const cudaGraphNode_t* dependencies, size_t count, void* dst,
                                     const void* src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, cudaMemcpy3DParms* params);
cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const cudaMemcpy3DParms* params);
cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void* dst, const void* src,
                                           size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies, size_t count,
                                   const cudaMemsetParams* params);
cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, cudaMemsetParams* params);
cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const cudaMemsetParams* params);
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                 const cudaGraphNode_t* dependencies, size_t count,
                                 const cudaHostNodeParams* params);
cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, cudaHostNodeParams* params);
cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const cudaHostNodeParams* params);
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                  const cudaGraphNode_t* dependencies, size_t count);
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                       const cudaGraphNode_t* dependencies, size_t count,
                                       cudaGraph_t child);
cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t* graph);
cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                        const cudaGraphNode_t* dependencies, size_t count,
                                        cudaEvent_t event);
cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                      const cudaGraphNode_t* dependencies, size_t count,
                                      cudaEvent_t event);
cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event);
cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event);
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                     const cudaGraphNode_t* dependencies, size_t count,
                                     cudaMemAllocNodeParams* params);
cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, cudaMemAllocNodeParams* params);
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                    const cudaGraphNode_t* dependencies, size_t count, void* dptr);
cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void* dptr);
cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node);

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                     const cudaGraphNode_t* to, const cudaGraphEdgeData* edge_data,
                                     size_t count);
cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                        const cudaGraphNode_t* to,
                                        const cudaGraphEdgeData* edge_data, size_t count);
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count);
cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count);
cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to,
                              cudaGraphEdgeData* edge_data, size_t* count);
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* dependencies,
                                         cudaGraphEdgeData* edge_data, size_t* count);
cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t* dependents,
                                           cudaGraphEdgeData* edge_data, size_t* count);
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType* type);
// CUDA 11's forms, which CUDA's headers keep for older programs.
inline cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                            const cudaGraphNode_t* to, size_t count) {
  return cudaGraphAddDependencies(graph, from, to, nullptr, count);
}
inline cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                               const cudaGraphNode_t* to, size_t count) {
  return cudaGraphRemoveDependencies(graph, from, to, nullptr, count);
}
inline cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to,
                                     size_t* count) {
  return cudaGraphGetEdges(graph, from, to, nullptr, count);
}
inline cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* dependencies,
                                                size_t* count) {
  return cudaGraphNodeGetDependencies(node, dependencies, nullptr, count);
}
inline cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t* dependents,
                                                  size_t* count) {
  return cudaGraphNodeGetDependentNodes(node, dependents, nullptr, count);
}

// ---- conditional nodes -------------------------------------------------------------------
cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle* handle, cudaGraph_t graph,
                                             unsigned int default_value = 0,
                                             unsigned int flags = 0);
// Called by a kernel of the graph: the value the conditional node reads.
void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value);

// ---- executable graphs -------------------------------------------------------------------
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                 unsigned long long flags = 0);
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                        cudaGraphNode_t* error_node, char* log, size_t log_size) {
  if (error_node) *error_node = nullptr;
  if (log && log_size) log[0] = '\0';
  return cudaGraphInstantiate(exec, graph, 0ull);
}
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph,
                                          unsigned long long flags = 0);
cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t* exec, cudaGraph_t graph,
                                           cudaGraphInstantiateParams* params);
cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t exec, unsigned long long* flags);
cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                cudaGraphExecUpdateResultInfo* info);
inline cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                       cudaGraphNode_t* error_node,
                                       cudaGraphExecUpdateResult* result) {
  cudaGraphExecUpdateResultInfo info = {cudaGraphExecUpdateSuccess, nullptr, nullptr};
  const cudaError_t e = cudaGraphExecUpdate(exec, graph, &info);
  if (error_node) *error_node = info.errorNode;
  if (result) *result = info.result;
  return e;
}
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaKernelNodeParams* params);
cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaMemcpy3DParms* params);
cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t exec, cudaGraphNode_t node,
                                               void* dst, const void* src, size_t bytes,
                                               cudaMemcpyKind kind);
cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaMemsetParams* params);
cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                           const cudaHostNodeParams* params);
cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                 cudaGraph_t child);
cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                       cudaGraphNodeParams* params);
cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node,
                                    unsigned int enabled);
cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node,
                                    unsigned int* enabled);
cudaError_t cudaDeviceGetGraphMemAttribute(int device, cudaGraphMemAttributeType attr, void* value);
cudaError_t cudaDeviceSetGraphMemAttribute(int device, cudaGraphMemAttributeType attr, void* value);
cudaError_t cudaDeviceGraphMemTrim(int device);

// ---- stream capture ----------------------------------------------------------------------
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode);
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                          const cudaGraphNode_t* dependencies,
                                          const cudaGraphEdgeData* edge_data, size_t count,
                                          cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status);
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                     unsigned long long* id = nullptr, cudaGraph_t* graph = nullptr,
                                     const cudaGraphNode_t** dependencies = nullptr,
                                     const cudaGraphEdgeData** edge_data = nullptr,
                                     size_t* count = nullptr);
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* dependencies,
                                                const cudaGraphEdgeData* edge_data, size_t count,
                                                unsigned int flags = 0);
cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* mode);
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream = nullptr,
                                     unsigned int flags = 0);

// ---- user objects ------------------------------------------------------------------------
cudaError_t cudaUserObjectCreate(cudaUserObject_t* object, void* ptr, cudaHostFn_t destroy,
                                 unsigned int initial_refcount, unsigned int flags);
cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned int count = 1);
cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count = 1);
cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object,
                                      unsigned int count = 1, unsigned int flags = 0);
cudaError_t cudaGraphReleaseUserObject(cudaGraph_t graph, cudaUserObject_t object,
                                       unsigned int count = 1);
