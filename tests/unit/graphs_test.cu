// CUDA graphs on the simulator, as a CUDA program uses them: captured
// launches keep their own arguments (a destructor's class as bytes), template
// kernels, explicit nodes, child graphs and clones, updates, switch nodes,
// and bad handles answered with CUDA's errors. tests/programs/graphs_as_cuda.cu
// holds what an H100 answered.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "../programs/graph_nodes.h"

namespace {

__global__ void add(int* p, int v) { p[threadIdx.x] += v; }

template <class T>
__global__ void scale(T* p, T f) {
  p[threadIdx.x] *= f;
}

int g_destructions = 0;
struct Counted {
  int* target;
  int amount;
  Counted(int* t, int a) : target(t), amount(a) {}
  Counted(const Counted& o) : target(o.target), amount(o.amount) {}
  ~Counted() { ++g_destructions; }
};
__global__ void add_counted(Counted c) { atomicAdd(c.target, c.amount); }

__global__ void choose(cudaGraphConditionalHandle h, unsigned v) { cudaGraphSetConditional(h, v); }

std::vector<int> read(const int* d, int n) {
  std::vector<int> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost);
  return h;
}

TEST(Graphs, ACapturedLaunchKeepsACopyOfItsArguments) {
  int* d;
  cudaMalloc(&d, 32 * sizeof(int));
  cudaMemset(d, 0, 32 * sizeof(int));
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaGraph_t g;
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  {
    int amount = 3;
    add<<<1, 32, 0, s>>>(d, amount);
    amount = 100;                  // captured already
    scale<<<1, 32, 0, s>>>(d, 2);  // a template kernel
    (void)amount;
  }
  ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
  EXPECT_EQ(read(d, 32)[0], 0) << "a captured launch does not run";
  cudaGraphExec_t e;
  ASSERT_EQ(cudaGraphInstantiate(&e, g, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(e, s), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(e, s), cudaSuccess);
  EXPECT_EQ(read(d, 32)[31], ((0 + 3) * 2 + 3) * 2);
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  cudaFree(d);
}

TEST(Graphs, AnArgumentWithADestructorIsCopiedOnceAsBytes) {
  int* total;
  cudaMalloc(&total, sizeof(int));
  cudaMemset(total, 0, sizeof(int));
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaGraph_t g;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  {
    Counted c(total, 2);
    g_destructions = 0;
    add_counted<<<4, 64, 0, s>>>(c);
    EXPECT_LE(g_destructions, 2) << "the host's copy at the launch, as with nvcc";
  }
  cudaStreamEndCapture(s, &g);
  cudaGraphExec_t e;
  cudaGraphInstantiate(&e, g, 0);
  g_destructions = 0;
  cudaGraphLaunch(e, s);
  cudaGraphLaunch(e, s);
  EXPECT_EQ(g_destructions, 0) << "no destructor runs in a graph's launch";
  EXPECT_EQ(read(total, 1)[0], 2 * 4 * 64 * 2);
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  cudaFree(total);
}

TEST(Graphs, AnExplicitNodeNeedsAKernelTheSimulatorKnows) {
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  int* d = nullptr;
  int f = 2;
  void* args[] = {&d, &f};
  cudaKernelNodeParams p = {};
  p.func = reinterpret_cast<void*>(scale<int>);  // a template: not registered
  p.gridDim = dim3(1);
  p.blockDim = dim3(32);
  p.kernelParams = args;
  cudaGraphNode_t n;
  testing::internal::CaptureStderr();
  EXPECT_EQ(cudaGraphAddKernelNode(&n, g, nullptr, 0, &p), cudaErrorInvalidDeviceFunction);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("template"), std::string::npos);
  p.func = reinterpret_cast<void*>(add);
  p.kernelParams = nullptr;
  EXPECT_EQ(cudaGraphAddKernelNode(&n, g, nullptr, 0, &p), cudaErrorInvalidValue);
  cudaGetLastError();
  cudaGraphDestroy(g);
}

