// Stream-ordered allocation on the simulator: cudaMallocAsync's buffers are
// device buffers like cudaMalloc's, pools count them, and a double
// cudaFreeAsync gets CUDA's error.
#include <gtest/gtest.h>

namespace {

__global__ void fill(int* p, int v) { p[threadIdx.x] = v; }

unsigned long long attribute(cudaMemPool_t pool, cudaMemPoolAttr a) {
  unsigned long long v = 0;
  EXPECT_EQ(cudaMemPoolGetAttribute(pool, a, &v), cudaSuccess);
  return v;
}

TEST(StreamOrdered, ABufferWorksUntilItIsFreedOnce) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  int* d = nullptr;
  ASSERT_EQ(cudaMallocAsync(&d, 32 * sizeof(int), s), cudaSuccess);
  fill<<<1, 32, 0, s>>>(d, 5);
  int h[32];
  cudaMemcpyAsync(h, d, sizeof(h), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  EXPECT_EQ(h[31], 5);
  size_t free_before, free_after, total;
  cudaMemGetInfo(&free_before, &total);
  EXPECT_EQ(cudaFreeAsync(d, s), cudaSuccess);
  cudaMemGetInfo(&free_after, &total);
  EXPECT_GT(free_after, free_before) << "in the allocation table like cudaMalloc's";
  EXPECT_EQ(cudaFreeAsync(d, s), cudaErrorInvalidValue);
  cudaGetLastError();
  EXPECT_EQ(cudaFreeAsync(nullptr, s), cudaSuccess);
  cudaStreamDestroy(s);
}

TEST(StreamOrdered, PoolsCountWhatTheyHoldAndKeepUpToTheirThreshold) {
  int supported = 0;
  cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0);
  EXPECT_EQ(supported, 1);
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t pool;
  ASSERT_EQ(cudaMemPoolCreate(&pool, &props), cudaSuccess);
  cudaStream_t s;
  cudaStreamCreate(&s);
  unsigned long long keep = 64 << 20;
  ASSERT_EQ(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), cudaSuccess);
  void* p;
  ASSERT_EQ(cudaMallocFromPoolAsync(&p, 1 << 20, pool, s), cudaSuccess);
  EXPECT_EQ(attribute(pool, cudaMemPoolAttrUsedMemCurrent), 1u << 20);
  cudaFreeAsync(p, s);
  cudaStreamSynchronize(s);
  EXPECT_EQ(attribute(pool, cudaMemPoolAttrUsedMemCurrent), 0u);
  EXPECT_GE(attribute(pool, cudaMemPoolAttrReservedMemCurrent), 1u << 20) << "under the threshold";
  EXPECT_EQ(attribute(pool, cudaMemPoolAttrUsedMemHigh), 1u << 20);
  EXPECT_EQ(cudaMemPoolTrimTo(pool, 0), cudaSuccess);
  EXPECT_EQ(attribute(pool, cudaMemPoolAttrReservedMemCurrent), 0u);
  // The device's current pool serves cudaMallocAsync.
  ASSERT_EQ(cudaDeviceSetMemPool(0, pool), cudaSuccess);
  cudaMallocAsync(&p, 4096, s);
  EXPECT_EQ(attribute(pool, cudaMemPoolAttrUsedMemCurrent), 4096u);
  cudaFreeAsync(p, s);
  cudaMemPool_t def;
  cudaDeviceGetDefaultMemPool(&def, 0);
  cudaDeviceSetMemPool(0, def);
  EXPECT_EQ(cudaMemPoolDestroy(def), cudaErrorInvalidValue) << "the default pool stays";
  EXPECT_EQ(cudaMemPoolDestroy(pool), cudaSuccess);
  EXPECT_EQ(cudaMemPoolDestroy(pool), cudaErrorInvalidValue);
  cudaGetLastError();
  cudaStreamDestroy(s);
}

}  // namespace
