// The simulator's runtime, exercised as a CUDA program: built by the
// rewriter and the host compiler like any student's .cu file.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <set>
#include <thread>
#include <vector>

#include "cudalab/sim.h"

namespace {

__global__ void record_indices(uint3* threads, uint3* blocks, dim3* bdim, dim3* gdim) {
  const int b = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
  const int t = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
  const int i = b * blockDim.x * blockDim.y * blockDim.z + t;
  threads[i] = threadIdx;
  blocks[i] = blockIdx;
  bdim[i] = blockDim;
  gdim[i] = gridDim;
}

TEST(Runtime, EveryThreadSeesItsOwnIndices) {
  const dim3 grid(3, 2, 2), block(4, 3, 2);
  const int n = 12 * 24;
  uint3 *t, *b;
  dim3 *bd, *gd;
  ASSERT_EQ(cudaMalloc(&t, n * sizeof(uint3)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, n * sizeof(uint3)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&bd, n * sizeof(dim3)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&gd, n * sizeof(dim3)), cudaSuccess);
  record_indices<<<grid, block>>>(t, b, bd, gd);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<uint3> ht(n), hb(n);
  std::vector<dim3> hbd(n), hgd(n);
  cudaMemcpy(ht.data(), t, n * sizeof(uint3), cudaMemcpyDeviceToHost);
  cudaMemcpy(hb.data(), b, n * sizeof(uint3), cudaMemcpyDeviceToHost);
  cudaMemcpy(hbd.data(), bd, n * sizeof(dim3), cudaMemcpyDeviceToHost);
  cudaMemcpy(hgd.data(), gd, n * sizeof(dim3), cudaMemcpyDeviceToHost);
  int i = 0;
  for (unsigned bz = 0; bz < 2; ++bz)
    for (unsigned by = 0; by < 2; ++by)
      for (unsigned bx = 0; bx < 3; ++bx)
        for (unsigned tz = 0; tz < 2; ++tz)
          for (unsigned ty = 0; ty < 3; ++ty)
            for (unsigned tx = 0; tx < 4; ++tx, ++i) {
              EXPECT_EQ(ht[i].x, tx);
              EXPECT_EQ(ht[i].y, ty);
              EXPECT_EQ(ht[i].z, tz);
              EXPECT_EQ(hb[i].x, bx);
              EXPECT_EQ(hb[i].y, by);
              EXPECT_EQ(hb[i].z, bz);
              EXPECT_EQ(hbd[i].x, 4u);
              EXPECT_EQ(hgd[i].z, 2u);
            }
  cudaFree(t);
  cudaFree(b);
  cudaFree(bd);
  cudaFree(gd);
}

// Tree reduction in shared memory: wrong without a working __syncthreads.
__global__ void block_sum(const int* in, int* out) {
  __shared__ int s[256];
  const unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k /= 2) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

TEST(Runtime, SyncthreadsOrdersSharedMemoryWithinABlock) {
  const int blocks = 64, threads = 256;
  std::vector<int> in(blocks * threads);
  std::iota(in.begin(), in.end(), 0);
  int *d_in, *d_out;
  cudaMalloc(&d_in, in.size() * sizeof(int));
  cudaMalloc(&d_out, blocks * sizeof(int));
  cudaMemcpy(d_in, in.data(), in.size() * sizeof(int), cudaMemcpyHostToDevice);
  block_sum<<<blocks, threads>>>(d_in, d_out);
  std::vector<int> out(blocks);
  ASSERT_EQ(cudaMemcpy(out.data(), d_out, blocks * sizeof(int), cudaMemcpyDeviceToHost),
            cudaSuccess);
  for (int b = 0; b < blocks; ++b) {
    long want = 0;
    for (int t = 0; t < threads; ++t) want += b * threads + t;
    EXPECT_EQ(out[b], want) << "block " << b;
  }
  cudaFree(d_in);
  cudaFree(d_out);
}

// Threads that return early do not hold the others at the barrier.
__global__ void early_exit(int* out) {
  __shared__ int s[64];
  if (threadIdx.x >= 40) return;
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[39 - threadIdx.x];
}

TEST(Runtime, ExitedThreadsDoNotBlockTheBarrier) {
  int* d;
  cudaMalloc(&d, 40 * sizeof(int));
  early_exit<<<1, 64>>>(d);
  std::vector<int> h(40);
  ASSERT_EQ(cudaMemcpy(h.data(), d, 40 * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(h[i], 39 - i);
  cudaFree(d);
}

// Dynamic shared memory is the block's own: each block fills it with its
// id, waits, and checks nobody else wrote there.
__global__ void shared_is_per_block(int* bad, int n) {
  extern __shared__ int mine[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) mine[i] = blockIdx.x;
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    if (mine[i] != int(blockIdx.x)) atomicAdd(bad, 1);
}

TEST(Runtime, SharedMemoryIsPerBlock) {
  int* bad;
  cudaMalloc(&bad, sizeof(int));
  cudaMemset(bad, 0, sizeof(int));
  shared_is_per_block<<<200, 128, 1024 * sizeof(int)>>>(bad, 1024);
  int h = -1;
  ASSERT_EQ(cudaMemcpy(&h, bad, sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(h, 0);
  cudaFree(bad);
}

__global__ void count_workers(unsigned long long* ids, int* counter) {
  // Busy enough that several workers take blocks.
  volatile double x = 0;
  for (int i = 0; i < 20000; ++i) x = x + i;
  if (threadIdx.x == 0) {
    const int k = atomicAdd(counter, 1);
    ids[k] = std::hash<std::thread::id>{}(std::this_thread::get_id());
  }
}

TEST(Runtime, BlocksRunOnSeveralWorkersAndAtomicsAreAtomic) {
  const int blocks = 256;
  unsigned long long* ids;
  int* counter;
  cudaMalloc(&ids, blocks * sizeof(unsigned long long));
  cudaMalloc(&counter, sizeof(int));
  cudaMemset(counter, 0, sizeof(int));
  count_workers<<<blocks, 32>>>(ids, counter);
  int n = 0;
  std::vector<unsigned long long> h(blocks);
  cudaMemcpy(&n, counter, sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(h.data(), ids, blocks * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
  EXPECT_EQ(n, blocks);
  std::set<unsigned long long> distinct(h.begin(), h.end());
  if (std::thread::hardware_concurrency() > 1) EXPECT_GT(distinct.size(), 1u);
  EXPECT_EQ(cudalab::sim::last_launch().workers, std::max(1u, std::thread::hardware_concurrency()));
  cudaFree(ids);
  cudaFree(counter);
}

// Workers take the blocks of a large grid a few at a time: whatever the
// grid's size, every block runs, once.
__global__ void count_blocks(int* runs) {
  if (threadIdx.x == 0) atomicAdd(&runs[blockIdx.x + blockIdx.y * gridDim.x], 1);
}

TEST(Runtime, EveryBlockOfAGridRunsOnceWhateverItsSize) {
  for (const dim3 grid : {dim3(1), dim3(2), dim3(127), dim3(128), dim3(129), dim3(1000), dim3(4099),
                          dim3(65537), dim3(300001), dim3(1031, 257)}) {
    const size_t blocks = size_t(grid.x) * grid.y;
    int* runs;
    ASSERT_EQ(cudaMalloc(&runs, blocks * sizeof(int)), cudaSuccess);
    ASSERT_EQ(cudaMemset(runs, 0, blocks * sizeof(int)), cudaSuccess);
    count_blocks<<<grid, 8>>>(runs);
    std::vector<int> h(blocks);
    ASSERT_EQ(cudaMemcpy(h.data(), runs, blocks * sizeof(int), cudaMemcpyDeviceToHost),
              cudaSuccess);
    size_t once = 0;
    for (int r : h) once += r == 1;
    EXPECT_EQ(once, blocks) << grid.x << " x " << grid.y << " blocks";
    cudaFree(runs);
  }
}

__global__ void noop() {}

TEST(Runtime, BadConfigurationsDoNotRunAndReportCudasErrors) {
  noop<<<1, 2048>>>();
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the last error is reset once read";
  noop<<<0, 32>>>();
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  noop<<<dim3(1, 70000), 32>>>();
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  noop<<<1, 32, 64 * 1024>>>();
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  noop<<<1, dim3(32, 1, 65)>>>();
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  noop<<<1, 1024>>>();
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

__global__ void write_through(float* p) { p[threadIdx.x] = 1.0f; }

TEST(Runtime, AFaultIsStickyUntilReset) {
  float* volatile nowhere = nullptr;
  write_through<<<2, 64>>>(nowhere);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  float* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, 16), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "read once, as on a GPU";
  EXPECT_EQ(cudaMemset(p, 0, 4), cudaErrorIllegalAddress) << "but the device stays broken";
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&p, 16), cudaSuccess);
  write_through<<<1, 4>>>(p);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaFree(p);
}

// CUDA 4's "thread" names for the device's calls, which older programs use
// (CUDA 12 still declares them): the same calls.
TEST(Runtime, TheOldThreadNamesAreTheDevicesCalls) {
  float* volatile nowhere = nullptr;
  write_through<<<1, 32>>>(nowhere);
  EXPECT_EQ(cudaThreadSynchronize(), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaThreadExit(), cudaSuccess) << "a reset, which ends the sticky error";
  float* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 16), cudaSuccess);
  cudaFree(p);
  size_t stack = 0;
  EXPECT_EQ(cudaThreadSetLimit(cudaLimitStackSize, 4096), cudaSuccess);
  EXPECT_EQ(cudaThreadGetLimit(&stack, cudaLimitStackSize), cudaSuccess);
  EXPECT_EQ(stack, 4096u);
  cudaFuncCache cache = cudaFuncCachePreferL1;
  EXPECT_EQ(cudaThreadSetCacheConfig(cudaFuncCachePreferShared), cudaSuccess);
  EXPECT_EQ(cudaThreadGetCacheConfig(&cache), cudaSuccess);
  EXPECT_EQ(cache, cudaFuncCachePreferShared) << "the preference set, as an H100 gives back";
  EXPECT_EQ(cudaDeviceGetCacheConfig(nullptr), cudaErrorInvalidValue);
  cudaDeviceReset();
}

TEST(Runtime, ErrorNamesAndStringsAreCudas) {
  EXPECT_STREQ(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorIllegalAddress),
               "an illegal memory access was encountered");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument");
  EXPECT_STREQ(cudaGetErrorString(cudaSuccess), "no error");
}

TEST(Runtime, MemoryCallsCheckTheirArguments) {
  float* p;
  ASSERT_EQ(cudaMalloc(&p, 100), cudaSuccess);
  float host[50];
  EXPECT_EQ(cudaMemcpy(host, p, 200, cudaMemcpyDeviceToHost), cudaErrorInvalidValue)
      << "a copy past the end of the allocation";
  EXPECT_EQ(cudaMemcpy(host, p, 4, static_cast<cudaMemcpyKind>(7)),
            cudaErrorInvalidMemcpyDirection);
  EXPECT_EQ(cudaMemcpy(nullptr, p, 4, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(host), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(p), cudaSuccess);
  EXPECT_EQ(cudaFree(p), cudaErrorInvalidValue) << "double free";
  EXPECT_EQ(cudaFree(nullptr), cudaSuccess);
  cudaGetLastError();
}

TEST(Runtime, DevicePropertiesAreAnH100s) {
  int n = 0;
  ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
  EXPECT_EQ(n, 1);
  cudaDeviceProp p;
  ASSERT_EQ(cudaGetDeviceProperties(&p, 0), cudaSuccess);
  EXPECT_EQ(p.major, 9);
  EXPECT_EQ(p.multiProcessorCount, 132);
  EXPECT_EQ(p.maxThreadsPerBlock, 1024);
  EXPECT_EQ(p.warpSize, 32);
  EXPECT_EQ(cudaSetDevice(1), cudaErrorInvalidDevice);
  cudaGetLastError();
}

__global__ void spin(int iterations) {
  volatile int x = 0;
  for (int i = 0; i < iterations; ++i) x = x + 1;
}

TEST(Runtime, EventsMeasureRealTimeAndStreamsRunInOrder) {
  cudaStream_t s;
  cudaEvent_t a, b;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&a), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&b), cudaSuccess);
  int* d;
  cudaMalloc(&d, sizeof(int));
  int one = 1, got = 0;
  cudaEventRecord(a, s);
  cudaMemcpyAsync(d, &one, sizeof(int), cudaMemcpyHostToDevice, s);
  spin<<<64, 64, 0, s>>>(20000);
  cudaMemcpyAsync(&got, d, sizeof(int), cudaMemcpyDeviceToHost, s);
  cudaEventRecord(b, s);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(got, 1);
  float ms = -1;
  ASSERT_EQ(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
  EXPECT_GT(ms, 0.0f);
  EXPECT_EQ(cudaEventDestroy(a), cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(a), cudaErrorInvalidResourceHandle);
  cudaEventDestroy(b);
  cudaStreamDestroy(s);
  cudaFree(d);
  cudaGetLastError();
}

template <typename T, int Scale>
__global__ void scale(T* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= Scale;
}

TEST(Runtime, TemplateKernelsAndLaunchesOverSeveralLines) {
  double* d;
  cudaMalloc(&d, 10 * sizeof(double));
  std::vector<double> h(10, 1.5);
  cudaMemcpy(d, h.data(), 10 * sizeof(double), cudaMemcpyHostToDevice);
  scale<double, 4><<<1, 32>>>(d, 10);
  cudaMemcpy(h.data(), d, 10 * sizeof(double), cudaMemcpyDeviceToHost);
  EXPECT_EQ(h[9], 6.0);
  cudaFree(d);
}

// Arguments written 0 or NULL are null pointers for pointer parameters and
// zeros for numbers, as in a direct call (HeCBench's idivide passes 0 for
// an `int*` it never writes).
__global__ void fill_unless_null(int* out, const float* optional, int value, int n) {
  const int i = threadIdx.x;
  if (i < n) out[i] = optional ? -1 : value;
}
template <class T>
__global__ void store_value(int* out, T value, int* unused) {
  out[threadIdx.x] = sizeof(value) * 100 + int(value) + (unused ? 1000 : 0);
}

TEST(Runtime, ZeroAndNullArgumentsAreNullPointersOrZeros) {
  int* d;
  cudaMalloc(&d, 4 * sizeof(int));
  fill_unless_null<<<1, 4>>>(d, NULL, 7, 4);
  std::vector<int> h(4);
  cudaMemcpy(h.data(), d, 4 * sizeof(int), cudaMemcpyDeviceToHost);
  EXPECT_EQ(h, std::vector<int>(4, 7));
  fill_unless_null<<<1, 4>>>(d, 0, 0, 4);
  cudaMemcpy(h.data(), d, 4 * sizeof(int), cudaMemcpyDeviceToHost);
  EXPECT_EQ(h, std::vector<int>(4, 0));
  // A template parameter deduced from a 0 is int, as with nvcc.
  store_value<<<1, 4>>>(d, 0, 0);
  cudaMemcpy(h.data(), d, 4 * sizeof(int), cudaMemcpyDeviceToHost);
  EXPECT_EQ(h[3], int(sizeof(int)) * 100);
  store_value<double><<<1, 4>>>(d, 0, NULL);
  cudaMemcpy(h.data(), d, 4 * sizeof(int), cudaMemcpyDeviceToHost);
  EXPECT_EQ(h[0], 800);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  cudaFree(d);
}

// A kernel argument whose type has a destructor (CUDA by Example's Lock frees
// its mutex in its destructor): CUDA copies the argument's bytes to the
// device, so no constructor or destructor runs per thread.
int lock_copies = 0;
int lock_destructions = 0;
struct Lock {
  int* mutex = nullptr;
  Lock() { cudaMalloc(&mutex, sizeof(int)), cudaMemset(mutex, 0, sizeof(int)); }
  Lock(const Lock& other) : mutex(other.mutex) { ++lock_copies; }
  Lock& operator=(const Lock&) = delete;
  ~Lock() { ++lock_destructions; }
  __device__ void lock() {
    while (atomicCAS(mutex, 0, 1) != 0) {
    }
  }
  __device__ void unlock() { atomicExch(mutex, 0); }
};

__global__ void count_under_lock(Lock lock, int* total, int step) {
  if (threadIdx.x == 0) {
    lock.lock();
    *total += step;  // one block at a time
    lock.unlock();
  }
  lock.mutex = nullptr;  // this thread's own copy: the next thread's is whole
}

template <class T>
__global__ void templated_under_lock(T lock, int* total) {
  if (threadIdx.x == 0) {
    lock.lock();
    *total += 1;
    lock.unlock();
  }
}

TEST(Runtime, AnArgumentWithADestructorIsCopiedAsBytesNotPerThread) {
  int* total;
  cudaMalloc(&total, sizeof(int));
  cudaMemset(total, 0, sizeof(int));
  {
    Lock lock;
    lock_copies = lock_destructions = 0;
    count_under_lock<<<64, 128>>>(lock, total, 2);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_LE(lock_copies, 2) << "copied on the host at the launch, not once per thread";
    EXPECT_LE(lock_destructions, 2);
    lock_copies = lock_destructions = 0;
    templated_under_lock<<<16, 64>>>(lock, total);
    EXPECT_LE(lock_copies, 2) << "a template kernel's argument too";
    void* args[] = {&lock, &total, nullptr};
    int step = 1;
    args[2] = &step;
    lock_copies = lock_destructions = 0;
    EXPECT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(count_under_lock), dim3(8), dim3(32),
                               args, 0, nullptr),
              cudaSuccess);
    EXPECT_EQ(lock_copies, 0) << "cudaLaunchKernel copies the bytes it is given";
    EXPECT_EQ(lock_destructions, 0);
    cudaFree(lock.mutex);
  }
  int h = 0;
  cudaMemcpy(&h, total, sizeof(int), cudaMemcpyDeviceToHost);
  EXPECT_EQ(h, 64 * 2 + 16 + 8);
  cudaFree(total);
}

}  // namespace
