// racecheck corpus: a block copies a tile into shared memory with cooperative
// groups' memcpy_async, then reads another thread's part of it without the
// cg::wait(block) that makes the whole copy visible.
// expect: racecheck read-after-write race_memcpy_async_no_wait.cu:15
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cstdio>

namespace cg = cooperative_groups;

__global__ void shift(const int* in, int* out) {
  __shared__ int tile[64];
  auto block = cg::this_thread_block();
  cg::memcpy_async(block, tile, in, sizeof(tile));
  out[threadIdx.x] = tile[(threadIdx.x + 1) % 64];  // needs cg::wait(block) before this line
}

int main() {
  int *in, *out;
  cudaMalloc(&in, 64 * sizeof(int));
  cudaMalloc(&out, 64 * sizeof(int));
  cudaMemset(in, 0, 64 * sizeof(int));
  shift<<<1, 64>>>(in, out);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(in);
  cudaFree(out);
  return 0;
}
