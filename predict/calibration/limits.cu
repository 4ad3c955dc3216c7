// The limits of a GPU that the time predictor needs, each measured by a
// microbenchmark built to reach that one limit and nothing else: bandwidths
// (DRAM, L2, L1, shared memory), arithmetic throughputs (FP32, FP64,
// special functions, integer), atomics (spread and on one address), the
// latency of a dependent load at each level, the cost of a barrier and of a
// launch. Prints one JSON object (predict/calibration/README.md says what
// each figure is and how the data files were taken).
//
//   limits [--quick] [--only NAME]
//
// Each benchmark checks its own result first (a limit measured on a kernel
// that computed something else is no limit), then times REPS launches with
// CUDA events after two warm-up launches and keeps the median. --quick runs
// tiny sizes: on the simulator it checks the kernels, and its times are the
// CPU's, not a GPU's.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

bool g_quick = false;
const char* g_only = nullptr;
int g_failed = 0;
bool g_first_figure = true;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "limits: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

// The median of `reps` timed launches (ms), after two warm-up launches.
float median_ms(const std::function<void()>& launch, int reps) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  for (int i = 0; i < 2; ++i) launch();
  check(cudaDeviceSynchronize(), "warm-up");
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    check(cudaEventRecord(start), "cudaEventRecord");
    launch();
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float t = 0;
    check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    ms.push_back(t);
  }
  check(cudaGetLastError(), "a timed launch");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// One figure of the JSON object: "name": {"value": v, "unit": u, "ms": t}.
void figure(const char* name, double value, const char* unit, double ms, bool ok) {
  if (!ok) {
    std::fprintf(stderr, "limits: %s: the kernel's result is wrong, no figure\n", name);
    ++g_failed;
    return;
  }
  std::printf("%s    \"%s\": {\"value\": %.6g, \"unit\": \"%s\", \"ms\": %.6g}",
              g_first_figure ? "" : ",\n", name, value, unit, ms);
  g_first_figure = false;
}

bool wanted(const char* group) { return !g_only || std::strcmp(g_only, group) == 0; }

// --- Bandwidths -------------------------------------------------------------

// Every thread sums float4s a grid-stride apart and writes its sum: the
// reads are the traffic (the writes are one float per thread).
__global__ void read_sum(const float4* a, size_t n, float* out) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  const size_t i0 = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  float s = 0;
  for (size_t i = i0; i < n; i += stride) {
    const float4 v = a[i];
    s += (v.x + v.y) + (v.z + v.w);
  }
  out[i0] = s;
}

__global__ void write_all(float4* a, size_t n, float value) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    a[i] = make_float4(value, value, value, value);
}

__global__ void copy_all(const float4* a, float4* b, size_t n) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) b[i] = a[i];
}

// Reads a working set that fits in L2 `passes` times, past L1
// (ld.global.cg): every pass after the first hits in L2.
__global__ void l2_read(const float4* a, size_t n, int passes, float* out) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  const size_t i0 = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  float s = 0;
  for (int p = 0; p < passes; ++p)
    for (size_t i = i0; i < n; i += stride) {
      const float4 v = __ldcg(&a[i]);
      s += (v.x + v.y) + (v.z + v.w);
    }
  out[i0] = s;
}

// Each thread reads `per_thread` words, each from a random 32-byte sector
// of `sectors` (a sector a lane, lines far apart): what a gather or a
// strided read costs, past L1 (ld.global.cg), from L2 or from DRAM as the
// set fits in L2 or not.
__global__ void scattered_read(const float* a, size_t sectors, int per_thread, float* out) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned x = unsigned(t) * 2654435761u + 12345u;
  float s = 0;
  for (int k = 0; k < per_thread; ++k) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;  // xorshift: a random sector
    s += __ldcg(&a[size_t(x % unsigned(sectors)) * 8]);
  }
  out[t] = s;
}

// A transpose's writes: thread t writes one float of a matrix `columns`
// floats wide, down its columns (row t % rows, column t / rows), so a
// warp's 32 lanes write 4 bytes each to 32 lines a row apart, and each
// sector fills up over 8 warps' writes.
__global__ void column_write(float* a, size_t rows, size_t columns, float value) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < rows * columns) a[(t % rows) * columns + t / rows] = value;
}

// Each block reads its own `per_block` float4s again and again: after the
// first pass they are in its multiprocessor's L1.
__global__ void l1_read(const float4* a, int per_block, int passes, float* out) {
  const float4* mine = a + size_t(blockIdx.x) * per_block;
  float s = 0;
  for (int p = 0; p < passes; ++p)
    for (int i = threadIdx.x; i < per_block; i += blockDim.x) {
      const float4 v = __ldg(&mine[i]);
      s += (v.x + v.y) + (v.z + v.w);
    }
  out[size_t(blockIdx.x) * blockDim.x + threadIdx.x] = s;
}

// Shared memory: each warp's load reads 32 words in `stride`-apart banks;
// stride 1 is one wavefront a load, stride 32 is 32 (all lanes in one bank).
__global__ void shared_read(int stride, int iterations, float* out) {
  __shared__ float words[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) words[i] = float(i & 7);
  __syncthreads();
  float s = 0;
  for (int it = 0; it < iterations; ++it) s += words[(threadIdx.x * stride + it) & 1023];
  out[size_t(blockIdx.x) * blockDim.x + threadIdx.x] = s;
}

