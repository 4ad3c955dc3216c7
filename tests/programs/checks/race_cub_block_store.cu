// checks corpus: each block loads its own tile with CUB but stores it at the
// start of the output, not at its own offset: the blocks write over each
// other.
// expect: racecheck write-after-write block_store.cuh:81
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <cstdio>

constexpr int kThreads = 64, kItems = 4, kTile = kThreads * kItems;

__global__ void copy_tiles(const int* in, int* out) {
  using Load = cub::BlockLoad<int, kThreads, kItems, cub::BLOCK_LOAD_DIRECT>;
  using Store = cub::BlockStore<int, kThreads, kItems, cub::BLOCK_STORE_DIRECT>;
  int items[kItems];
  Load().Load(in + blockIdx.x * kTile, items);
  Store().Store(out, items);  // should be out + blockIdx.x * kTile
}

int main() {
  int *in, *out;
  cudaMallocManaged(&in, 4 * kTile * sizeof(int));
  cudaMallocManaged(&out, 4 * kTile * sizeof(int));
  for (int i = 0; i < 4 * kTile; ++i) in[i] = i;
  copy_tiles<<<4, kThreads>>>(in, out);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(in);
  cudaFree(out);
  return 0;
}