TEST(Graphs, ChildGraphsClonesAndUpdates) {
  int* d;
  cudaMalloc(&d, 32 * sizeof(int));
  cudaMemset(d, 0, 32 * sizeof(int));
  cudaGraph_t child, parent;
  cudaGraphCreate(&child, 0);
  cudaGraphCreate(&parent, 0);
  int one = 1;
  void* args[] = {&d, &one};
  cudaKernelNodeParams p = {};
  p.func = reinterpret_cast<void*>(add);
  p.gridDim = dim3(1);
  p.blockDim = dim3(32);
  p.kernelParams = args;
  cudaGraphNode_t k, c, m;
  ASSERT_EQ(cudaGraphAddKernelNode(&k, child, nullptr, 0, &p), cudaSuccess);
  ASSERT_EQ(cudaGraphAddChildGraphNode(&c, parent, nullptr, 0, child), cudaSuccess);
  ASSERT_EQ(cudaGraphAddMemsetNode(&m, parent, &c, 1,
                                   std::array<cudaMemsetParams, 1>{{{d, 0, 7, 4, 1, 1}}}.data()),
            cudaSuccess);
  cudaGraph_t copy;
  ASSERT_EQ(cudaGraphClone(&copy, parent), cudaSuccess);
  cudaGraphNode_t found;
  EXPECT_EQ(cudaGraphNodeFindInClone(&found, m, copy), cudaSuccess);
  cudaGraphNodeType t;
  cudaGraphNodeGetType(found, &t);
  EXPECT_EQ(t, cudaGraphNodeTypeMemset);
  cudaGraphExec_t e;
  ASSERT_EQ(cudaGraphInstantiate(&e, copy, 0), cudaSuccess);
  cudaGraphLaunch(e, nullptr);
  auto h = read(d, 32);
  EXPECT_EQ(h[0], 7);
  EXPECT_EQ(h[1], 1);
  // A graph of another shape is refused; the exec keeps what it had.
  cudaGraphExecUpdateResultInfo info;
  EXPECT_EQ(cudaGraphExecUpdate(e, child, &info), cudaErrorGraphExecUpdateFailure);
  EXPECT_EQ(info.result, cudaGraphExecUpdateErrorTopologyChanged);
  cudaGetLastError();
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(copy);
  cudaGraphDestroy(parent);
  cudaGraphDestroy(child);
  cudaFree(d);
}

TEST(Graphs, ASwitchNodeRunsTheBodyItsKernelChose) {
  int* d;
  cudaMalloc(&d, 32 * sizeof(int));
  cudaMemset(d, 0, 32 * sizeof(int));
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  cudaGraphConditionalHandle h;
  ASSERT_EQ(cudaGraphConditionalHandleCreate(&h, g, 0, cudaGraphCondAssignDefault), cudaSuccess);
  unsigned which = 2;
  void* cargs[] = {&h, &which};
  cudaGraphNodeParams kp = kernel_node(reinterpret_cast<void*>(choose), dim3(1), dim3(1), cargs);
  cudaGraphNode_t chooser, sw;
  ASSERT_EQ(cudaGraphAddNode(&chooser, g, nullptr, nullptr, 0, &kp), cudaSuccess);
  cudaGraphNodeParams cp = conditional_node(h, cudaGraphCondTypeSwitch, 3);
  ASSERT_EQ(cudaGraphAddNode(&sw, g, &chooser, nullptr, 1, &cp), cudaSuccess);
  for (int i = 0; i < 3; ++i) {
    int v = 10 * (i + 1);
    void* args[] = {&d, &v};
    cudaGraphNodeParams bp = kernel_node(reinterpret_cast<void*>(add), dim3(1), dim3(32), args);
    cudaGraphNode_t body;
    ASSERT_EQ(cudaGraphAddNode(&body, cp.conditional.phGraph_out[i], nullptr, nullptr, 0, &bp),
              cudaSuccess);
  }
  cudaGraphExec_t e;
  ASSERT_EQ(cudaGraphInstantiate(&e, g, 0), cudaSuccess);
  cudaGraphLaunch(e, nullptr);
  EXPECT_EQ(read(d, 32)[5], 30);
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(g);
  cudaFree(d);
}

TEST(Graphs, BadHandlesGetCudasErrors) {
  cudaGraph_t g, other;
  cudaGraphCreate(&g, 0);
  cudaGraphCreate(&other, 0);
  cudaGraphNode_t a, b;
  cudaGraphAddEmptyNode(&a, g, nullptr, 0);
  EXPECT_EQ(cudaGraphAddEmptyNode(&b, other, &a, 1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphAddEmptyNode(&b, g, nullptr, 1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphAddEmptyNode(nullptr, g, nullptr, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphGetNodes(g, nullptr, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphLaunch(reinterpret_cast<cudaGraphExec_t>(g), nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphDestroy(reinterpret_cast<cudaGraph_t>(&a)), cudaErrorInvalidValue);
  cudaGraphExec_t e;
  EXPECT_EQ(cudaGraphInstantiate(&e, nullptr, 0), cudaErrorInvalidValue);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaStreamCaptureStatus status;
  EXPECT_EQ(cudaStreamIsCapturing(s, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);
  cudaGraph_t none;
  EXPECT_EQ(cudaStreamEndCapture(s, &none), cudaErrorIllegalState);
  EXPECT_EQ(cudaStreamUpdateCaptureDependencies(s, nullptr, nullptr, 0, 0), cudaErrorIllegalState);
  cudaGetLastError();
  cudaStreamDestroy(s);
  cudaGraphDestroy(g);
  cudaGraphDestroy(other);
}

}  // namespace
