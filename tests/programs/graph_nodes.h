// Node parameters for cudaGraphAddNode, shared by the graph tests that run
// on the simulator (unit/graphs_test.cu) and on a GPU (graphs_as_cuda.cu).
#pragma once

#include <cuda_runtime.h>

// A kernel node's parameters.
inline cudaGraphNodeParams kernel_node(void* func, dim3 grid, dim3 block, void** args) {
  cudaGraphNodeParams p = {};
  p.type = cudaGraphNodeTypeKernel;
  p.kernel.func = func;
  p.kernel.gridDim = grid;
  p.kernel.blockDim = block;
  p.kernel.kernelParams = args;
  return p;
}

// A conditional node's (cudaGraphAddNode fills phGraph_out).
inline cudaGraphNodeParams conditional_node(cudaGraphConditionalHandle handle,
                                            cudaGraphConditionalNodeType type, unsigned size) {
  cudaGraphNodeParams p = {};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = handle;
  p.conditional.type = type;
  p.conditional.size = size;
  return p;
}
