// libcu++ in kernels: split arrive/wait barriers, latches, semaphores,
// atomics with scopes and their waits, memcpy_async with barriers,
// pipelines (a thread's own, and a block's shared between producers and
// consumers), cooperative groups' memcpy_async and the pipeline
// primitives. Every result is the same on every run and device; an H100
// (CUDA 13.0) printed tests/data/libcudacxx_gpu.txt.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda/latch>
#include <cuda/pipeline>
#include <cuda/semaphore>
#include <cuda/std/atomic>
#include <cuda/std/cstdint>
#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include <cuda/std/utility>
#include <cuda_pipeline_primitives.h>
#include <cstdio>
#include <new>

namespace cg = cooperative_groups;

constexpr int kBlock = 128;
constexpr int kBlocks = 4;

// A block sum with a split barrier: arrive, do other work, then wait.
__global__ void split_barrier(const int* in, int* sums, int* other) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int partial[kBlock];
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = in[i];
  auto token = bar.arrive();
  other[i] = in[i] * 3;  // between arrive and wait: touches nothing shared
  bar.wait(cuda::std::move(token));
  if (threadIdx.x == 0) {
    int s = 0;
    for (int k = 0; k < kBlock; ++k) s += partial[k];
    sums[blockIdx.x] = s;
  }
}

// Phases in a loop, the last arrival's completion function, a thread that
// drops out: a running sum where each phase doubles what the block holds.
struct Doubler {
  int* value;
  __device__ void operator()() const noexcept { *value *= 2; }
};
using DoublingBarrier = cuda::barrier<cuda::thread_scope_block, Doubler>;
__global__ void phases(int* out) {
  __shared__ int value;
  __shared__ alignas(DoublingBarrier) unsigned char storage[sizeof(DoublingBarrier)];
  DoublingBarrier& bar = *reinterpret_cast<DoublingBarrier*>(storage);
  if (threadIdx.x == 0) {
    value = 1;
    init(&bar, blockDim.x, Doubler{&value});
  }
  __syncthreads();
  for (int round = 0; round < 5; ++round) {
    if (threadIdx.x == blockDim.x - 1 && round == 2) {
      bar.arrive_and_drop();  // the last thread leaves after two rounds
      break;
    }
    bar.arrive_and_wait();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = value;
}

// A latch counted down by every thread; a semaphore that lets one thread at
// a time into a section that is not atomic.
using Latch = cuda::latch<cuda::thread_scope_block>;
using Semaphore = cuda::binary_semaphore<cuda::thread_scope_block>;
__global__ void latch_and_semaphore(int* out) {
  __shared__ alignas(Latch) unsigned char latch_storage[sizeof(Latch)];
  __shared__ alignas(Semaphore) unsigned char semaphore_storage[sizeof(Semaphore)];
  Latch& done = *reinterpret_cast<Latch*>(latch_storage);
  Semaphore& lock = *reinterpret_cast<Semaphore*>(semaphore_storage);
  __shared__ int counted, guarded;
  if (threadIdx.x == 0) {
    new (&done) Latch(blockDim.x);
    new (&lock) Semaphore(1);
    counted = 0;
    guarded = 0;
  }
  __syncthreads();
  cuda::atomic_ref<int, cuda::thread_scope_block>(counted).fetch_add(1);
  lock.acquire();
  const int g = cuda::atomic_ref<int, cuda::thread_scope_block>(guarded).load();
  cuda::atomic_ref<int, cuda::thread_scope_block>(guarded).store(g + int(threadIdx.x));
  lock.release();
  done.arrive_and_wait();
  if (threadIdx.x == 0) {
    out[2 * blockIdx.x] = counted;
    out[2 * blockIdx.x + 1] = guarded;
  }
}

// Atomics of every kind; a thread that waits for the block's last thread to
// change a flag (wait and notify).
__device__ cuda::atomic<unsigned, cuda::thread_scope_device> g_count;
__device__ cuda::std::atomic<long long> g_wide;
__global__ void atomics(float* fsum, int* mins, int* bits, int* seen) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  g_count.fetch_add(1, cuda::std::memory_order_relaxed);  // an int converts, as for std::atomic
  g_wide += (long long)t << 24;
  cuda::atomic_ref<float, cuda::thread_scope_device>(*fsum) += 0.5;
  cuda::atomic_ref<int, cuda::thread_scope_device> lo(mins[0]), hi(mins[1]);
  lo.fetch_min(1000 - t);
  hi.fetch_max(3 * t);
  cuda::atomic_ref<int> ors(bits[2 * blockIdx.x]), xors(bits[2 * blockIdx.x + 1]);
  ors |= 1 << (threadIdx.x % 29);
  xors ^= 1 << (threadIdx.x % 7);
  __shared__ int flag;
  if (threadIdx.x == 0) flag = 0;
  __syncthreads();
  cuda::atomic_ref<int, cuda::thread_scope_block> f(flag);
  if (threadIdx.x == 0) {
    f.wait(0);  // returns once the last thread stored 7
    seen[blockIdx.x] = f.load(cuda::memory_order_acquire);
  } else if (threadIdx.x == blockDim.x - 1) {
    f.store(7, cuda::memory_order_release);
    f.notify_all();
  }
}

