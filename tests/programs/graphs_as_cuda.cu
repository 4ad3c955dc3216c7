// CUDA graphs and stream-ordered allocation as a GPU answers them: what a
// captured stream records, what misuse of capture returns, what
// cudaGraphExecUpdate says of a changed graph, conditional nodes, graph
// memory nodes and memory pools. Every line is the same on every run; an
// H100 (CUDA 13.0) prints what tests/CMakeLists.txt expects, and so must the
// simulator.
#include <cstdio>
#include <cstring>

#include "graph_nodes.h"

__global__ void add_one(int* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

__global__ void times_two(int* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= 2;
}

__global__ void set_condition(cudaGraphConditionalHandle handle, int* counter, int limit) {
  const int c = ++*counter;
  cudaGraphSetConditional(handle, c < limit ? 1 : 0);
}

__global__ void count(int* counter) { ++*counter; }

void host_add(void* data) { *static_cast<int*>(data) += 100; }

static const char* name(cudaError_t e) { return cudaGetErrorName(e); }

static void print_graph(const char* what, cudaGraph_t g) {
  size_t nodes = 0, roots = 0, edges = 0;
  cudaGraphGetNodes(g, nullptr, &nodes);
  cudaGraphGetRootNodes(g, nullptr, &roots);
  cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges);
  cudaGraphNode_t list[16];
  size_t n = 16;
  cudaGraphGetNodes(g, list, &n);
  std::printf("%s: nodes %zu roots %zu edges %zu types", what, nodes, roots, edges);
  for (size_t i = 0; i < n; ++i) {
    cudaGraphNodeType t;
    cudaGraphNodeGetType(list[i], &t);
    std::printf(" %d", int(t));
  }
  std::printf("\n");
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device\n");
    return 77;
  }
  const int n = 256;
  int* d = nullptr;
  cudaMalloc(&d, n * sizeof(int));
  int h[n];
  cudaStream_t s, s2;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);

  // 1. A captured stream: memset, two kernels, a host function, a copy back.
  int host_value = 1;
  cudaGraph_t g = nullptr;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaStreamCaptureStatus status;
  unsigned long long id = 0;
  cudaStreamIsCapturing(s, &status);
  std::printf("capturing %d\n", int(status));
  cudaMemsetAsync(d, 0, n * sizeof(int), s);
  add_one<<<2, 128, 0, s>>>(d, n);
  const cudaGraphNode_t* deps = nullptr;
  size_t ndeps = 0;
  cudaGraph_t capturing = nullptr;
  cudaError_t e = cudaStreamGetCaptureInfo(s, &status, &id, &capturing, &deps, nullptr, &ndeps);
  std::printf("info %s status %d id %d deps %zu\n", name(e), int(status), id != 0, ndeps);
  times_two<<<2, 128, 0, s>>>(d, n);
  cudaLaunchHostFunc(s, host_add, &host_value);
  cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, s);
  e = cudaStreamEndCapture(s, &g);
  std::printf("end %s\n", name(e));
  print_graph("captured", g);
  std::memset(h, 0, sizeof(h));
  std::printf("before launch h[5] %d host %d\n", h[5], host_value);
  cudaGraphExec_t exec = nullptr;
  e = cudaGraphInstantiate(&exec, g, 0);
  std::printf("instantiate %s\n", name(e));
  cudaGraphLaunch(exec, s);
  cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
  std::printf("after two launches h[5] %d host %d\n", h[5], host_value);

  // 2. Misuse of capture.
  e = cudaStreamBeginCapture(nullptr, cudaStreamCaptureModeGlobal);
  std::printf("capture legacy stream %s\n", name(e));
  cudaGetLastError();
  cudaGraph_t none = nullptr;
  e = cudaStreamEndCapture(s, &none);
  std::printf("end without begin %s\n", name(e));
  cudaGetLastError();
  const char* calls[] = {"cudaMalloc", "cudaMemcpy", "cudaDeviceSynchronize",
                         "cudaStreamSynchronize", "cudaStreamQuery", "legacy launch"};
  for (int mode = 0; mode < 3; ++mode) {
    for (int call = 0; call < 6; ++call) {
      cudaStreamBeginCapture(s, cudaStreamCaptureMode(mode));
      add_one<<<1, 32, 0, s>>>(d, n);
      int* extra = nullptr;
      if (call == 0) e = cudaMalloc(&extra, 64);
      if (call == 1) e = cudaMemcpy(h, d, 4, cudaMemcpyDeviceToHost);
      if (call == 2) e = cudaDeviceSynchronize();
      if (call == 3) e = cudaStreamSynchronize(s);
      if (call == 4) e = cudaStreamQuery(s);
      if (call == 5) {
        add_one<<<1, 32>>>(d, n);
        e = cudaGetLastError();
      }
      cudaStreamIsCapturing(s, &status);
      cudaGraph_t bad = nullptr;
      const cudaError_t end = cudaStreamEndCapture(s, &bad);
      std::printf("mode %d %s: %s, then status %d, end %s graph %d\n", mode, calls[call],
                  name(e), int(status), name(end), bad != nullptr);
      if (bad) cudaGraphDestroy(bad);
      if (extra) cudaFree(extra);
      cudaGetLastError();
    }
  }
  e = cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  const cudaError_t twice = cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaGraph_t g2 = nullptr;
  cudaStreamEndCapture(s, &g2);
  std::printf("begin twice %s %s empty graph %d\n", name(e), name(twice), g2 != nullptr);
  if (g2) print_graph("empty", g2);
  cudaGetLastError();

  // 3. Fork and join through events; an unjoined fork; the wrong stream ending.
  cudaEvent_t fork, join;
  cudaEventCreate(&fork);
  cudaEventCreate(&join);
  for (int variant = 0; variant < 4; ++variant) {
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    add_one<<<1, 32, 0, s>>>(d, n);
    cudaEventRecord(fork, s);
    cudaStreamWaitEvent(s2, fork, 0);
    if (variant != 2) times_two<<<1, 32, 0, s2>>>(d, n);
    add_one<<<1, 32, 0, s>>>(d, n);
    if (variant == 0) {
      cudaEventRecord(join, s2);
      cudaStreamWaitEvent(s, join, 0);
    }
    cudaStreamIsCapturing(s2, &status);
    cudaGraph_t fg = nullptr;
    cudaError_t end;
    if (variant == 3) {
      end = cudaStreamEndCapture(s2, &fg);
      std::printf("end on forked stream %s\n", name(end));
      cudaGetLastError();
      end = cudaStreamEndCapture(s, &fg);
    } else {
      end = cudaStreamEndCapture(s, &fg);
    }
    cudaStreamCaptureStatus after;
    cudaStreamIsCapturing(s2, &after);
    std::printf("fork variant %d: s2 status %d, end %s graph %d, s2 after %d\n", variant,
                int(status), name(end), fg != nullptr, int(after));
    if (fg) {
      print_graph("forked", fg);
      cudaGraphDestroy(fg);
    }
    cudaGetLastError();
  }

  // 4. cudaGraphExecUpdate: same shape with new parameters, a changed kernel, another shape.
  cudaGraph_t u1, u2, u3, u4;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  add_one<<<2, 128, 0, s>>>(d, n);
  cudaStreamEndCapture(s, &u1);
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  add_one<<<1, 128, 0, s>>>(d, 128);
  cudaStreamEndCapture(s, &u2);
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  times_two<<<2, 128, 0, s>>>(d, n);
  cudaStreamEndCapture(s, &u3);
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  add_one<<<2, 128, 0, s>>>(d, n);
  add_one<<<2, 128, 0, s>>>(d, n);
  cudaStreamEndCapture(s, &u4);
  cudaGraphExec_t ue;
  cudaGraphInstantiate(&ue, u1, 0);
  cudaGraph_t others[] = {u2, u3, u4};
  for (cudaGraph_t other : others) {
    cudaGraphExecUpdateResultInfo info;
    std::memset(&info, 0, sizeof(info));
    e = cudaGraphExecUpdate(ue, other, &info);
    std::printf("update %s result %d error node %d\n", name(e), int(info.result),
                info.errorNode != nullptr);
    cudaGetLastError();
  }
  cudaMemset(d, 0, n * sizeof(int));
  cudaGraphLaunch(ue, s);
  cudaStreamSynchronize(s);
  cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("updated exec ran: %d %d %d\n", h[0], h[127], h[128]);

  // 5. Explicit nodes, parameters and bad handles.
  cudaGraph_t eg;
  cudaGraphCreate(&eg, 0);
  cudaGraphNode_t k1, k2, empty, host;
  cudaKernelNodeParams kp = {};
  int count_n = n;
  void* args[] = {&d, &count_n};
  kp.func = reinterpret_cast<void*>(add_one);
  kp.gridDim = dim3(2);
  kp.blockDim = dim3(128);
  kp.kernelParams = args;
  e = cudaGraphAddKernelNode(&k1, eg, nullptr, 0, &kp);
  std::printf("add kernel %s\n", name(e));
  count_n = 0;  // copied when the node was added
  kp.func = reinterpret_cast<void*>(times_two);
  cudaGraphAddKernelNode(&k2, eg, &k1, 1, &kp);
  cudaGraphAddEmptyNode(&empty, eg, &k2, 1);
  cudaHostNodeParams hp = {host_add, &host_value};
  cudaGraphAddHostNode(&host, eg, &empty, 1, &hp);
  cudaKernelNodeParams got = {};
  cudaGraphKernelNodeGetParams(k1, &got);
  std::printf("get params func %d grid %u args %d %d\n",
              got.func == reinterpret_cast<void*>(add_one), got.gridDim.x,
              *static_cast<int**>(got.kernelParams[0]) == d, *static_cast<int*>(got.kernelParams[1]));
  print_graph("explicit", eg);
  kp.func = nullptr;
  cudaGraphNode_t bad_node;
  e = cudaGraphAddKernelNode(&bad_node, eg, nullptr, 0, &kp);
  std::printf("null kernel %s\n", name(e));
  cudaGetLastError();
  e = cudaGraphAddEmptyNode(&bad_node, eg, &k1, 0);
  std::printf("deps with count 0 %s\n", name(e));
  cudaGetLastError();
  cudaGraph_t other_graph;
  cudaGraphCreate(&other_graph, 0);
  e = cudaGraphAddEmptyNode(&bad_node, other_graph, &k1, 1);
  std::printf("dependency of another graph %s\n", name(e));
  cudaGetLastError();
  e = cudaGraphAddDependencies(eg, &k1, &k2, nullptr, 1);
  std::printf("duplicate edge %s\n", name(e));
  cudaGetLastError();
  e = cudaGraphAddDependencies(eg, &host, &k1, nullptr, 1);
  cudaGraphExec_t cyc = nullptr;
  const cudaError_t cyc_inst = cudaGraphInstantiate(&cyc, eg, 0);
  std::printf("cycle edge %s instantiate %s\n", name(e), name(cyc_inst));
  cudaGetLastError();
  if (e == cudaSuccess) cudaGraphRemoveDependencies(eg, &host, &k1, nullptr, 1);
  e = cudaGraphCreate(nullptr, 0);
  std::printf("create null %s\n", name(e));
  cudaGetLastError();
  e = cudaGraphLaunch(nullptr, s);
  std::printf("launch null %s\n", name(e));
  cudaGetLastError();
  e = cudaGraphInstantiate(&cyc, nullptr, 0);
  std::printf("instantiate null %s\n", name(e));
  cudaGetLastError();
  cudaGraphExec_t ee;
  cudaGraphInstantiate(&ee, eg, 0);
  cudaMemset(d, 0, n * sizeof(int));
  host_value = 0;
  cudaGraphLaunch(ee, s);
  cudaStreamSynchronize(s);
  cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("explicit ran: %d %d host %d\n", h[0], h[255], host_value);
  kp.func = reinterpret_cast<void*>(add_one);
  kp.gridDim = dim3(1);
  e = cudaGraphExecKernelNodeSetParams(ee, k2, &kp);
  cudaGraphLaunch(ee, s);
  cudaStreamSynchronize(s);
  cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("exec set params %s: %d %d\n", name(e), h[0], h[255]);
  cudaGetLastError();

  // 6. Conditional nodes: a while loop counting to 5, an if without a default.
  int* counter;
  cudaMalloc(&counter, sizeof(int));
  cudaMemset(counter, 0, sizeof(int));
  cudaGraph_t cg;
  cudaGraphCreate(&cg, 0);
  cudaGraphConditionalHandle handle;
  e = cudaGraphConditionalHandleCreate(&handle, cg, 1, cudaGraphCondAssignDefault);
  cudaGraphNodeParams cp = conditional_node(handle, cudaGraphCondTypeWhile, 1);
  cudaGraphNode_t cond;
  const cudaError_t add_cond = cudaGraphAddNode(&cond, cg, nullptr, nullptr, 0, &cp);
  cudaGraph_t body = cp.conditional.phGraph_out[0];
  int limit = 5;
  void* cargs[] = {&handle, &counter, &limit};
  cudaGraphNodeParams bp =
      kernel_node(reinterpret_cast<void*>(set_condition), dim3(1), dim3(1), cargs);
  cudaGraphNode_t body_node;
  cudaGraphAddNode(&body_node, body, nullptr, nullptr, 0, &bp);
  cudaGraphExec_t ce;
  const cudaError_t cinst = cudaGraphInstantiate(&ce, cg, 0);
  cudaGraphLaunch(ce, s);
  cudaStreamSynchronize(s);
  int counted = 0;
  cudaMemcpy(&counted, counter, sizeof(int), cudaMemcpyDeviceToHost);
  cudaGraphLaunch(ce, s);
  cudaStreamSynchronize(s);
  int counted2 = 0;
  cudaMemcpy(&counted2, counter, sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("while %s %s %s: counter %d then %d\n", name(e), name(add_cond), name(cinst),
              counted, counted2);
  cudaGraph_t ig;
  cudaGraphCreate(&ig, 0);
  cudaGraphConditionalHandle ih;
  cudaGraphConditionalHandleCreate(&ih, ig, 0, 0);
  cudaGraphNodeParams ip = conditional_node(ih, cudaGraphCondTypeIf, 2);
  cudaGraphNode_t icond;
  e = cudaGraphAddNode(&icond, ig, nullptr, nullptr, 0, &ip);
  void* count_args[] = {&counter};
  cudaGraphNodeParams kp2 =
      kernel_node(reinterpret_cast<void*>(count), dim3(1), dim3(1), count_args);
  cudaGraphNode_t then_node;
  cudaGraphAddNode(&then_node, ip.conditional.phGraph_out[1], nullptr, nullptr, 0, &kp2);
  cudaGraphExec_t ie;
  cudaGraphInstantiate(&ie, ig, 0);
  cudaMemset(counter, 0, sizeof(int));
  cudaGraphLaunch(ie, s);
  cudaStreamSynchronize(s);
  cudaMemcpy(&counted, counter, sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("if-else %s without default: else ran %d\n", name(e), counted);

  // 7. Graph memory nodes.
  cudaGraph_t mg;
  cudaGraphCreate(&mg, 0);
  cudaMemAllocNodeParams ap;
  std::memset(&ap, 0, sizeof(ap));
  ap.bytesize = 1 << 20;
  ap.poolProps.allocType = cudaMemAllocationTypePinned;
  ap.poolProps.location.type = cudaMemLocationTypeDevice;
  ap.poolProps.location.id = 0;
  cudaGraphNode_t alloc_node, free_node;
  e = cudaGraphAddMemAllocNode(&alloc_node, mg, nullptr, 0, &ap);
  const bool got_address = ap.dptr != nullptr;
  cudaGraphAddMemFreeNode(&free_node, mg, &alloc_node, 1, ap.dptr);
  size_t used = 1, high = 1, reserved = 1;
  cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used);
  std::printf("alloc node %s address %d used before launch %zu\n", name(e), got_address, used);
  cudaGraphExec_t me;
  cudaGraphInstantiate(&me, mg, 0);
  cudaGraphLaunch(me, s);
  cudaStreamSynchronize(s);
  cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used);
  cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &high);
  cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved);
  std::printf("after launch used %zu high %zu reserved %zu\n", used, high, reserved);
  cudaGraphExecDestroy(me);
  cudaDeviceGraphMemTrim(0);
  cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used);
  cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved);
  std::printf("after trim used %zu reserved %zu\n", used, reserved);

  // 8. Stream-ordered allocation and pools.
  int pools = 0;
  cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0);
  cudaMemPool_t pool;
  cudaDeviceGetDefaultMemPool(&pool, 0);
  unsigned long long threshold = 1;
  cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
  std::printf("pools supported %d threshold %llu\n", pools, threshold);
  void* a = nullptr;
  e = cudaMallocAsync(&a, 1000, s);
  unsigned long long pused = 0, preserved = 0;
  cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &pused);
  cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &preserved);
  std::printf("malloc async %s used %llu reserved>=used %d\n", name(e), pused, preserved >= pused);
  e = cudaFreeAsync(a, s);
  const cudaError_t again = cudaFreeAsync(a, s);
  std::printf("free async %s twice %s\n", name(e), name(again));
  cudaGetLastError();
  cudaStreamSynchronize(s);
  cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &pused);
  cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &preserved);
  std::printf("after sync used %llu reserved %llu\n", pused, preserved);
  e = cudaFreeAsync(nullptr, s);
  std::printf("free async null %s\n", name(e));
  cudaGetLastError();
  cudaMemAccessDesc desc = {};
  desc.location.type = cudaMemLocationTypeDevice;
  desc.location.id = 0;
  cudaMemAccessFlags flags = cudaMemAccessFlagsProtNone;
  cudaMemLocation here = desc.location;
  e = cudaMemPoolGetAccess(&flags, pool, &here);
  std::printf("access %s %d\n", name(e), int(flags));
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t mine;
  e = cudaMemPoolCreate(&mine, &props);
  void* b = nullptr;
  const cudaError_t from = cudaMallocFromPoolAsync(&b, 4096, mine, s);
  cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemCurrent, &pused);
  std::printf("pool create %s malloc from pool %s used %llu\n", name(e), name(from), pused);
  cudaFreeAsync(b, s);
  cudaStreamSynchronize(s);
  e = cudaMemPoolDestroy(mine);
  std::printf("pool destroy %s\n", name(e));
  // Allocation in a capture: a memory node.
  cudaGraph_t ag;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  void* c = nullptr;
  e = cudaMallocAsync(&c, 4096, s);
  cudaMemsetAsync(c, 1, 4096, s);
  cudaFreeAsync(c, s);
  cudaStreamEndCapture(s, &ag);
  std::printf("malloc async in capture %s\n", name(e));
  print_graph("allocating", ag);
  std::printf("done %s\n", name(cudaGetLastError()));
  return 0;
}

// The tests of this program (tests/lit/README.md): both builds print what
// an H100 printed (graphs_as_cuda.expected; CUDA 13.0).
// BUILD:
// TEST: unit.graphs_as_cuda
// LABELS: unit
// RUN: %bin > graphs_as_cuda.out
// RUN: diff -u %S/graphs_as_cuda.expected graphs_as_cuda.out
//
// TEST: gpu.graphs_as_cuda
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu > graphs_as_cuda_gpu.out
// RUN: diff -u %S/graphs_as_cuda.expected graphs_as_cuda_gpu.out
