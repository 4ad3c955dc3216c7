// Cooperative groups and launches through function pointers.
#include <cooperative_groups.h>
#include <gtest/gtest.h>

#include <vector>

namespace cg = cooperative_groups;

namespace {

__global__ void tile_sums(int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  const int sum = cg::reduce(tile, int(block.thread_rank()), cg::plus<int>());
  const int biggest = cg::reduce(tile, int(block.thread_rank()), cg::greater<int>());
  const unsigned odd = tile.ballot(block.thread_rank() % 2);
  block.sync();
  if (tile.thread_rank() == 0) {
    out[tile.meta_group_rank() * 3] = sum;
    out[tile.meta_group_rank() * 3 + 1] = biggest;
    out[tile.meta_group_rank() * 3 + 2] = int(odd);
  }
}

TEST(Groups, TilesReduceAndVote) {
  int* d;
  cudaMalloc(&d, 8 * 3 * sizeof(int));
  tile_sums<<<1, 128>>>(d);
  std::vector<int> h(24);
  ASSERT_EQ(cudaMemcpy(h.data(), d, h.size() * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  for (int t = 0; t < 8; ++t) {
    int want = 0;
    for (int r = 0; r < 16; ++r) want += t * 16 + r;
    EXPECT_EQ(h[t * 3], want) << "tile " << t;
    EXPECT_EQ(h[t * 3 + 1], t * 16 + 15);
    EXPECT_EQ(unsigned(h[t * 3 + 2]), 0xaaaau) << "bits relative to the tile";
  }
  cudaFree(d);
}

__global__ void big_tiles(int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<128> tile = cg::tiled_partition<128>(block);
  const int sum = cg::reduce(tile, int(block.thread_rank()), cg::plus<int>());
  tile.sync();
  if (tile.thread_rank() == 0) out[block.thread_rank() / 128] = sum;
}

TEST(Groups, TilesLargerThanAWarpSyncAndReduce) {
  int* d;
  cudaMalloc(&d, 4 * sizeof(int));
  big_tiles<<<1, 512>>>(d);
  int h[4];
  ASSERT_EQ(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost), cudaSuccess);
  for (int t = 0; t < 4; ++t) EXPECT_EQ(h[t], 128 * 128 * t + 127 * 128 / 2) << "tile " << t;
  cudaFree(d);
}

// A tile cut from a tile: its meta group rank and size are within its
// parent (CUDA: the parent's thread rank / Size, the parent's size / Size),
// not within the block.
__global__ void nested_tiles(unsigned* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> sixteen = cg::tiled_partition<16>(block);
  cg::thread_block_tile<4> four = cg::tiled_partition<4>(sixteen);
  const unsigned t = unsigned(block.thread_rank());
  out[t * 4] = sixteen.meta_group_rank();
  out[t * 4 + 1] = sixteen.meta_group_size();
  out[t * 4 + 2] = four.meta_group_rank();
  out[t * 4 + 3] = four.meta_group_size();
}

TEST(Groups, ATileOfATileCountsItsMetaGroupWithinItsParent) {
  unsigned* d;
  cudaMalloc(&d, 96 * 4 * sizeof(unsigned));
  nested_tiles<<<1, 96>>>(d);
  std::vector<unsigned> h(96 * 4);
  ASSERT_EQ(cudaMemcpy(h.data(), d, h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost),
            cudaSuccess);
  for (unsigned t = 0; t < 96; ++t) {
    EXPECT_EQ(h[t * 4], t / 16) << "thread " << t;
    EXPECT_EQ(h[t * 4 + 1], 6u) << "thread " << t;
    EXPECT_EQ(h[t * 4 + 2], t % 16 / 4) << "thread " << t;
    EXPECT_EQ(h[t * 4 + 3], 4u) << "thread " << t;
  }
  cudaFree(d);
}

__global__ void coalesced(int* out) {
  if (threadIdx.x % 4 == 1) {  // 8 lanes of the warp take this branch
    cg::coalesced_group g = cg::coalesced_threads();
    const int total = cg::reduce(g, int(threadIdx.x), cg::plus<int>());
    out[threadIdx.x] = int(g.thread_rank()) * 1000 + int(g.size()) * 100000 + total;
  }
}

TEST(Groups, CoalescedThreadsAreTheLanesHereTogether) {
  int* d;
  cudaMalloc(&d, 32 * sizeof(int));
  coalesced<<<1, 32>>>(d);
  std::vector<int> h(32);
  cudaMemcpy(h.data(), d, sizeof(int) * 32, cudaMemcpyDeviceToHost);
  const int total = 1 + 5 + 9 + 13 + 17 + 21 + 25 + 29;
  for (int l = 1; l < 32; l += 4) EXPECT_EQ(h[l], (l / 4) * 1000 + 8 * 100000 + total) << l;
  cudaFree(d);
}

__global__ void scale_by(float* x, float f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= f;
}

template <int K>
__global__ void add_k(int* x) {
  x[threadIdx.x] += K;
}

TEST(Groups, CudaLaunchKernelThroughAVoidPointer) {
  float* x;
  cudaMalloc(&x, 100 * sizeof(float));
  std::vector<float> h(100, 2.0f);
  cudaMemcpy(x, h.data(), 400, cudaMemcpyHostToDevice);
  float f = 1.5f;
  int n = 100;
  void* args[] = {&x, &f, &n};
  ASSERT_EQ(cudaLaunchKernel((void*)scale_by, dim3(4), dim3(32), args, 0, nullptr), cudaSuccess);
  cudaMemcpy(h.data(), x, 400, cudaMemcpyDeviceToHost);
  EXPECT_EQ(h[99], 3.0f);
  cudaFree(x);

  int* y;
  cudaMalloc(&y, 4 * sizeof(int));
  cudaMemset(y, 0, 16);
  void* yargs[] = {&y};
  ASSERT_EQ(cudaLaunchKernel(add_k<7>, dim3(1), dim3(4), yargs), cudaSuccess)
      << "a template kernel passed as itself";
  int hy[4];
  cudaMemcpy(hy, y, 16, cudaMemcpyDeviceToHost);
  EXPECT_EQ(hy[3], 7);
  cudaFree(y);

  EXPECT_EQ(cudaLaunchKernel((const void*)&n, dim3(1), dim3(1), args),
            cudaErrorInvalidDeviceFunction);
  cudaGetLastError();
}

__global__ void two_phases(int* data, int* seen) {
  cg::grid_group grid = cg::this_grid();
  if (threadIdx.x == 0) data[blockIdx.x] = int(blockIdx.x) + 1;
  grid.sync();  // every block's write is visible after this
  if (threadIdx.x == 0) seen[blockIdx.x] = data[(blockIdx.x + 1) % gridDim.x];
  grid.sync();
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    int sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) sum += seen[b];
    data[0] = sum;
  }
}