// A tile of `in` into shared memory, four ways, then each thread writes its
// neighbour's element (so a missing wait would show).
constexpr int kTile = kBlock * 2;
__device__ void rotate_out(const float* tile, float* out) {
  for (int k = threadIdx.x; k < kTile; k += blockDim.x)
    out[blockIdx.x * kTile + k] = tile[(k + 1) % kTile];
}
__global__ void copy_with_barrier(const float* in, float* out) {
  __shared__ float tile[kTile];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, tile, in + blockIdx.x * kTile,
                     cuda::aligned_size_t<16>(sizeof(float) * kTile), bar);
  bar.arrive_and_wait();
  rotate_out(tile, out);
}
__global__ void copy_with_groups(const float* in, float* out) {
  __shared__ float tile[kTile];
  auto block = cg::this_thread_block();
  cg::memcpy_async(block, tile, in + blockIdx.x * kTile, sizeof(float) * kTile);
  cg::wait(block);
  rotate_out(tile, out);
}
__global__ void copy_with_primitives(const float* in, float* out) {
  __shared__ float tile[kTile];
  for (int k = threadIdx.x; k < kTile; k += blockDim.x)
    // The last four bytes of every 16th element are zeros instead.
    __pipeline_memcpy_async(&tile[k], &in[blockIdx.x * kTile + k], sizeof(float),
                            k % 16 == 15 ? sizeof(float) : 0);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  rotate_out(tile, out);
}

