// Kernels of distinct character, none from the lessons, for checking
// predicted times against a GPU (predict/corpus/README.md): each is timed
// with CUDA events around one launch, the median of 10 after a warm-up,
// on a GPU; on the simulator `cudalab predict -- kernels` predicts each.
//   kernels [--quick] [--once]
// --quick: tiny sizes, for the simulator's CTest; --once: each kernel
// launched once and not timed (for a profiler such as Nsight Compute).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

bool g_quick = false, g_once = false;

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "kernels: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

// The median of 10 launches, each between two events, after a warm-up.
template <class Launch>
void time_it(const char* name, Launch launch) {
  launch();
  check(cudaDeviceSynchronize(), name);
  if (g_once) {
    std::printf("%s\n", name);
    return;
  }
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> ms;
  for (int r = 0; r < 10; ++r) {
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    check(cudaEventSynchronize(b), name);
    float t = 0;
    cudaEventElapsedTime(&t, a, b);
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%-24s %12.2f us\n", name, 1000.0 * ms[ms.size() / 2]);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
}

// 1. Copy, a thread an element: DRAM.
__global__ void copy_coalesced(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
// 2. A read every 32nd float: a sector for each lane.
__global__ void read_strided(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[(size_t(i) * 32) % size_t(n)];
}
// 3. A gather through an index array.
__global__ void gather(const float* in, const int* index, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[index[i]];
}
// 4. Double-precision axpy.
__global__ void daxpy(double a, const double* x, double* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
// 5, 6. 512 fused multiply-adds a thread in 8 independent chains: FP32 or
// FP64 throughput.
template <class T>
__global__ void fmas(T* out, T m) {
  T v[8];
  for (int k = 0; k < 8; ++k) v[k] = T(threadIdx.x + k);
  for (int s = 0; s < 64; ++s)
    for (int k = 0; k < 8; ++k) v[k] = v[k] * m + T(0.5);
  T sum = 0;
  for (int k = 0; k < 8; ++k) sum += v[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
// 7. __sinf in 4 chains: the special-function unit.
__global__ void sines(float* out) {
  float v[4];
  for (int k = 0; k < 4; ++k) v[k] = threadIdx.x * 0.001f + k;
  for (int s = 0; s < 64; ++s)
    for (int k = 0; k < 4; ++k) v[k] = __sinf(v[k]);
  out[blockIdx.x * blockDim.x + threadIdx.x] = v[0] + v[1] + v[2] + v[3];
}
// 8. Every thread adds to one counter.
__global__ void atomic_one(unsigned* counter) { atomicAdd(counter, 1u); }
// 9. Every thread adds to its own counter.
__global__ void atomic_own(unsigned* counters) {
  atomicAdd(&counters[blockIdx.x * blockDim.x + threadIdx.x], 1u);
}
// 10. A histogram of random bytes into 256 global bins.
__global__ void bins_256(const unsigned char* data, unsigned* bins, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i]], 1u);
}
// 11. Half of each warp's lanes take a long path.
__global__ void divergent(float* out) {
  float v = threadIdx.x;
  if (threadIdx.x % 2)
    for (int s = 0; s < 256; ++s) v = v * 0.999f + 1.0f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
// 12. One thread follows a chain of 20,000 random loads.
__global__ void chase(const int* next, int* end, int hops) {
  int at = 0;
#pragma unroll 1
  for (int k = 0; k < hops; ++k) at = next[at];
  *end = at;
}
// 13. One block of 32 threads streams through 4M floats.
__global__ void few_threads(const float* in, float* out, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = in[i] * 2.0f;
}
// 14, 15. Shared-memory loads, all 32 lanes in one bank (a stride of 32
// words), or in 32 banks.
template <int Stride>
__global__ void shared_loads(float* out, int iterations) {
  __shared__ float s[32 * 33];
  for (int i = threadIdx.x; i < 32 * 33; i += blockDim.x) s[i] = i;
  __syncthreads();
  float sum = 0;
  const int lane = threadIdx.x % 32;
  for (int k = 0; k < iterations; ++k) sum += s[(lane * Stride + k) % (32 * 33)];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
// 16. A barrier each time round a short loop.
__global__ void barrier_loop(float* out, int rounds) {
  __shared__ float s[256];
  float v = threadIdx.x;
  for (int r = 0; r < rounds; ++r) {
    s[threadIdx.x] = v;
    __syncthreads();
    v = s[(threadIdx.x + 1) % 256] * 0.5f;
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
// 17. A block's sum by a tree in shared memory.
__global__ void block_sums(const float* in, float* out) {
  __shared__ float s[256];
  s[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (unsigned w = 128; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
// 18. A 1D stencil of radius 3 through shared memory.
__global__ void stencil(const float* in, float* out, int n) {
  __shared__ float s[256 + 6];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x + 3] = in[i];
  if (threadIdx.x < 3) {
    s[threadIdx.x] = i >= 3 ? in[i - 3] : 0;
    s[threadIdx.x + 259] = i + 256 < n ? in[i + 256] : 0;
  }
  __syncthreads();
  float sum = 0;
  for (int k = 0; k < 7; ++k) sum += s[threadIdx.x + k];
  out[i] = sum / 7;
}
// 19. A transpose of 4096^2 floats, writes down columns.
__global__ void transpose_columns(const float* in, float* out, int n) {
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) out[size_t(x) * n + y + j] = in[size_t(y + j) * n + x];
}
// 20. A matrix-vector product, a thread a row (rows read across lanes).
__global__ void matvec_rows(const float* a, const float* x, float* y, int n) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  float sum = 0;
  for (int k = 0; k < n; ++k) sum += a[size_t(row) * n + k] * x[k];
  y[row] = sum;
}
// 21. Integer hashing, a thread an element.
__global__ void hashes(unsigned* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned h = i;
  for (int r = 0; r < 32; ++r) h = (h ^ (h >> 13)) * 0x5bd1e995u + r;
  out[i] = h;
}
// 22. A grid-stride copy on a small grid: two blocks a multiprocessor.
__global__ void copy_small_grid(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = in[i];
}

// 23. The same copy on the small grid with __restrict__ pointers: a
// thread's next load need not wait for its store.
__global__ void copy_small_grid_restrict(const float* __restrict__ in, float* __restrict__ out,
                                         int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = in[i];
}
// 24. A sum by a thread of a grid-stride stretch (loads only), one block
// a multiprocessor.
__global__ void sum_few_blocks(const float* in, float* out, int n) {
  float s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    s += in[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
// 25, 26. One field of four: from an array of structures (16-byte steps
// across lanes) or from a structure of arrays (one array of it).
struct Particle {
  float x, y, z, w;
};
__global__ void field_of_structs(const Particle* p, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = p[i].x * 2.0f;
}
__global__ void field_of_arrays(const float* x, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] * 2.0f;
}
// 27. A five-point stencil on a 4096^2 grid, a thread a cell, no shared
// memory.
__global__ void stencil_2d(const float* in, float* out, int n) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < 1 || y < 1 || x >= n - 1 || y >= n - 1) return;
  const size_t i = size_t(y) * n + x;
  out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - n] + in[i + n]) - in[i];
}
// 28. A block's sum by warp shuffles (then shared memory for the warps').
__global__ void block_sums_shuffle(const float* in, float* out) {
  __shared__ float warp_sums[8];
  float v = in[blockIdx.x * 256 + threadIdx.x];
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < 8 ? warp_sums[threadIdx.x] : 0;
    for (int d = 4; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
}
// 29. The 256-bin histogram with a block's bins in shared memory first.
__global__ void bins_256_shared(const unsigned char* data, unsigned* bins, int n) {
  __shared__ unsigned local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
// 30. Integer division and remainder by a divisor known only at run time.
__global__ void divisions(unsigned* out, unsigned divisor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = unsigned(i) * 2654435761u, acc = 0;
  for (int r = 0; r < 16; ++r) {
    acc += v % divisor;
    v = v / divisor + acc;
  }
  out[i] = acc;
}
// 31. Double-precision exp and log (library calls, not the special unit).
__global__ void exp_log_fp64(const double* x, double* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = exp(x[i]) + log(x[i] + 1.0);
}
// 32. Each thread scales a row of 64 floats it owns (lanes 256 bytes
// apart: every load a sector alone in its line).
__global__ void rows_per_thread(float* a, int rows) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  for (int k = 0; k < 64; ++k) a[size_t(r) * 64 + k] *= 1.5f;
}
// 33. A copy through a 32 x 32 tile of shared memory, a block of 1024
// threads a tile (two blocks a multiprocessor at most), and
// 34. the same copy by blocks of 256, each thread four rows of the tile.
__global__ void tile_copy_1024(const float* in, float* out, int width) {
  __shared__ float tile[32][32];
  const size_t at = (size_t(blockIdx.y) * 32 + threadIdx.y) * width + blockIdx.x * 32 + threadIdx.x;
  tile[threadIdx.y][threadIdx.x] = in[at];
  __syncthreads();
  out[at] = tile[threadIdx.y][threadIdx.x] * 2.0f;
}
__global__ void tile_copy_256(const float* in, float* out, int width) {
  __shared__ float tile[32][32];
  const size_t first = size_t(blockIdx.y) * 32 * width + blockIdx.x * 32 + threadIdx.x;
  for (int r = threadIdx.y; r < 32; r += 8) tile[r][threadIdx.x] = in[first + size_t(r) * width];
  __syncthreads();
  for (int r = threadIdx.y; r < 32; r += 8)
    out[first + size_t(r) * width] = tile[r][threadIdx.x] * 2.0f;
}
// 35. A block's sum by a tree in shared memory, blocks of 1024 (ten
// barriers a block).
__global__ void block_sums_1024(const float* in, float* out) {
  __shared__ float s[1024];
  s[threadIdx.x] = in[blockIdx.x * 1024 + threadIdx.x];
  __syncthreads();
  for (unsigned w = 512; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
// 36. Every thread adds its float to one total: the lanes' float atomics
// on one address, each in its turn.
__global__ void atomic_float_sum(const float* in, float* total) {
  atomicAdd(total, in[blockIdx.x * blockDim.x + threadIdx.x]);
}
// 37. The same with integers, which nvcc adds up across the warp first.
__global__ void atomic_int_sum(const int* in, int* total) {
  atomicAdd(total, in[blockIdx.x * blockDim.x + threadIdx.x]);
}
// 38. Each block sums 16 floats a thread into one total in shared memory
// with atomicAdd (a compare-and-swap loop on a GPU, its lanes in turn),
// then writes it out.
__global__ void shared_float_total(const float* in, float* out) {
  __shared__ float total;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  for (int k = 0; k < 16; ++k) atomicAdd(&total, in[(blockIdx.x * 16 + k) * 256 + threadIdx.x]);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}

// 39. powf in a chain (the C library's accurate one: tens of instructions
// a call on a GPU).
__global__ void powf_chain(float* out, int iters) {
  float x = threadIdx.x * 0.001f + 1.0f;
  for (int k = 0; k < iters; ++k) x = powf(x, 0.99f) + 0.5f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
// 40. A float division and square root in a chain.
__global__ void div_sqrt_fp32(float* out, int iters) {
  float x = threadIdx.x + 1.0f;
  for (int k = 0; k < iters; ++k) x = sqrtf(x / (x + 1.5f)) + 1.0f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
// 41. The same in double precision.
__global__ void div_sqrt_fp64(double* out, int iters) {
  double x = threadIdx.x + 1.0;
  for (int k = 0; k < iters; ++k) x = sqrt(x / (x + 1.5)) + 1.0;
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
// 42. A switch whose case each lane takes changes at every iteration: the
// warp runs nine paths an iteration.
__global__ void switch_paths(float* out, int iters) {
  float x = threadIdx.x;
  for (int k = 0; k < iters; ++k) {
    switch ((threadIdx.x + k) & 31) {
      case 0:
        x = x * 1.01f + 1;
        break;
      case 1:
        x = x * 0.99f + 2;
        break;
      case 2:
        x = x * 1.02f - 1;
        break;
      case 3:
        x = x * 0.98f + 3;
        break;
      case 4:
        x = x + 5;
        break;
      case 5:
        x = x * 1.5f;
        break;
      case 6:
        x = x - 7;
        break;
      case 7:
        x = x * 0.5f + 1;
        break;
      default:
        x = x * 1.001f + (threadIdx.x & 7);
        break;
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

// 43. One warp, each lane a chain of multiply-adds, each waiting for the
// one before: the latency of a dependent instruction, nothing to hide it.
__global__ void fma_chain(float* out, int steps) {
  float x = threadIdx.x * 0.001f;
  for (int s = 0; s < steps; ++s) x = x * 0.9999f + 0.0001f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
// 44. Integer hashing, a long chain a thread, two warps a multiprocessor.
__global__ void hash_chain(unsigned* out, int rounds) {
  unsigned h = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < rounds; ++r) h = (h ^ (h >> 13)) * 0x5bd1e995u + r;
  out[blockIdx.x * blockDim.x + threadIdx.x] = h;
}
// 45. One thread sums an array, as a first CUDA program may.
__global__ void one_thread_sum(const float* in, float* out, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) s += in[i];
  *out = s;
}
// 46. A chain of double multiply-adds, four warps a multiprocessor.
__global__ void fp64_chain(double* out, int steps) {
  double x = threadIdx.x * 0.001;
  for (int s = 0; s < steps; ++s) x = x * 0.9999 + 0.0001;
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

// 47, 48. A 1D convolution with a filter of 17 taps in __constant__
// memory: its radius a kernel argument (the loop's count known when it
// runs), or fixed when compiled (nvcc unrolls the loop).
__constant__ float c_filter[17];
__global__ void conv_constant(const float* in, float* out, int n, int radius) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < radius || i >= n - radius) return;
  float s = 0;
  for (int j = -radius; j <= radius; ++j) s += c_filter[j + radius] * in[i + j];
  out[i] = s;
}
constexpr int kRadius = 8;
__global__ void conv_constant_fixed(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kRadius || i >= n - kRadius) return;
  float s = 0;
  for (int j = -kRadius; j <= kRadius; ++j) s += c_filter[j + kRadius] * in[i + j];
  out[i] = s;
}
// 49. An if / else-if ladder on a thread's index modulo 4, some work a
// rung: the lanes of a warp take all four.
__global__ void ladder_4(float* out, int iters) {
  float x = threadIdx.x;
  const int c = threadIdx.x % 4;
  for (int k = 0; k < iters; ++k) {
    if (c == 0) {
      x = x * 1.01f + 1;
      x = x * 0.99f + 2;
    } else if (c == 1) {
      x = x * 0.98f + 3;
      x = x * 1.02f - 1;
    } else if (c == 2) {
      x = x * 1.5f - 2;
      x = x * 0.5f + 1;
    } else {
      x = x - 7;
      x = x * 1.001f;
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

// 51. A copy of float4s, a thread four floats: wide loads and stores.
__global__ void copy_float4(const float4* in, float4* out, int n4) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) out[i] = in[i];
}
// 52. A copy that reads one float further on: each warp's 128 bytes start
// 4 bytes into a line and end in the next one (misaligned loads).
__global__ void copy_offset(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1) out[i] = in[i + 1];
}
// 53. A sparse matrix times a vector (CSR), a thread a row: rows of 0 to 63
// entries at random columns, so a warp's lanes loop different counts and
// gather from anywhere.
__global__ void spmv_csr_thread(const int* row_start, const int* cols, const float* values,
                                const float* x, float* y, int rows) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0;
  for (int k = row_start[r]; k < row_start[r + 1]; ++k) s += values[k] * x[cols[k]];
  y[r] = s;
}
// 54. The same product, a warp a row: its lanes take every 32nd entry, then
// add up across the warp with shuffles.
__global__ void spmv_csr_warp(const int* row_start, const int* cols, const float* values,
                              const float* x, float* y, int rows) {
  const int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (r >= rows) return;
  float s = 0;
  for (int k = row_start[r] + lane; k < row_start[r + 1]; k += 32) s += values[k] * x[cols[k]];
  for (int d = 16; d > 0; d /= 2) s += __shfl_down_sync(0xffffffffu, s, d);
  if (lane == 0) y[r] = s;
}
// 55. All-pairs gravity: each thread one body, the others read a tile of
// 256 at a time through shared memory; rsqrtf and multiply-adds.
__global__ void nbody_tiles(const float4* bodies, float4* accel, int n) {
  __shared__ float4 tile[256];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 me = bodies[i];
  float ax = 0, ay = 0, az = 0;
  for (int first = 0; first < n; first += 256) {
    tile[threadIdx.x] = bodies[first + threadIdx.x];
    __syncthreads();
    for (int j = 0; j < 256; ++j) {
      const float dx = tile[j].x - me.x, dy = tile[j].y - me.y, dz = tile[j].z - me.z;
      const float inv = rsqrtf(dx * dx + dy * dy + dz * dz + 0.01f);
      const float f = tile[j].w * inv * inv * inv;
      ax += f * dx;
      ay += f * dy;
      az += f * dz;
    }
    __syncthreads();
  }
  accel[i] = make_float4(ax, ay, az, 0);
}
// 56. A 7-point stencil on a cube, a thread a cell (blocks of 32 x 8 in a
// plane): its neighbours a row, a plane away.
__global__ void stencil_3d(const float* in, float* out, int side) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y,
            z = blockIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= side - 1 || y >= side - 1 || z >= side - 1) return;
  const size_t plane = size_t(side) * side, i = z * plane + size_t(y) * side + x;
  out[i] = 0.4f * in[i] + 0.1f * (in[i - 1] + in[i + 1] + in[i - side] + in[i + side] +
                                  in[i - plane] + in[i + plane]);
}
// 57. Each thread counts 64 bytes into 16 bins of its own, an array it
// indexes by the data (local memory on a GPU), then adds them to the
// global bins.
__global__ void local_bins(const unsigned char* data, unsigned* bins, int n) {
  unsigned mine[16] = {};
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) ++mine[data[i] & 15];
  for (int b = 0; b < 16; ++b)
    if (mine[b]) atomicAdd(&bins[b], mine[b]);
}
// 58. Every thread's double added to one total (FP64 atomics, one address).
__global__ void atomic_double_sum(const double* in, double* total) {
  atomicAdd(total, in[blockIdx.x * blockDim.x + threadIdx.x]);
}
// 59. Counting the elements above a half: a warp's vote, its count, one
// atomic a warp.
__global__ void ballot_count(const float* in, unsigned* count, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned above = __ballot_sync(0xffffffffu, i < n && in[i] > 0.5f);
  if (threadIdx.x % 32 == 0 && above) atomicAdd(count, unsigned(__popc(above)));
}
// 60. One step of a bitonic sort: each thread whose partner (its index xor
// j) is above it compares and swaps the pair; half the threads idle.
__global__ void bitonic_step(float* a, int j, int k) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, partner = i ^ j;
  if (partner <= i) return;
  const float x = a[i], y = a[partner];
  const bool up = (i & k) == 0;
  if ((x > y) == up) {
    a[i] = y;
    a[partner] = x;
  }
}
// 61. A double-precision matrix product through 16 x 16 tiles of shared
// memory.
__global__ void matmul_fp64_tiled(const double* a, const double* b, double* c, int n) {
  __shared__ double ta[16][16], tb[16][16];
  const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  double s = 0;
  for (int t = 0; t < n; t += 16) {
    ta[threadIdx.y][threadIdx.x] = a[size_t(row) * n + t + threadIdx.x];
    tb[threadIdx.y][threadIdx.x] = b[size_t(t + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k) s += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  c[size_t(row) * n + col] = s;
}
// 62. Blocks that each hold 40 KiB of shared memory (5 blocks a
// multiprocessor at most): the block stages 10,240 floats, then each
// thread sums 40 of them, a block's width apart.
__global__ void big_shared_blocks(const float* in, float* out) {
  __shared__ float stage[10240];
  const float* mine = in + size_t(blockIdx.x) * 10240;
  for (int k = threadIdx.x; k < 10240; k += 256) stage[k] = mine[k];
  __syncthreads();
  float s = 0;
  for (int k = 0; k < 40; ++k) s += stage[(threadIdx.x * 41 + k * 256) % 10240];
  out[blockIdx.x * 256 + threadIdx.x] = s;
}
// 63. Collatz's steps from each thread's number: loops of different
// lengths in one warp, integer work.
__global__ void collatz_steps(unsigned* steps, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long x = unsigned(i) + 1;
  unsigned count = 0;
  while (x != 1) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++count;
  }
  steps[i] = count;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      g_quick = true;
    } else if (!std::strcmp(argv[i], "--once")) {
      g_once = true;
    } else {
      std::fprintf(stderr, "usage: kernels [--quick] [--once]\n");
      return 2;
    }
  }
  const int n = g_quick ? 1 << 14 : 1 << 26;        // floats of the streaming kernels
  const int square = g_quick ? 128 : 4096;          // the transpose's and matvec's size
  const int threads = g_quick ? 1 << 12 : 1 << 22;  // threads of the compute kernels
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "attribute");
  float *fa, *fb, *fc;
  double *da, *db;
  int *index, *next, *end;
  unsigned *counters, *bins;
  unsigned char* bytes;
  const size_t big = size_t(std::max(n, square * square));
  check(cudaMalloc(&fa, big * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&fb, big * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&fc, big * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&da, n * sizeof(double)), "cudaMalloc");
  check(cudaMalloc(&db, n * sizeof(double)), "cudaMalloc");
  check(cudaMalloc(&index, n * sizeof(int)), "cudaMalloc");
  check(cudaMalloc(&next, n * sizeof(int)), "cudaMalloc");
  check(cudaMalloc(&end, sizeof(int)), "cudaMalloc");
  check(cudaMalloc(&counters, size_t(threads) * sizeof(unsigned)), "cudaMalloc");
  check(cudaMalloc(&bins, 256 * sizeof(unsigned)), "cudaMalloc");
  check(cudaMalloc(&bytes, n), "cudaMalloc");
  {
    // Random indices, a random chain, random bytes (a fixed seed).
    std::vector<int> h(n);
    unsigned s = 12345;
    auto rnd = [&] { return s = s * 1664525u + 1013904223u; };
    for (int i = 0; i < n; ++i) h[i] = int(rnd() % unsigned(n));
    check(cudaMemcpy(index, h.data(), n * sizeof(int), cudaMemcpyHostToDevice), "copy");
    check(cudaMemcpy(next, h.data(), n * sizeof(int), cudaMemcpyHostToDevice), "copy");
    std::vector<unsigned char> b(n);
    for (int i = 0; i < n; ++i) b[i] = (unsigned char)(rnd() >> 24);
    check(cudaMemcpy(bytes, b.data(), n, cudaMemcpyHostToDevice), "copy");
  }
  check(cudaMemset(fa, 0, big * sizeof(float)), "cudaMemset");
  check(cudaMemset(fc, 0, big * sizeof(float)), "cudaMemset");
  check(cudaMemset(da, 0, n * sizeof(double)), "cudaMemset");
  check(cudaMemset(db, 0, n * sizeof(double)), "cudaMemset");
  const int blocks = (n + 255) / 256, compute_blocks = threads / 256;
  time_it("copy_coalesced", [&] { copy_coalesced<<<blocks, 256>>>(fa, fb, n); });
  time_it("read_strided", [&] { read_strided<<<blocks, 256>>>(fa, fb, n); });
  time_it("gather", [&] { gather<<<blocks, 256>>>(fa, index, fb, n); });
  time_it("daxpy", [&] { daxpy<<<blocks, 256>>>(2.0, da, db, n); });
  time_it("fma_fp32", [&] { fmas<float><<<compute_blocks, 256>>>(fb, 0.999f); });
  time_it("fma_fp64", [&] { fmas<double><<<compute_blocks, 256>>>(db, 0.999); });
  time_it("sines", [&] { sines<<<compute_blocks, 256>>>(fb); });
  time_it("atomic_one", [&] { atomic_one<<<compute_blocks / 16, 256>>>(counters); });
  time_it("atomic_own", [&] { atomic_own<<<compute_blocks, 256>>>(counters); });
  time_it("bins_256", [&] { bins_256<<<blocks, 256>>>(bytes, bins, n); });
  time_it("divergent", [&] { divergent<<<compute_blocks, 256>>>(fb); });
  time_it("chase", [&] { chase<<<1, 1>>>(next, end, g_quick ? 100 : 20000); });
  time_it("few_threads", [&] { few_threads<<<1, 32>>>(fa, fb, g_quick ? 4096 : 1 << 22); });
  time_it("shared_conflicts", [&] { shared_loads<32><<<compute_blocks, 256>>>(fb, 64); });
  time_it("shared_no_conflicts", [&] { shared_loads<1><<<compute_blocks, 256>>>(fb, 64); });
  time_it("barrier_loop", [&] { barrier_loop<<<compute_blocks, 256>>>(fb, 32); });
  time_it("block_sums", [&] { block_sums<<<n / 256, 256>>>(fa, fb); });
  time_it("stencil", [&] { stencil<<<n / 256, 256>>>(fa, fb, n); });
  time_it("transpose_columns", [&] {
    transpose_columns<<<dim3(square / 32, square / 32), dim3(32, 8)>>>(fa, fc, square);
  });
  time_it("matvec_rows",
          [&] { matvec_rows<<<std::max(1, square / 256), 256>>>(fa, fb, fc, square); });
  time_it("hashes", [&] { hashes<<<compute_blocks, 256>>>(counters, threads); });
  time_it("copy_small_grid", [&] { copy_small_grid<<<sms * 2, 256>>>(fa, fb, n); });
  time_it("copy_small_grid_restrict",
          [&] { copy_small_grid_restrict<<<sms * 2, 256>>>(fa, fb, n); });
  time_it("sum_few_blocks", [&] { sum_few_blocks<<<std::min(sms, n / 256), 256>>>(fa, fb, n); });
  time_it("field_of_structs", [&] {
    field_of_structs<<<blocks / 4, 256>>>(reinterpret_cast<const Particle*>(fa), fb, n / 4);
  });
  time_it("field_of_arrays", [&] { field_of_arrays<<<blocks / 4, 256>>>(fa, fb, n / 4); });
  time_it("stencil_2d",
          [&] { stencil_2d<<<dim3((square + 255) / 256, square), 256>>>(fa, fc, square); });
  time_it("block_sums_shuffle", [&] { block_sums_shuffle<<<n / 256, 256>>>(fa, fb); });
  time_it("bins_256_shared", [&] { bins_256_shared<<<sms * 4, 256>>>(bytes, bins, n); });
  time_it("divisions", [&] { divisions<<<compute_blocks, 256>>>(counters, 7919u, threads); });
  time_it("exp_log_fp64", [&] { exp_log_fp64<<<blocks / 4, 256>>>(da, db, n / 4); });
  time_it("rows_per_thread", [&] { rows_per_thread<<<(n / 64 + 255) / 256, 256>>>(fc, n / 64); });
  const dim3 tiles(square / 32, square / 32);
  time_it("tile_copy_1024", [&] { tile_copy_1024<<<tiles, dim3(32, 32)>>>(fa, fb, square); });
  time_it("tile_copy_256", [&] { tile_copy_256<<<tiles, dim3(32, 8)>>>(fa, fb, square); });
  time_it("block_sums_1024", [&] { block_sums_1024<<<n / 1024, 1024>>>(fa, fb); });
  time_it("atomic_float_sum", [&] { atomic_float_sum<<<compute_blocks / 16, 256>>>(fa, fb); });
  time_it("shared_float_total", [&] { shared_float_total<<<n / 4096, 256>>>(fa, fb); });
  const int iters = g_quick ? 4 : 256;
  time_it("powf_chain", [&] { powf_chain<<<compute_blocks / 8, 256>>>(fb, iters); });
  time_it("div_sqrt_fp32", [&] { div_sqrt_fp32<<<compute_blocks / 8, 256>>>(fb, 2 * iters); });
  time_it("div_sqrt_fp64", [&] { div_sqrt_fp64<<<compute_blocks / 8, 256>>>(db, iters); });
  time_it("switch_paths", [&] { switch_paths<<<compute_blocks / 8, 256>>>(fb, 2 * iters); });
  time_it("atomic_int_sum", [&] {
    atomic_int_sum<<<compute_blocks / 16, 256>>>(index, reinterpret_cast<int*>(counters));
  });
  const int chain = g_quick ? 64 : 1 << 18;
  time_it("fma_chain_one_warp", [&] { fma_chain<<<1, 32>>>(fb, chain); });
  time_it("fma_chain_four_blocks", [&] { fma_chain<<<4, 1024>>>(fb, chain / 8); });
  time_it("hash_chain",
          [&] { hash_chain<<<std::min(sms, threads / 64), 64>>>(counters, chain / 4); });
  time_it("one_thread_sum", [&] { one_thread_sum<<<1, 1>>>(fa, fb, g_quick ? 256 : 1 << 18); });
  time_it("fp64_chain", [&] { fp64_chain<<<std::min(sms, n / 128), 128>>>(db, chain / 8); });
  {
    float taps[17];
    for (int k = 0; k < 17; ++k) taps[k] = 1.0f / float(1 + (k > 8 ? 16 - k : k));
    check(cudaMemcpyToSymbol(c_filter, taps, sizeof(taps)), "cudaMemcpyToSymbol");
  }
  time_it("conv_constant", [&] { conv_constant<<<blocks, 256>>>(fa, fb, n, kRadius); });
  time_it("conv_constant_fixed", [&] { conv_constant_fixed<<<blocks, 256>>>(fa, fb, n); });
  time_it("ladder_4", [&] { ladder_4<<<compute_blocks / 8, 256>>>(fb, 2 * iters); });
  // The kernels of the round of 2026-12-02: a CSR matrix of n / 32 rows of
  // 0 to 63 entries (their columns the random index array), random floats,
  // a cube, bodies.
  const int rows = n / 32;
  int* row_start;
  float* randoms;
  check(cudaMalloc(&row_start, (rows + 1) * sizeof(int)), "cudaMalloc");
  check(cudaMalloc(&randoms, n * sizeof(float)), "cudaMalloc");
  {
    std::vector<int> starts(rows + 1);
    unsigned s = 777;
    auto rnd = [&] { return s = s * 1664525u + 1013904223u; };
    for (int r = 0; r < rows; ++r) starts[r + 1] = std::min(n, starts[r] + int((rnd() >> 8) % 64));
    check(cudaMemcpy(row_start, starts.data(), starts.size() * sizeof(int), cudaMemcpyHostToDevice),
          "copy");
    std::vector<float> f(n);
    for (float& v : f) v = float(rnd() >> 8) / float(1 << 24);
    check(cudaMemcpy(randoms, f.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy");
  }
  time_it("copy_float4", [&] {
    copy_float4<<<blocks / 4, 256>>>(reinterpret_cast<const float4*>(randoms),
                                     reinterpret_cast<float4*>(fb), n / 4);
  });
  time_it("copy_offset", [&] { copy_offset<<<blocks, 256>>>(randoms, fb, n); });
  time_it("spmv_csr_thread", [&] {
    spmv_csr_thread<<<(rows + 255) / 256, 256>>>(row_start, index, randoms, fa, fb, rows);
  });
  time_it("spmv_csr_warp",
          [&] { spmv_csr_warp<<<rows / 8, 256>>>(row_start, index, randoms, fa, fb, rows); });
  const int bodies = g_quick ? 1024 : 32768;
  time_it("nbody_tiles", [&] {
    nbody_tiles<<<bodies / 256, 256>>>(reinterpret_cast<const float4*>(randoms),
                                       reinterpret_cast<float4*>(fb), bodies);
  });
  const int side = g_quick ? 24 : 256;
  time_it("stencil_3d", [&] {
    stencil_3d<<<dim3((side + 31) / 32, side / 8, side), dim3(32, 8)>>>(randoms, fb, side);
  });
  time_it("local_bins", [&] { local_bins<<<n / 64 / 256, 256>>>(bytes, bins, n); });
  time_it("atomic_double_sum", [&] { atomic_double_sum<<<compute_blocks / 16, 256>>>(da, db); });
  time_it("ballot_count", [&] { ballot_count<<<blocks, 256>>>(randoms, counters, n); });
  time_it("bitonic_step", [&] { bitonic_step<<<blocks, 256>>>(fc, 1 << 10, 1 << 11); });
  const int dim = g_quick ? 64 : 1024;
  time_it("matmul_fp64_tiled", [&] {
    matmul_fp64_tiled<<<dim3(dim / 16, dim / 16), dim3(16, 16)>>>(da, db, da + dim * dim, dim);
  });
  time_it("big_shared_blocks", [&] { big_shared_blocks<<<n / 10240, 256>>>(randoms, fb); });
  time_it("collatz_steps", [&] { collatz_steps<<<compute_blocks, 256>>>(counters, threads); });
  check(cudaDeviceSynchronize(), "the kernels");
  return 0;
}

// The tests of this file (tests/lit/README.md): on the simulator, at tiny
// sizes, every kernel runs and is timed, and each gets a prediction or the
// model's reason for none; on a GPU, every kernel runs.
// BUILD: TARGET predict_corpus
// TEST: predict.corpus_kernels
// LABELS: unit
// RUN: %bin --quick
// CHECK: copy_coalesced
// CHECK: collatz_steps
// RUN: %cudalab predict -- %bin --quick | grep -c " on the GPU ("
// CHECK: {{^}}63{{$}}
//
// TEST: gpu.predict.corpus_kernels
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu --quick
// CHECK: collatz_steps
