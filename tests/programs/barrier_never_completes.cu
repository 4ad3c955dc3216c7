// A split barrier that expects one arrival more than the block makes: every
// thread waits at line 13 for a phase that never ends (a deadlock, which
// the simulator reports at that line; a GPU hangs).
#include <cuda/barrier>
#include <cstdio>

__global__ void stuck(int* out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x + 1);  // one too many
  __syncthreads();
  out[threadIdx.x] = int(threadIdx.x);
  auto token = bar.arrive();
  bar.wait(std::move(token));
}

int main() {
  int* out;
  cudaMalloc(&out, 64 * sizeof(int));
  stuck<<<1, 64>>>(out);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(out);
  return 0;
}