// Stages through a thread's own pipeline: each thread copies its own
// elements two stages ahead and sums them.
constexpr int kStages = 3;
constexpr int kSteps = 8;
__global__ void own_pipeline(const float* in, float* out) {
  __shared__ float stage[kStages][kBlock];
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  const float* mine = in + blockIdx.x * kSteps * kBlock;
  int fetched = 0;
  float sum = 0;
  for (int step = 0; step < kSteps; ++step) {
    for (; fetched < kSteps && fetched < step + kStages; ++fetched) {
      pipe.producer_acquire();
      cuda::memcpy_async(&stage[fetched % kStages][threadIdx.x],
                         &mine[fetched * kBlock + threadIdx.x], sizeof(float), pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    sum += stage[step % kStages][threadIdx.x] * float(step + 1);
    pipe.consumer_release();
  }
  out[blockIdx.x * kBlock + threadIdx.x] = sum;
}

// A block's pipeline: the first warp produces (copies whole rows), the
// other threads consume (each sums a column of every row).
__global__ void shared_pipeline(const float* in, float* out) {
  constexpr int kProducers = 32;
  constexpr int kWidth = kBlock - kProducers;
  __shared__ float rows[kStages][kWidth];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kStages> state;
  auto block = cg::this_thread_block();
  const bool producer = block.thread_rank() < kProducers;
  auto pipe = cuda::make_pipeline(block, &state,
                                  producer ? cuda::pipeline_role::producer
                                           : cuda::pipeline_role::consumer);
  const float* src = in + blockIdx.x * kSteps * kWidth;
  float sum = 0;
  for (int step = 0; step < kSteps; ++step) {
    if (producer) {
      pipe.producer_acquire();
      for (int k = threadIdx.x; k < kWidth; k += kProducers)
        cuda::memcpy_async(&rows[step % kStages][k], &src[step * kWidth + k], sizeof(float), pipe);
      pipe.producer_commit();
    } else {
      pipe.consumer_wait();
      sum += rows[step % kStages][threadIdx.x - kProducers] * float(step + 1);
      pipe.consumer_release();
    }
  }
  if (!producer) out[blockIdx.x * kWidth + threadIdx.x - kProducers] = sum;
}

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e = (call);                                                           \
    if (e != cudaSuccess) {                                                           \
      std::printf("%s failed: %s (line %d)\n", #call, cudaGetErrorName(e), __LINE__); \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

template <class T>
T* device_array(size_t n) {
  T* p = nullptr;
  if (cudaMalloc(&p, n * sizeof(T)) != cudaSuccess) return nullptr;
  cudaMemset(p, 0, n * sizeof(T));
  return p;
}

// A float array's checksum: the sum and a position-weighted sum.
void print_floats(const char* what, const float* d, int n) {
  float* h = new float[n];
  cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  double s = 0, w = 0;
  for (int k = 0; k < n; ++k) s += h[k], w += h[k] * double(k % 97 + 1);
  std::printf("%s: %d floats, sum %.1f, weighted %.1f, first %.2f last %.2f\n", what, n, s, w,
              h[0], h[n - 1]);
  delete[] h;
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device\n");
    return 77;
  }
  static_assert(cuda::std::is_same_v<cuda::std::int32_t, int>, "cuda::std is the standard's");
  std::printf("limits: %d %lld\n", cuda::std::numeric_limits<int>::max(),
              (long long)cuda::std::numeric_limits<cuda::std::int64_t>::min());

  const int n = kBlocks * kBlock;
  int* in = device_array<int>(n);
  int* sums = device_array<int>(kBlocks);
  int* other = device_array<int>(n);
  int h_in[n];
  for (int k = 0; k < n; ++k) h_in[k] = (k * 37) % 101 - 50;
  CHECK(cudaMemcpy(in, h_in, sizeof(h_in), cudaMemcpyHostToDevice));
  split_barrier<<<kBlocks, kBlock>>>(in, sums, other);
  CHECK(cudaDeviceSynchronize());
  int h_sums[kBlocks], h_other[n];
  CHECK(cudaMemcpy(h_sums, sums, sizeof(h_sums), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_other, other, sizeof(h_other), cudaMemcpyDeviceToHost));
  long long other_sum = 0;
  for (int v : h_other) other_sum += v;
  std::printf("split barrier: sums %d %d %d %d, other %lld\n", h_sums[0], h_sums[1], h_sums[2],
              h_sums[3], other_sum);

  int* doubled = device_array<int>(kBlocks);
  phases<<<kBlocks, 96>>>(doubled);
  CHECK(cudaDeviceSynchronize());
  int h_doubled[kBlocks];
  CHECK(cudaMemcpy(h_doubled, doubled, sizeof(h_doubled), cudaMemcpyDeviceToHost));
  std::printf("phases: %d %d %d %d\n", h_doubled[0], h_doubled[1], h_doubled[2], h_doubled[3]);

  int* ls = device_array<int>(2 * kBlocks);
  latch_and_semaphore<<<kBlocks, kBlock>>>(ls);
  CHECK(cudaDeviceSynchronize());
  int h_ls[2 * kBlocks];
  CHECK(cudaMemcpy(h_ls, ls, sizeof(h_ls), cudaMemcpyDeviceToHost));
  std::printf("latch and semaphore: %d %d, %d %d\n", h_ls[0], h_ls[1], h_ls[6], h_ls[7]);

  float* fsum = device_array<float>(1);
  int* mins = device_array<int>(2);
  int* bits = device_array<int>(2 * kBlocks);
  int* seen = device_array<int>(kBlocks);
  int h_mins[2] = {1 << 30, -1};
  CHECK(cudaMemcpy(mins, h_mins, sizeof(h_mins), cudaMemcpyHostToDevice));
  atomics<<<kBlocks, kBlock>>>(fsum, mins, bits, seen);
  CHECK(cudaDeviceSynchronize());
  unsigned count = 0;
  long long wide = 0;
  float h_fsum = 0;
  int h_bits[2 * kBlocks], h_seen[kBlocks];
  CHECK(cudaMemcpyFromSymbol(&count, g_count, sizeof(count)));
  CHECK(cudaMemcpyFromSymbol(&wide, g_wide, sizeof(wide)));
  CHECK(cudaMemcpy(&h_fsum, fsum, sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_mins, mins, sizeof(h_mins), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_bits, bits, sizeof(h_bits), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_seen, seen, sizeof(h_seen), cudaMemcpyDeviceToHost));
  std::printf("atomics: count %u wide %lld float %.1f min %d max %d bits %08x %08x seen %d %d\n",
              count, wide, h_fsum, h_mins[0], h_mins[1], h_bits[0], h_bits[1], h_seen[0], h_seen[3]);

  const int fn = kBlocks * kSteps * kBlock;
  float* fin = device_array<float>(fn);
  float* fout = device_array<float>(fn);
  float* h_fin = new float[fn];
  for (int k = 0; k < fn; ++k) h_fin[k] = float((k * 13) % 29) - 14.0f;
  CHECK(cudaMemcpy(fin, h_fin, fn * sizeof(float), cudaMemcpyHostToDevice));
  copy_with_barrier<<<kBlocks, kBlock>>>(fin, fout);
  CHECK(cudaDeviceSynchronize());
  print_floats("memcpy_async with a barrier", fout, kBlocks * kTile);
  copy_with_groups<<<kBlocks, kBlock>>>(fin, fout);
  CHECK(cudaDeviceSynchronize());
  print_floats("cooperative groups' memcpy_async", fout, kBlocks * kTile);
  copy_with_primitives<<<kBlocks, kBlock>>>(fin, fout);
  CHECK(cudaDeviceSynchronize());
  print_floats("pipeline primitives", fout, kBlocks * kTile);
  own_pipeline<<<kBlocks, kBlock>>>(fin, fout);
  CHECK(cudaDeviceSynchronize());
  print_floats("a thread's own pipeline", fout, kBlocks * kBlock);
  shared_pipeline<<<kBlocks, kBlock>>>(fin, fout);
  CHECK(cudaDeviceSynchronize());
  print_floats("a block's shared pipeline", fout, kBlocks * (kBlock - 32));
  delete[] h_fin;
  return 0;
}

// The tests of this program (tests/lit/README.md): both builds print what
// an H100 printed (data/libcudacxx_gpu.txt).
// BUILD:
// TEST: unit.libcudacxx_match_gpu
// LABELS: unit
// RUN: %bin > libcudacxx_sim.txt
// RUN: diff libcudacxx_sim.txt %data/libcudacxx_gpu.txt
//
// TEST: gpu.libcudacxx_match_expected
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu > libcudacxx_gpu_now.txt
// RUN: diff libcudacxx_gpu_now.txt %data/libcudacxx_gpu.txt