// --- A warp alone in a loop ----------------------------------------------------

// One warp steps through `n` floats, a line an iteration: with a store in
// the loop (the next load may not pass it: `in` and `out` may overlap), or
// summing (the compiler may start several iterations' loads at once). The
// time an iteration takes when nothing else runs is the latency a loop
// waits for; `offset` moves each launch to memory the last did not touch.
__global__ void warp_loop_store(const float* in, float* out, size_t n, size_t offset) {
  for (size_t i = offset + threadIdx.x; i < offset + n; i += 32) out[i] = in[i] * 2.0f;
}
__global__ void warp_loop_sum(const float* in, size_t n, size_t offset, float* out) {
  float s = 0;
  for (size_t i = offset + threadIdx.x; i < offset + n; i += 32) s += in[i];
  out[threadIdx.x] = s;
}
// The same sum as a grid-stride loop, whose step (gridDim.x * blockDim.x)
// the kernel reads when it runs.
__global__ void warp_loop_sum_grid_stride(const float* in, int n, int offset, float* out) {
  float s = 0;
  for (int i = offset + blockIdx.x * blockDim.x + threadIdx.x; i < offset + n;
       i += gridDim.x * blockDim.x)
    s += in[i];
  out[threadIdx.x] = s;
}

// --- Arithmetic ---------------------------------------------------------------