TEST(Groups, GridSyncInACooperativeLaunch) {
  const int blocks = 40;
  int *data, *seen;
  cudaMalloc(&data, blocks * sizeof(int));
  cudaMalloc(&seen, blocks * sizeof(int));
  cudaMemset(data, 0, blocks * sizeof(int));
  void* args[] = {&data, &seen};
  ASSERT_EQ(cudaLaunchCooperativeKernel((void*)two_phases, dim3(blocks), dim3(64), args),
            cudaSuccess);
  std::vector<int> h(blocks);
  ASSERT_EQ(cudaMemcpy(h.data(), seen, blocks * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  for (int b = 0; b < blocks; ++b) EXPECT_EQ(h[b], (b + 1) % blocks + 1);
  int sum = 0;
  cudaMemcpy(&sum, data, sizeof(int), cudaMemcpyDeviceToHost);
  EXPECT_EQ(sum, blocks * (blocks + 1) / 2);

  EXPECT_EQ(cudaLaunchCooperativeKernel((void*)two_phases, dim3(100000), dim3(64), args),
            cudaErrorCooperativeLaunchTooLarge);
  cudaGetLastError();
  two_phases<<<2, 32>>>(data, seen);  // not cooperative: grid.sync() cannot work
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  cudaDeviceReset();
}

}  // namespace