// Eight independent chains of fused multiply-adds per thread: 16 FLOPs a
// step. x * m + a with m near 1 stays finite.
template <class T>
__global__ void fma_chains(int steps, T m, T a, T* out) {
  T x[8];
  for (int k = 0; k < 8; ++k) x[k] = T(threadIdx.x & 15) + T(k);
  for (int s = 0; s < steps; ++s)
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = x[k] * m + a;
  T sum = 0;
  for (int k = 0; k < 8; ++k) sum += x[k];
  out[size_t(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
}

// Four independent chains of __sinf (the special-function unit): 4 a step.
__global__ void sin_chains(int steps, float* out) {
  float x[4];
  for (int k = 0; k < 4; ++k) x[k] = 0.25f * float(k + 1);
  for (int s = 0; s < steps; ++s)
#pragma unroll
    for (int k = 0; k < 4; ++k) x[k] = __sinf(x[k]) + 0.5f;
  out[size_t(blockIdx.x) * blockDim.x + threadIdx.x] = x[0] + x[1] + x[2] + x[3];
}

// Four independent chains of a double-precision library function, exp or
// log (nvcc's own code for them: tens of FP64 instructions a call).
__global__ void fp64_calls(int steps, bool log_chain, double* out) {
  double x[4];
  for (int k = 0; k < 4; ++k) x[k] = 0.25 * double(k + 1);
  if (log_chain) {
    for (int s = 0; s < steps; ++s)
#pragma unroll
      for (int k = 0; k < 4; ++k) x[k] = log(x[k] + 1.5);
  } else {
    for (int s = 0; s < steps; ++s)
#pragma unroll
      for (int k = 0; k < 4; ++k) x[k] = exp(-x[k]);
  }
  out[size_t(blockIdx.x) * blockDim.x + threadIdx.x] = x[0] + x[1] + x[2] + x[3];
}

// Eight independent chains of 32-bit integer multiply-adds: 8 a step.
__global__ void int_chains(int steps, unsigned m, unsigned a, unsigned* out) {
  unsigned x[8];
  for (int k = 0; k < 8; ++k) x[k] = threadIdx.x + unsigned(k);
  for (int s = 0; s < steps; ++s)
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = x[k] * m + a;
  unsigned sum = 0;
  for (int k = 0; k < 8; ++k) sum ^= x[k];
  out[size_t(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
}

// One chain a thread of dependent operations, each waiting for the one
// before (x = x * m + a, unrolled by 8): launched as one warp a
// multiprocessor, its time a step is the latency of one dependent
// instruction, which holds a warp that has no other work to issue.
template <class T>
__global__ void dependent_chain(int steps, T m, T a, T* out) {
  T x = T(threadIdx.x & 15);
  for (int s = 0; s < steps; ++s)
#pragma unroll
    for (int k = 0; k < 8; ++k) x = x * m + a;
  out[size_t(blockIdx.x) * blockDim.x + threadIdx.x] = x;
}

// A switch of 32 cases that each lane of a warp takes its own way (case
// (lane + k) mod 32 at step k): a GPU's warp runs the cases its lanes take
// one after another, each a turn through nvcc's jump tables.
// clang-format off
#define SWITCH_CASE(i) case i: x = x * (1.0f + (i) * 0.001f) + float(i); break;
// clang-format on
__global__ void switch_turns(int steps, float* out) {
  float x = threadIdx.x & 15;
  for (int k = 0; k < steps; ++k) {
    switch ((threadIdx.x + k) & 31) {
      // clang-format off
      SWITCH_CASE(0) SWITCH_CASE(1) SWITCH_CASE(2) SWITCH_CASE(3) SWITCH_CASE(4) SWITCH_CASE(5)
      SWITCH_CASE(6) SWITCH_CASE(7) SWITCH_CASE(8) SWITCH_CASE(9) SWITCH_CASE(10) SWITCH_CASE(11)
      SWITCH_CASE(12) SWITCH_CASE(13) SWITCH_CASE(14) SWITCH_CASE(15) SWITCH_CASE(16)
      SWITCH_CASE(17) SWITCH_CASE(18) SWITCH_CASE(19) SWITCH_CASE(20) SWITCH_CASE(21)
      SWITCH_CASE(22) SWITCH_CASE(23) SWITCH_CASE(24) SWITCH_CASE(25) SWITCH_CASE(26)
      SWITCH_CASE(27) SWITCH_CASE(28) SWITCH_CASE(29) SWITCH_CASE(30) SWITCH_CASE(31)
      // clang-format on
    }
  }
  out[size_t(blockIdx.x) * blockDim.x + threadIdx.x] = x;
}

// Reads of a __constant__ table, 32 addresses a warp's request (each lane
// its own): a GPU's constant cache serves a request's distinct addresses
// one after another. Four sums, so that no read waits for another.
__constant__ float c_table[1024];
__global__ void constant_reads(int steps, float* out) {
  const int lane = threadIdx.x & 31;
  float s[4] = {0, 0, 0, 0};
  for (int k = 0; k < steps; k += 4)
#pragma unroll
    for (int j = 0; j < 4; ++j) s[j] += c_table[(k + j + lane * 33) & 1023];
  out[size_t(blockIdx.x) * blockDim.x + threadIdx.x] = s[0] + s[1] + s[2] + s[3];
}

// --- Atomics ------------------------------------------------------------------

// Every thread adds 1 to an element `spread` apart from its neighbour's,
// `times` times: spread over many addresses (each thread its own) or all on
// a few (`targets` addresses in all).
__global__ void atomic_adds(unsigned* counters, unsigned targets, int times) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < times; ++k) atomicAdd(&counters[(t + unsigned(k)) % targets], 1u);
}

// The same on floats, every lane on one address: nvcc adds a warp's
// integers on one address together and sends one atomic (atomic_one_address
// times that), but each lane's float atomic goes to L2 on its own.
__global__ void atomic_float_adds(float* counter, int times) {
  for (int k = 0; k < times; ++k) atomicAdd(counter, 1.0f);
}

// Atomics on shared memory: 32 counters a block, lane by lane.
__global__ void shared_atomics(int times, unsigned* out) {
  __shared__ unsigned c[32];
  if (threadIdx.x < 32) c[threadIdx.x] = 0;
  __syncthreads();
  for (int k = 0; k < times; ++k) atomicAdd(&c[(threadIdx.x + unsigned(k)) & 31], 1u);
  __syncthreads();
  if (threadIdx.x < 32) atomicAdd(&out[threadIdx.x], c[threadIdx.x]);
}

// Float atomics on shared memory, which a GPU makes a loop of
// compare-and-swap (no shared-memory float add): each thread on a counter
// of its own (`spread`), or a warp's lanes all on one (each warp its own:
// its lanes take turns; warps of a block on one counter wait for each
// other besides only when they do nothing else between their atomics, 4
// times slower on an H200, and nothing between is rare). Each block's
// counters (which start at 0, so that adding 1.0f stays exact) go to
// `out`, 256 a block.
__global__ void shared_float_atomics(int times, bool spread, float* out) {
  __shared__ float c[256];
  c[threadIdx.x] = 0;
  __syncthreads();
  float* mine = &c[spread ? threadIdx.x : threadIdx.x / 32 * 32];
  for (int k = 0; k < times; ++k) atomicAdd(mine, 1.0f);
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = c[threadIdx.x];
}

// --- Latency, barriers, launches ------------------------------------------------

// One thread follows a chain of indices: each load's address is the value
// the one before it loaded. It starts where the last launch stopped
// (`*at`), so that a chain longer than the caches meets new lines in every
// launch instead of those the warm-up left in L2.
__global__ void chase(const unsigned* next, int hops, unsigned* at) {
  unsigned i = *at;
  for (int h = 0; h < hops; ++h) i = next[i];
  *at = i;
}

// Blocks of 1024 threads pass `count` barriers, each after a shared store
// that a neighbour reads after it (two buffers: a store of the next round
// cannot overwrite what is still to be read).
__global__ void barriers(int count, float* out) {
  __shared__ float word[2][1024];
  float s = 0;
  for (int k = 0; k < count; ++k) {
    word[k & 1][threadIdx.x] = float(k & 3);
    __syncthreads();
    s += word[k & 1][(threadIdx.x + 1) % blockDim.x];
  }
  out[size_t(blockIdx.x) * blockDim.x + threadIdx.x] = s;
}

__global__ void empty_kernel() {}

struct Sizes {
  size_t dram_bytes, l2_bytes;
  int l1_passes, l2_passes, shared_iterations, fma_steps, sfu_steps, atomic_times, hops,
      barrier_count, reps, launches, scattered_reads;
  size_t loop_bytes;
};

void bandwidths(const Sizes& z, int sms) {
  const int threads = 256, blocks = sms * 8;
  const size_t n = z.dram_bytes / sizeof(float4);
  float4 *a, *b;
  float* out;
  check(cudaMalloc(&a, z.dram_bytes), "cudaMalloc");
  check(cudaMalloc(&b, z.dram_bytes), "cudaMalloc");
  const size_t out_n = size_t(blocks) * threads;
  check(cudaMalloc(&out, out_n * sizeof(float)), "cudaMalloc");
  std::vector<float> sums(out_n);
  auto clear = [&] { check(cudaMemset(out, 0, out_n * sizeof(float)), "cudaMemset"); };
  auto total = [&] {
    check(cudaMemcpy(sums.data(), out, out_n * sizeof(float), cudaMemcpyDeviceToHost), "copy");
    double s = 0;
    for (float v : sums) s += v;
    return s;
  };
  if (wanted("dram")) {
    float ms = median_ms([&] { write_all<<<blocks, threads>>>(a, n, 0.5f); }, z.reps);
    figure("dram_write", double(z.dram_bytes) / (ms * 1e-3) / 1e9, "GB/s", ms, true);
    clear();
    ms = median_ms([&] { read_sum<<<blocks, threads>>>(a, n, out); }, z.reps);
    figure("dram_read", double(z.dram_bytes) / (ms * 1e-3) / 1e9, "GB/s", ms,
           std::fabs(total() - 2.0 * double(n)) < 1e-3 * double(n));
    ms = median_ms([&] { copy_all<<<blocks, threads>>>(a, b, n); }, z.reps);
    figure("dram_copy", 2.0 * double(z.dram_bytes) / (ms * 1e-3) / 1e9, "GB/s", ms, true);
  }
  if (wanted("l2")) {
    const size_t l2n = z.l2_bytes / sizeof(float4);
    write_all<<<blocks, threads>>>(a, l2n, 0.25f);
    clear();
    const float ms =
        median_ms([&] { l2_read<<<blocks, threads>>>(a, l2n, z.l2_passes, out); }, z.reps);
    figure("l2_read", double(z.l2_bytes) * z.l2_passes / (ms * 1e-3) / 1e9, "GB/s", ms,
           std::fabs(total() - double(l2n) * z.l2_passes) < 1e-3 * double(l2n) * z.l2_passes);
  }
  if (wanted("l1")) {
    // 8 KiB a block, 4 blocks of 256 a multiprocessor: 32 KiB of L1 each.
    const int per_block = 512, l1_blocks = sms * 4;
    write_all<<<blocks, threads>>>(a, size_t(per_block) * l1_blocks, 0.125f);
    clear();
    const float ms =
        median_ms([&] { l1_read<<<l1_blocks, threads>>>(a, per_block, z.l1_passes, out); }, z.reps);
    const double bytes = double(per_block) * 16.0 * l1_blocks * z.l1_passes;
    figure("l1_read", bytes / (ms * 1e-3) / 1e9, "GB/s", ms,
           std::fabs(total() - 0.5 * per_block * l1_blocks * z.l1_passes) <
               1e-3 * per_block * l1_blocks * z.l1_passes);
  }
  if (wanted("scattered")) {
    // Random sectors of an L2-sized set, then of the whole buffer (DRAM);
    // every float of `a` is 0.5 (write_all above, or here).
    write_all<<<blocks, threads>>>(a, n, 0.5f);
    for (const bool dram : {false, true}) {
      const size_t bytes = dram ? z.dram_bytes : z.l2_bytes;
      clear();
      const float ms = median_ms(
          [&] {
            scattered_read<<<blocks, threads>>>(reinterpret_cast<const float*>(a), bytes / 32,
                                                z.scattered_reads, out);
          },
          z.reps);
      const double sectors = double(out_n) * z.scattered_reads;
      // The last launch's sum: every read is 0.5.
      figure(dram ? "dram_scattered_sectors" : "l2_scattered_sectors", sectors / (ms * 1e-3) / 1e9,
             "G sectors/s", ms, std::fabs(total() - 0.5 * sectors) < 1e-3 * sectors);
    }
  }
  if (wanted("scattered")) {
    // 1 GiB of floats, 8192 a row (a 32 KiB row, as a wide matrix's),
    // written down the columns.
    const size_t floats = z.dram_bytes / sizeof(float);
    const size_t columns = std::min<size_t>(8192, floats / 32), rows = floats / columns;
    float* fa = reinterpret_cast<float*>(a);
    const int column_blocks = int((floats + threads - 1) / threads);
    const float ms = median_ms(
        [&] { column_write<<<column_blocks, threads>>>(fa, rows, columns, 0.75f); }, z.reps);
    float last = 0;
    check(cudaMemcpy(&last, fa + floats - 1, sizeof(float), cudaMemcpyDeviceToHost), "copy");
    figure("scattered_store_sectors", double(floats) / (ms * 1e-3) / 1e9,
           "G sector writes/s (4 bytes a lane, a line each)", ms, last == 0.75f);
    write_all<<<blocks, threads>>>(a, n, 0.5f);  // as the kernels after expect
  }
  if (wanted("shared")) {
    for (int stride : {1, 32}) {
      clear();
      const float ms = median_ms(
          [&] { shared_read<<<blocks, threads>>>(stride, z.shared_iterations, out); }, z.reps);
      // Wavefronts: one per warp load without conflicts, 32 with.
      const double loads = double(blocks) * threads / 32 * z.shared_iterations;
      const double wavefronts = loads * stride;
      // Every thread's words cycle through 0..7 evenly enough: check the sum
      // loosely (the exact sum depends on the stride's walk).
      const double got = total();
      const bool ok = got > 0 && got < 8.0 * double(out_n) * z.shared_iterations;
      figure(stride == 1 ? "shared_wavefronts" : "shared_wavefronts_conflicted",
             wavefronts / (ms * 1e-3) / 1e9, "G wavefronts/s", ms, ok);
    }
  }
  if (wanted("loops")) {
    // A warp alone: 4 MiB a launch, from L2 (the same floats each launch,
    // after the warm-ups) or from DRAM (each launch 4 MiB further on in the
    // 1 GiB buffers, so that none finds its floats in L2).
    const size_t floats = z.loop_bytes / sizeof(float), all = z.dram_bytes / sizeof(float);
    float* fa = reinterpret_cast<float*>(a);
    float* fb = reinterpret_cast<float*>(b);
    write_all<<<blocks, threads>>>(a, n, 0.5f);
    for (const bool dram : {false, true}) {
      size_t offset = 0;
      auto next = [&] {
        const size_t at = offset;
        if (dram) offset = (offset + floats) % (all - floats + 1);
        return at;
      };
      clear();
      float ms = median_ms([&] { warp_loop_sum<<<1, 32>>>(fa, floats, next(), out); }, z.reps);
      const double iterations = double(floats) / 32;
      figure(dram ? "warp_loop_sum_dram" : "warp_loop_sum_l2", ms * 1e6 / iterations,
             "ns an iteration (one warp alone)", ms,
             std::fabs(total() - 0.5 * double(floats)) < 1e-3 * double(floats));
      clear();
      ms = median_ms(
          [&] { warp_loop_sum_grid_stride<<<1, 32>>>(fa, int(floats), int(next()), out); }, z.reps);
      figure(dram ? "warp_loop_sum_grid_stride_dram" : "warp_loop_sum_grid_stride_l2",
             ms * 1e6 / iterations, "ns an iteration (one warp alone)", ms,
             std::fabs(total() - 0.5 * double(floats)) < 1e-3 * double(floats));
      ms = median_ms([&] { warp_loop_store<<<1, 32>>>(fa, fb, floats, next()); }, z.reps);
      float first = 0;
      check(cudaMemcpy(&first, fb, sizeof(float), cudaMemcpyDeviceToHost), "copy");
      figure(dram ? "warp_loop_store_dram" : "warp_loop_store_l2", ms * 1e6 / iterations,
             "ns an iteration (one warp alone)", ms, first == 1.0f);
    }
  }
  cudaFree(a);
  cudaFree(b);
  cudaFree(out);
}

void arithmetic(const Sizes& z, int sms) {
  const int threads = 256, blocks = sms * 8;
  const size_t out_n = size_t(blocks) * threads;
  void* out;
  check(cudaMalloc(&out, out_n * sizeof(double)), "cudaMalloc");
  const double lanes = double(out_n);
  if (wanted("fp32")) {
    const float ms = median_ms(
        [&] { fma_chains<float><<<blocks, threads>>>(z.fma_steps, 0.999f, 0.001f, (float*)out); },
        z.reps);
    float first = 0;
    check(cudaMemcpy(&first, out, sizeof(float), cudaMemcpyDeviceToHost), "copy");
    figure("fp32_fma", lanes * z.fma_steps * 16 / (ms * 1e-3) / 1e12, "TFLOP/s", ms,
           std::isfinite(first));
  }
  if (wanted("fp64")) {
    const int steps = std::max(1, z.fma_steps / 4);
    const float ms = median_ms(
        [&] { fma_chains<double><<<blocks, threads>>>(steps, 0.999, 0.001, (double*)out); },
        z.reps);
    double first = 0;
    check(cudaMemcpy(&first, out, sizeof(double), cudaMemcpyDeviceToHost), "copy");
    figure("fp64_fma", lanes * steps * 16 / (ms * 1e-3) / 1e12, "TFLOP/s", ms,
           std::isfinite(first));
  }
  if (wanted("sfu")) {
    const float ms =
        median_ms([&] { sin_chains<<<blocks, threads>>>(z.sfu_steps, (float*)out); }, z.reps);
    float first = 0;
    check(cudaMemcpy(&first, out, sizeof(float), cudaMemcpyDeviceToHost), "copy");
    figure("sfu_sin", lanes * z.sfu_steps * 4 / (ms * 1e-3) / 1e12, "T ops/s", ms,
           std::isfinite(first));
  }
  if (wanted("fp64")) {
    const int steps = std::max(1, z.sfu_steps / 16);
    for (const bool log_chain : {false, true}) {
      const float ms = median_ms(
          [&] { fp64_calls<<<blocks, threads>>>(steps, log_chain, (double*)out); }, z.reps);
      double first = 0;
      check(cudaMemcpy(&first, out, sizeof(double), cudaMemcpyDeviceToHost), "copy");
      figure(log_chain ? "fp64_log" : "fp64_exp", lanes * steps * 4 / (ms * 1e-3) / 1e9,
             "G calls/s", ms, std::isfinite(first) && first > 0);
    }
  }
  if (wanted("chains")) {
    // One warp a multiprocessor, one chain a thread: ns a dependent step.
    const int steps = z.fma_steps * 4;  // 8 dependent operations each
    const auto chain_figure = [&](const char* name, auto zero, auto m, auto a) {
      using T = decltype(zero);
      const float ms = median_ms(
          [&] { dependent_chain<T><<<sms, 32>>>(steps, m, a, static_cast<T*>(out)); }, z.reps);
      T first = 0;
      check(cudaMemcpy(&first, out, sizeof(T), cudaMemcpyDeviceToHost), "copy");
      figure(name, ms * 1e6 / (double(steps) * 8), "ns", ms, std::isfinite(double(first)));
    };
    chain_figure("dependent_fp32", 0.0f, 0.999f, 0.001f);
    chain_figure("dependent_fp64", 0.0, 0.999, 0.001);
    chain_figure("dependent_int", 0u, 1664525u, 1013904223u);
  }
  if (wanted("switch")) {
    // The switch's turns: one warp a multiprocessor (ns a turn of a warp:
    // what a warp waits), then 64 (a multiprocessor's turns a second).
    const int steps = std::max(1, z.fma_steps / 32);
    const float alone =
        median_ms([&] { switch_turns<<<sms, 32>>>(steps, static_cast<float*>(out)); }, z.reps);
    float first = 0;
    check(cudaMemcpy(&first, out, sizeof(float), cudaMemcpyDeviceToHost), "copy");
    figure("switch_turn", alone * 1e6 / (double(steps) * 32), "ns", alone, std::isfinite(first));
    const float full = median_ms(
        [&] { switch_turns<<<blocks, threads>>>(steps, static_cast<float*>(out)); }, z.reps);
    check(cudaMemcpy(&first, out, sizeof(float), cudaMemcpyDeviceToHost), "copy");
    figure("switch_turns_multiprocessor",
           double(threads / 32) * (blocks / sms) * steps * 32 / (full * 1e-3) / 1e6, "M turns/s",
           full, std::isfinite(first));
  }
  if (wanted("constant")) {
    // Distinct addresses a second a multiprocessor, 64 warps on each.
    std::vector<float> table(1024);
    for (int k = 0; k < 1024; ++k) table[k] = 1.0f / float(k + 1);
    check(cudaMemcpyToSymbol(c_table, table.data(), sizeof(float) * 1024), "cudaMemcpyToSymbol");
    const int steps = std::max(4, z.fma_steps / 8);
    const float ms = median_ms(
        [&] { constant_reads<<<blocks, threads>>>(steps, static_cast<float*>(out)); }, z.reps);
    float first = 0;
    check(cudaMemcpy(&first, out, sizeof(float), cudaMemcpyDeviceToHost), "copy");
    figure("constant_addresses",
           double(threads / 32) * (blocks / sms) * steps * 32 / (ms * 1e-3) / 1e6,
           "M addresses/s a multiprocessor", ms, std::isfinite(first) && first > 0);
  }
  if (wanted("int")) {
    const float ms = median_ms(
        [&] {
          int_chains<<<blocks, threads>>>(z.fma_steps, 1664525u, 1013904223u, (unsigned*)out);
        },
        z.reps);
    figure("int_mad", lanes * z.fma_steps * 8 / (ms * 1e-3) / 1e12, "T ops/s", ms, true);
  }
  cudaFree(out);
}

void atomics(const Sizes& z, int sms) {
  if (!wanted("atomics")) return;
  const int threads = 256, blocks = sms * 8;
  const unsigned lanes = unsigned(blocks) * threads;
  unsigned* c;
  check(cudaMalloc(&c, lanes * sizeof(unsigned)), "cudaMalloc");
  std::vector<unsigned> got(lanes);
  // targets: every thread its own; one per 32 lanes; a single address.
  const struct {
    const char* name;
    unsigned targets;
  } kinds[] = {{"atomic_spread", lanes}, {"atomic_32_addresses", 32}, {"atomic_one_address", 1}};
  for (const auto& k : kinds) {
    const int times = k.targets == 1 ? std::max(1, z.atomic_times / 16) : z.atomic_times;
    check(cudaMemset(c, 0, lanes * sizeof(unsigned)), "cudaMemset");
    const float ms =
        median_ms([&] { atomic_adds<<<blocks, threads>>>(c, k.targets, times); }, z.reps);
    check(cudaMemcpy(got.data(), c, k.targets * sizeof(unsigned), cudaMemcpyDeviceToHost), "copy");
    uint64_t sum = 0;
    for (unsigned i = 0; i < k.targets; ++i) sum += got[i];
    // Two warm-ups and the timed launches, each adding lanes x times.
    const uint64_t want = uint64_t(lanes) * unsigned(times) * unsigned(z.reps + 2);
    figure(k.name, double(lanes) * times / (ms * 1e-3) / 1e9, "G atomics/s", ms, sum == want);
  }
  {
    // Floats on one address: adding 1.0f is exact up to 2^24, where the
    // sum stays (2^24 + 1 rounds back to 2^24).
    const int times = std::max(1, z.atomic_times / 64);
    float* f = reinterpret_cast<float*>(c);
    check(cudaMemset(f, 0, sizeof(float)), "cudaMemset");
    const float ms = median_ms([&] { atomic_float_adds<<<blocks, threads>>>(f, times); }, z.reps);
    float got_sum = 0;
    check(cudaMemcpy(&got_sum, f, sizeof(float), cudaMemcpyDeviceToHost), "copy");
    const double want = double(lanes) * times * (z.reps + 2);
    figure("atomic_float_one_address", double(lanes) * times / (ms * 1e-3) / 1e9, "G atomics/s", ms,
           got_sum == float(std::min(want, 16777216.0)));
  }
  check(cudaMemset(c, 0, 32 * sizeof(unsigned)), "cudaMemset");
  const float ms =
      median_ms([&] { shared_atomics<<<blocks, threads>>>(z.atomic_times, c); }, z.reps);
  check(cudaMemcpy(got.data(), c, 32 * sizeof(unsigned), cudaMemcpyDeviceToHost), "copy");
  uint64_t sum = 0;
  for (int i = 0; i < 32; ++i) sum += got[i];
  figure("shared_atomic", double(lanes) * z.atomic_times / (ms * 1e-3) / 1e9, "G atomics/s", ms,
         sum == uint64_t(lanes) * unsigned(z.atomic_times) * unsigned(z.reps + 2));
  cudaFree(c);
  // Floats in shared memory, each thread on its own counter and a warp's
  // lanes on one (fewer times: each lane waits for the others).
  float* f;
  check(cudaMalloc(&f, lanes * sizeof(float)), "cudaMalloc");
  std::vector<float> fgot(lanes);
  for (const bool spread : {true, false}) {
    const int times = spread ? z.atomic_times : std::max(1, z.atomic_times / 8);
    const float fms =
        median_ms([&] { shared_float_atomics<<<blocks, threads>>>(times, spread, f); }, z.reps);
    check(cudaMemcpy(fgot.data(), f, lanes * sizeof(float), cudaMemcpyDeviceToHost), "copy");
    bool right = true;
    for (int b = 0; b < blocks; ++b)
      right &= fgot[size_t(b) * threads] == float(spread ? times : 32 * times);
    figure(spread ? "shared_float_atomic" : "shared_float_atomic_one_address",
           double(lanes) * times / (fms * 1e-3) / 1e9, "G atomics/s", fms, right);
  }
  cudaFree(f);
}

// A chain through `bytes` of memory, a hop 128 bytes or more from the last,
// in an order that defeats prefetching (a random cycle over the lines).
// For L1 and L2 the warm-up launches walk the whole cycle first; DRAM's is
// far longer than all the launches' hops together.
void latency(const char* name, size_t bytes, int hops, int reps) {
  bytes = std::max<size_t>(bytes / 128, 2) * 128;  // whole lines, two at least
  const size_t words = bytes / sizeof(unsigned), lines = words / 32;
  std::vector<unsigned> next(words, 0), order(lines);
  for (size_t i = 0; i < lines; ++i) order[i] = unsigned(i);
  uint64_t seed = 88172645463325252ull;
  for (size_t i = lines - 1; i > 0; --i) {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    std::swap(order[i], order[seed % (i + 1)]);
  }
  for (size_t i = 0; i < lines; ++i) next[size_t(order[i]) * 32] = order[(i + 1) % lines] * 32;
  unsigned *d, *at;
  check(cudaMalloc(&d, bytes), "cudaMalloc");
  check(cudaMalloc(&at, sizeof(unsigned)), "cudaMalloc");
  check(cudaMemset(at, 0, sizeof(unsigned)), "cudaMemset");
  check(cudaMemcpy(d, next.data(), bytes, cudaMemcpyHostToDevice), "copy");
  const float ms = median_ms([&] { chase<<<1, 1>>>(d, hops, at); }, reps);
  unsigned end = 0;
  check(cudaMemcpy(&end, at, sizeof(unsigned), cudaMemcpyDeviceToHost), "copy");
  // Follow the chain on the host too: two warm-ups and the timed launches.
  unsigned i = 0;
  for (int h = 0; h < hops * (reps + 2); ++h) i = next[i];
  // Time per hop: a launch's own cost (launch_alone) is a few us against
  // hops x tens to hundreds of ns.
  figure(name, double(ms) * 1e6 / hops, "ns", ms, end == i);
  cudaFree(d);
  cudaFree(at);
}

void latencies_barriers_launches(const Sizes& z, int sms) {
  if (wanted("latency")) {
    latency("latency_l1", 16 << 10, z.hops, z.reps);
    latency("latency_l2", z.l2_bytes / 6, z.hops, z.reps);
    latency("latency_dram", z.dram_bytes, z.hops, z.reps);
  }
  if (wanted("barrier")) {
    float* out;
    check(cudaMalloc(&out, size_t(sms) * 2048 * sizeof(float)), "cudaMalloc");
    double want = 0;
    for (int k = 0; k < z.barrier_count; ++k) want += k & 3;
    // The time of one barrier: each of the blocks on a multiprocessor (2 of
    // 1024 threads, or 8 of 256) passes `count` of them, side by side.
    for (const int threads : {1024, 256}) {
      const int blocks = sms * 2048 / threads;
      const float ms =
          median_ms([&] { barriers<<<blocks, threads>>>(z.barrier_count, out); }, z.reps);
      float first = 0;
      check(cudaMemcpy(&first, out, sizeof(float), cudaMemcpyDeviceToHost), "copy");
      figure(threads == 1024 ? "barrier" : "barrier_256", double(ms) * 1e6 / z.barrier_count,
             threads == 1024 ? "ns (2 blocks of 1024 a multiprocessor)"
                             : "ns (8 blocks of 256 a multiprocessor)",
             ms, first == float(want));
    }
    cudaFree(out);
  }
  if (wanted("launch")) {
    // One launch between two events, as a student times a kernel.
    float ms = median_ms([&] { empty_kernel<<<1, 32>>>(); }, z.reps * 5);
    figure("launch_alone", double(ms) * 1e3, "us", ms, true);
    // Launches back to back: what each adds to a stream of them.
    ms = median_ms(
        [&] {
          for (int i = 0; i < z.launches; ++i) empty_kernel<<<1, 32>>>();
        },
        z.reps);
    figure("launch_in_a_stream", double(ms) * 1e3 / z.launches, "us", ms, true);
    // A full-GPU grid of empty blocks: what a block costs to start.
    ms = median_ms([&] { empty_kernel<<<sms * 64, 256>>>(); }, z.reps * 5);
    figure("launch_wide_grid", double(ms) * 1e3, "us (64 empty blocks of 256 a multiprocessor)", ms,
           true);
    // The same threads in blocks of 1024: what a large block costs to start.
    ms = median_ms([&] { empty_kernel<<<sms * 16, 1024>>>(); }, z.reps * 5);
    figure("launch_wide_grid_1024", double(ms) * 1e3,
           "us (16 empty blocks of 1024 a multiprocessor)", ms, true);
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      g_quick = true;
    } else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
      g_only = argv[++i];
    } else {
      std::fprintf(
          stderr,
          "usage: limits [--quick] [--only dram|l2|l1|scattered|loops|shared|fp32|fp64|sfu|int|"
          "atomics|"
          "latency|barrier|launch]\n"
          "Measures the limits of the GPU the time predictor uses; prints JSON.\n");
      return 2;
    }
  }
  cudaDeviceProp p;
  check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
  int runtime = 0, clock_khz = 0, memory_khz = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, 0);
  const int sms = g_quick ? 2 : p.multiProcessorCount;
  const Sizes z = g_quick ? Sizes{1 << 20, 1 << 18, 2, 2, 16, 8, 8, 2, 64, 8, 1, 4, 4, 1 << 14}
                          : Sizes{size_t(1) << 30,
                                  size_t(24) << 20,
                                  2000,
                                  100,
                                  16384,
                                  8192,
                                  4096,
                                  256,
                                  20000,
                                  20000,
                                  10,
                                  1000,
                                  64,
                                  4 << 20};
  std::printf(
      "{\n  \"device\": \"%s\",\n  \"multiprocessors\": %d,\n  \"clock_mhz\": %d,\n"
      "  \"memory_clock_mhz\": %d,\n  \"l2_bytes\": %d,\n  \"cuda_runtime\": %d,\n"
      "  \"quick\": %s,\n  \"figures\": {\n",
      p.name, p.multiProcessorCount, clock_khz / 1000, memory_khz / 1000, p.l2CacheSize, runtime,
      g_quick ? "true" : "false");
  bandwidths(z, sms);
  arithmetic(z, sms);
  atomics(z, sms);
  latencies_barriers_launches(z, sms);
  std::printf("\n  },\n  \"wrong_results\": %d\n}\n", g_failed);
  return g_failed ? 1 : 0;
}

// How CTest runs it (tests/lit/README.md): on the simulator at --quick
// sizes, where every kernel's result is checked (the times are the CPU's);
// the figures it prints are the ones every data file beside it holds. On a
// GPU, the full run.
// BUILD: TARGET gpu_limits PLAIN
// TEST: predict.calibration_kernels
// LABELS: unit
// RUN: %bin --quick > quick.json
// RUN: %python %S/check_data.py quick.json %S/*.json
// CHECK: calibration data: {{[0-9]+}} figures in each of {{[0-9]+}} files
//
// TEST: gpu.predict.calibration_kernels
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu > gpu.json
// RUN: %python %S/check_data.py gpu.json %S/*.json
// CHECK: calibration data: {{[0-9]+}} figures in each of {{[0-9]+}} files
