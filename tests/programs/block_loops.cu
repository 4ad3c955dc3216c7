// Kernels that wait at __syncthreads() and at warp operations in the ways
// course and library code does, each checked against the CPU. The plain
// build runs such a block as loops over its threads
// (simulator/passes/block_loops.cpp); CTest runs this program with them and
// with CUDALAB_BLOCK_LOOPS=off (a fiber per thread), and both must print the
// same but for the last line, which says which ran.
#include <cooperative_groups.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                \
  do {                                                                             \
    cudaError_t e = (call);                                                        \
    if (e != cudaSuccess) {                                                        \
      std::printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));       \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

int failures = 0;
void expect(bool ok, const char* what) {
  std::printf("%-58s %s\n", what, ok ? "ok" : "WRONG");
  failures += !ok;
}

// A tree reduction in shared memory: a barrier in a loop whose trip count
// depends on blockDim.
__global__ void reduce_sum(const int* in, int* out, int n) {
  extern __shared__ int partial[];
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < unsigned(n) ? in[i] : 0;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

// A tiled transpose: 2D blocks, values kept in registers across a barrier.
constexpr int kTile = 8;
__global__ void transpose(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  const int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
  __syncthreads();
  const int tx = blockIdx.y * kTile + threadIdx.x, ty = blockIdx.x * kTile + threadIdx.y;
  if (tx < rows && ty < cols) out[ty * rows + tx] = tile[threadIdx.x][threadIdx.y];
}

// A private array and a local whose address a helper takes, both alive
// across barriers; a 3D block whose size is not a multiple of a warp.
__device__ __attribute__((noinline)) void bump(int* v, int by) { *v += by; }
__global__ void private_state(int* out) {
  __shared__ int seen[7 * 5 * 3];
  const int t = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
  int mine[6];
  for (int k = 0; k < 6; ++k) mine[k] = t * 10 + k;
  int counter = t;
  seen[t] = t;
  __syncthreads();
  bump(&counter, seen[(t + 1) % (7 * 5 * 3)]);
  __syncthreads();
  seen[t] = counter;
  __syncthreads();
  int sum = 0;
  for (int k = 0; k < 6; ++k) sum += mine[k];
  out[blockIdx.x * (7 * 5 * 3) + t] = sum + seen[(t + 2) % (7 * 5 * 3)];
}

// Threads past the end return before the barrier (common in course code,
// undefined by CUDA's rules, and run as on a GPU: the rest wait for each
// other only).
__global__ void early_return(const int* in, int* out, int n) {
  __shared__ int left[256];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  left[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = threadIdx.x > 0 ? left[threadIdx.x - 1] : -1;
}

// A barrier in a device function that the compiler inlines, a barrier in
// one it does not (the fibers keep that kernel), and a Hillis-Steele scan
// with a double buffer.
__device__ __forceinline__ void stage(int* buf, int from, int offset, int t) {
  const int v = buf[from * 64 + t] + (t >= offset ? buf[from * 64 + t - offset] : 0);
  buf[(1 - from) * 64 + t] = v;
  __syncthreads();
}
__global__ void scan64(const int* in, int* out) {
  __shared__ int buf[2 * 64];
  const int t = threadIdx.x;
  buf[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  int from = 0;
  for (int offset = 1; offset < 64; offset *= 2, from = 1 - from) stage(buf, from, offset, t);
  out[blockIdx.x * 64 + t] = buf[from * 64 + t];
}
__device__ __attribute__((noinline)) void wait_here() { __syncthreads(); }
__global__ void barrier_in_call(int* out) {
  __shared__ int v[32];
  v[threadIdx.x] = threadIdx.x;
  wait_here();
  out[threadIdx.x] = v[31 - threadIdx.x];
}

// A march along z, as 3D stencils do it: each thread keeps the planes
// behind and in front of it in a queue of registers that shifts each step,
// and a loop unrolled by 9 whose trip count is not a multiple of 9 (the
// values a loop's last steps carry across its barriers).
constexpr int kReach = 3;
__global__ void z_march(const float* in, float* out, int planes) {
  __shared__ float plane[16][16 + 2 * kReach];
  const int x = threadIdx.x, y = threadIdx.y, width = 16 + 2 * kReach;
  float behind[kReach], ahead[kReach], here = 0;
  int at = y * width + x + kReach;
  for (int i = kReach - 1; i >= 0; --i) behind[i] = in[at], at += 16 * width;
  here = in[at];
  int write = at;
  at += 16 * width;
  for (int i = 0; i < kReach; ++i) ahead[i] = in[at], at += 16 * width;
#pragma unroll 9
  for (int z = 0; z < planes; ++z) {
    for (int i = kReach - 1; i > 0; --i) behind[i] = behind[i - 1];
    behind[0] = here;
    here = ahead[0];
    for (int i = 0; i < kReach - 1; ++i) ahead[i] = ahead[i + 1];
    ahead[kReach - 1] = in[at];
    at += 16 * width;
    write += 16 * width;
    __syncthreads();
    plane[y][x + kReach] = here;
    if (x < kReach) plane[y][x] = plane[y][x + kReach] * 0.5f;
    __syncthreads();
    float v = here;
    for (int i = 0; i < kReach; ++i)
      v += 0.25f * (behind[i] + ahead[i]) + 0.125f * plane[y][x + kReach - i];
    out[write] = v;
  }
}
// Step z reads planes z + 1 to z + 2 * kReach + 1 and writes the middle one.
float z_march_cpu(const std::vector<float>& in, int x, int y, int z) {
  const int width = 16 + 2 * kReach, stride = 16 * width, c = z + kReach + 1;
  auto at = [&](int plane, int xx) { return in[size_t(plane) * stride + y * width + xx + kReach]; };
  float v = at(c, x);
  for (int i = 0; i < kReach; ++i) {
    const float left = x - i >= 0 ? at(c, x - i) : 0.5f * at(c, x + kReach - i);
    v += 0.25f * (at(c - 1 - i, x) + at(c + 1 + i, x)) + 0.125f * left;
  }
  return v;
}

// A kernel that waits at nothing runs as one loop over the block's threads:
// in thread order (the tickets), each with its own locals (an array filled
// differently by each thread, whose address a helper takes), threads past
// the end of a 3D block leaving early, and a loop whose trip count differs
// per thread.
__device__ __attribute__((noinline)) int sum_of(const int* v, int n) {
  int s = 0;
  for (int k = 0; k < n; ++k) s += v[k];
  return s;
}
__global__ void no_waits(int* out, int* order, int* ticket, int n) {
  const int t = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
  const int i = blockIdx.x * blockDim.x * blockDim.y * blockDim.z + t;
  if (i >= n) return;
  order[i] = atomicAdd(ticket, 1);
  int mine[8];
  const int count = 1 + t % 8;
  for (int k = 0; k < count; ++k) mine[k] = i * 10 + k;
  out[i] = sum_of(mine, count);
}

// Which thread goes first after a barrier: the fibers let the last one to
// arrive go on first, and the loops keep that order.
__global__ void first_after_barrier(int* order, int* ticket) {
  __syncthreads();
  order[threadIdx.x] = atomicAdd(ticket, 1);
}

// The same in a kernel with a warp operation: with fibers, the last thread
// to arrive goes first, as above; in warp loops, the warps take turns from
// warp 0, each running its lanes in order.
__global__ void warp_after_barrier(int* order, int* ticket) {
  __syncthreads();
  const int mine = atomicAdd(ticket, 1);
  order[threadIdx.x] = mine + 0 * __shfl_sync(0xffffffffu, mine, 0);
}

// Where a thread's local lives while it waits: on its fiber's stack, or in
// the block's frames, one beside the other.
__global__ void where_locals_are(unsigned long long* at) {
  int local = int(threadIdx.x);
  __syncthreads();
  bump(&local, 1);
  at[threadIdx.x] = reinterpret_cast<unsigned long long>(&local);
}

// ---- warp operations ----------------------------------------------------------------

// A block reduction as library code writes it: shuffles within each warp, a
// partial per warp through shared memory, then the first warp's shuffles.
__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}
__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float partial[32];
  float v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    v += in[i];
  v = warp_sum(v);
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = warp_sum(lane < (blockDim.x + 31) / 32 ? partial[lane] : 0.0f);
    if (lane == 0) out[blockIdx.x] = v;
  }
}

// Votes, matches, reductions, __activemask in a branch and the barrier's
// votes, in a block whose last warp has 16 lanes. Eight answers a thread.
__global__ void votes(const int* in, unsigned* out) {
  const int t = threadIdx.x, x = in[t];
  const unsigned all = __activemask();
  unsigned* mine = out + t * 8;
  mine[0] = __ballot_sync(all, x > 5);
  mine[1] = __any_sync(all, x == 7) * 2 + __all_sync(all, x >= 0);
  mine[2] = __match_any_sync(all, x % 4);
  mine[3] = unsigned(__reduce_add_sync(all, x));
  unsigned odd = 0;
  if (t % 2) odd = __activemask();
  __syncwarp(all);
  mine[4] = odd;
  mine[5] = unsigned(__syncthreads_count(x > 5));
  mine[6] = unsigned(__syncthreads_and(x >= 0) * 2 + __syncthreads_or(x == 100));
  mine[7] = all;
}

// Lanes 0 to 15 ask __activemask() while lanes 16 to 31 meet at a ballot of
// their own, then wait at the barrier (or return): the mask is complete once
// they wait elsewhere (or have returned), with lanes 0 to 15 in it.
__global__ void mask_beside_barrier(unsigned* out, int return_early) {
  const unsigned lane = threadIdx.x % 32;
  unsigned m = 0;
  if (lane < 16) {
    m = __activemask();
  } else {
    m = __ballot_sync(0xffff0000u, 1);
    if (return_early) {
      out[threadIdx.x] = m;
      return;
    }
  }
  __syncthreads();
  out[threadIdx.x] = m;
}

// Halves of a warp at different shuffles (the runtime meets them, from what
// each lane's arrival left in its frame: the body writes an operation's
// constant fields only then), then a constant shuffled and voted, and a
// ballot; the last warp has 16 lanes.
__global__ void settled_arrivals(const int* in, int* out) {
  const int t = threadIdx.x, lane = t % 32;
  int v = in[t];
  if (lane < 16)
    v += __shfl_xor_sync(0x0000ffffu, v, 1, 16);
  else
    v += __shfl_down_sync(0xffff0000u, v, 2, 16);
  const int c = __shfl_sync(0xffffffffu, 7, 3);
  const unsigned all = __ballot_sync(0xffffffffu, 1);
  const unsigned odd = __ballot_sync(0xffffffffu, v & 1);
  out[t] = v * 3 + c + __popc(all) * 100 + int(odd % 1021u) * 1000;
}

// Lanes past the end return first; the others name only themselves.
__global__ void shift_left(const int* in, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned mask = __ballot_sync(__activemask(), 1);
  const int left = __shfl_up_sync(mask, in[i], 1);
  out[i] = threadIdx.x % 32 == 0 ? -1 : left;
}

// Sixteen-byte values through a tile's shuffles (two warp operations each,
// in a loop) and an inclusive scan of doubles.
__global__ void tile_scan(const double* in, double2* out) {
  namespace cg = cooperative_groups;
  const auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  double2 v = {in[t], -in[t]};
  for (unsigned d = 1; d < 32; d *= 2) {
    const double2 up = tile.shfl_up(v, d);
    if (tile.thread_rank() >= d) v.x += up.x, v.y += up.y;
  }
  out[t] = v;
}

// The fast intrinsics (__expf, __fdividef, rsqrtf) in device functions
// beside barriers and shuffles: a softmax of each block's row of 64, and a
// tree sum of rsqrtf in shared memory. Calls the compiler guards against
// throwing (as it does in a device function) do not keep a kernel on its
// fibers.
__device__ inline float scaled_exp(float x, float top) { return __expf(x - top); }
__global__ void fast_math_softmax(const float* in, float* out) {
  __shared__ float warp_top[2], warp_total[2];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const float x = in[blockIdx.x * 64 + threadIdx.x];
  float top = x;
  for (int d = 16; d > 0; d /= 2) top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, d));
  if (lane == 0) warp_top[warp] = top;
  __syncthreads();
  top = fmaxf(warp_top[0], warp_top[1]);
  const float e = scaled_exp(x, top);
  float total = e;
  for (int d = 16; d > 0; d /= 2) total += __shfl_xor_sync(0xffffffffu, total, d);
  if (lane == 0) warp_total[warp] = total;
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = __fdividef(e, warp_total[0] + warp_total[1]);
}
__device__ inline float inverse_root(float x) { return rsqrtf(x * x + 1.0f); }
__global__ void fast_math_tree(const float* in, float* out) {
  __shared__ float partial[128];
  partial[threadIdx.x] = inverse_root(in[blockIdx.x * 128 + threadIdx.x]);
  __syncthreads();
  for (unsigned s = 64; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

// A device function declared noexcept calls one that might throw (it never
// does): the host compiler guards the call, whose unwinding would end the
// program. The kernel still runs as block loops.
__device__ __attribute__((noinline)) float doubled_or_throw(float x) {
  if (x < -1e30f) throw x;
  return 2 * x;
}
__device__ float doubled(float x) noexcept { return doubled_or_throw(x); }
__global__ void guarded_calls(const float* in, float* out) {
  __shared__ float s[64];
  s[threadIdx.x] = doubled(in[threadIdx.x]);
  __syncthreads();
  float v = s[63 - threadIdx.x];
  v += __shfl_xor_sync(0xffffffffu, v, 1);
  out[threadIdx.x] = v;
}

// Who runs when around a shuffle: each thread takes a ticket before it and
// one after. With fibers, the lane that completes a shuffle goes on at
// once; a thread that returns gives way to the next thread to start, a
// thread that waits to one made ready. In warp loops (plain runs), the warps
// take turns, each running its lanes in order to their next wait.
__global__ void tickets_around_shuffle(int* before, int* after, int* ticket) {
  before[threadIdx.x] = atomicAdd(ticket, 1);
  const int v = __shfl_down_sync(0xffffffffu, int(threadIdx.x), 1);
  after[threadIdx.x] = atomicAdd(ticket, 1) + 0 * v;
}

__global__ void where_locals_are_warp(unsigned long long* at) {
  int local = int(threadIdx.x);
  __syncwarp();
  bump(&local, 1);
  at[threadIdx.x] = reinterpret_cast<unsigned long long>(&local);
}

// A device function that waits and is too large for the compiler to inline
// by its own measure at four calls: nvcc inlines device functions, and so
// does the simulator when they wait, so that the kernel runs as block loops.
__device__ float smooth_then_sum(float v) {
#pragma unroll
  for (int k = 0; k < 24; ++k) v = v * 0.5f + float(k % 5) * 0.125f + v * v * 0.0625f;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}
float smooth_then_sum_cpu(const float* lanes, int lane) {
  float warp[32];
  for (int l = 0; l < 32; ++l) {
    float v = lanes[l];
    for (int k = 0; k < 24; ++k) v = v * 0.5f + float(k % 5) * 0.125f + v * v * 0.0625f;
    warp[l] = v;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    float next[32];
    for (int l = 0; l < 32; ++l) next[l] = warp[l] + warp[l ^ offset];
    std::copy(next, next + 32, warp);
  }
  return warp[lane];
}
__global__ void waits_in_calls(const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float a = smooth_then_sum(in[i]);
  const float b = smooth_then_sum(in[i] * 0.25f);
  const float c = smooth_then_sum(in[i] - 0.5f);
  const float d = smooth_then_sum(in[i] * in[i] * 0.1f);
  out[i] = a + b + c + d;
}

__global__ void never_meets(int* out) {
  if (threadIdx.x < 16) out[threadIdx.x] = __shfl_sync(0xffffffffu, 1, 20);
  __syncthreads();
}

template <class T>
T* device_copy(const std::vector<T>& v) {
  T* d;
  CHECK(cudaMalloc(&d, v.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <class T>
std::vector<T> host_copy(const T* d, size_t n) {
  std::vector<T> v(n);
  CHECK(cudaMemcpy(v.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

// Whether a kernel with warp operations kept its threads' locals side by
// side (in block frames: warp loops) rather than apart (a fiber each).
// Two threads' locals a page apart at most: in the block's frames.
bool side_by_side(unsigned long long a, unsigned long long b) {
  return (a > b ? a - b : b - a) < 4096;
}

bool warp_operations_in_loops() {
  unsigned long long* d_at;
  CHECK(cudaMalloc(&d_at, 2 * sizeof(unsigned long long)));
  where_locals_are_warp<<<1, 2>>>(d_at);
  const auto at = host_copy(d_at, 2);
  CHECK(cudaFree(d_at));
  return side_by_side(at[0], at[1]);
}

void warp_operations() {
  {
    const int rows = 6;
    std::vector<float> in(rows * 128);
    for (int i = 0; i < rows * 128; ++i) in[i] = float(i % 23) * 0.3f - 2.0f;
    float *d_in = device_copy(in), *d_out;
    CHECK(cudaMalloc(&d_out, rows * 128 * sizeof(float)));
    fast_math_softmax<<<rows, 64>>>(d_in, d_out);
    auto out = host_copy(d_out, rows * 64);
    bool ok = true;
    for (int r = 0; r < rows; ++r) {
      float top = in[r * 64], total = 0;
      for (int i = 0; i < 64; ++i) top = std::max(top, in[r * 64 + i]);
      for (int i = 0; i < 64; ++i) total += std::exp(in[r * 64 + i] - top);
      for (int i = 0; i < 64; ++i) {
        const float want = std::exp(in[r * 64 + i] - top) / total;
        ok = ok && std::fabs(out[r * 64 + i] - want) <= 1e-5f;
      }
    }
    expect(ok, "__expf and __fdividef beside shuffles and barriers");
    fast_math_tree<<<rows, 128>>>(d_in, d_out);
    out = host_copy(d_out, rows);
    ok = true;
    for (int r = 0; r < rows; ++r) {
      double want = 0;
      for (int i = 0; i < 128; ++i) {
        const double x = in[r * 128 + i];
        want += 1.0 / std::sqrt(x * x + 1.0);
      }
      ok = ok && std::fabs(out[r] - want) <= 1e-4 * want;
    }
    expect(ok, "rsqrtf in a device function beside barriers");
    guarded_calls<<<1, 64>>>(d_in, d_out);
    out = host_copy(d_out, 64);
    ok = true;
    for (int t = 0; t < 64; ++t)
      ok = ok && out[t] == 2 * in[63 - t] + 2 * in[63 - (t ^ 1)];
    expect(ok, "a call guarded against throwing, beside a barrier and a shuffle");
  }
  {
    const int n = 256;
    std::vector<float> in(n);
    for (int i = 0; i < n; ++i) in[i] = float(i % 11) * 0.09f;
    float *d_in = device_copy(in), *d_out;
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    waits_in_calls<<<2, 128>>>(d_in, d_out);
    const auto out = host_copy(d_out, n);
    bool ok = true;
    for (int i = 0; i < n; ++i) {
      float lanes[4][32];
      for (int l = 0; l < 32; ++l) {
        const float x = in[i / 32 * 32 + l];
        lanes[0][l] = x, lanes[1][l] = x * 0.25f, lanes[2][l] = x - 0.5f, lanes[3][l] = x * x * 0.1f;
      }
      float want = 0;
      for (auto& l : lanes) want += smooth_then_sum_cpu(l, i % 32);
      ok = ok && std::fabs(out[i] - want) <= 1e-4f * std::fabs(want) + 1e-5f;
    }
    expect(ok, "shuffles in a large device function called four times");
  }
  {
    const int n = 100003, threads = 96, blocks = 5;
    std::vector<float> in(n);
    for (int i = 0; i < n; ++i) in[i] = float(i % 17);
    float *d_in = device_copy(in), *d_out;
    CHECK(cudaMalloc(&d_out, blocks * sizeof(float)));
    block_sum<<<blocks, threads>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    const auto out = host_copy(d_out, blocks);
    double got = 0, want = 0;
    for (float v : out) got += v;
    for (float v : in) want += v;
    expect(got == want, "block sum: shuffles, shared memory, shuffles");
  }
  {
    const int threads = 80;
    std::vector<int> in(threads);
    for (int t = 0; t < threads; ++t) in[t] = (t * 7 + 3) % 11;
    int* d_in = device_copy(in);
    unsigned* d_out;
    CHECK(cudaMalloc(&d_out, threads * 8 * sizeof(unsigned)));
    votes<<<1, threads>>>(d_in, d_out);
    CHECK(cudaGetLastError());
    const auto out = host_copy(d_out, threads * 8);
    bool ok = true;
    int count = 0, every = 1, some = 0;
    for (int x : in) count += x > 5, every &= x >= 0, some |= x == 100;
    for (int t = 0; t < threads; ++t) {
      const int base = t / 32 * 32, lanes = std::min(32, threads - base);
      unsigned ballot = 0, odd = 0, same = 0, all = lanes == 32 ? ~0u : (1u << lanes) - 1;
      int any7 = 0, nonneg = 1, sum = 0;
      for (int l = 0; l < lanes; ++l) {
        const int x = in[base + l];
        ballot |= unsigned(x > 5) << l;
        odd |= unsigned(l % 2) << l;
        same |= unsigned(x % 4 == in[t] % 4) << l;
        any7 |= x == 7, nonneg &= x >= 0, sum += x;
      }
      const unsigned* m = &out[t * 8];
      ok = ok && m[0] == ballot && m[1] == unsigned(any7 * 2 + nonneg) && m[2] == same &&
           m[3] == unsigned(sum) && m[4] == (t % 2 ? odd : 0) && m[5] == unsigned(count) &&
           m[6] == unsigned(every * 2 + some) && m[7] == all;
    }
    expect(ok, "votes, matches, __activemask in a branch, barrier votes");
  }
  {
    const int n = 200;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = i * 5;
    int *d_in = device_copy(in), *d_out;
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    shift_left<<<2, 128>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    const auto out = host_copy(d_out, n);
    bool ok = true;
    for (int i = 0; i < n; ++i) ok = ok && out[i] == (i % 128 % 32 == 0 ? -1 : in[i - 1]);
    expect(ok, "lanes past the end return before a shuffle");
  }
  {
    const int n = 128;
    std::vector<double> in(n);
    for (int i = 0; i < n; ++i) in[i] = 0.5 * (i % 7);
    double* d_in = device_copy(in);
    double2* d_out;
    CHECK(cudaMalloc(&d_out, n * sizeof(double2)));
    tile_scan<<<2, 64>>>(d_in, d_out);
    const auto out = host_copy(d_out, n);
    bool ok = true;
    double run = 0;
    for (int i = 0; i < n; ++i) {
      run = i % 32 == 0 ? in[i] : run + in[i];
      ok = ok && out[i].x == run && out[i].y == -run;
    }
    expect(ok, "a tile's 16-byte shuffles in a scan loop");
  }
  {
    int *d_before, *d_after, *d_ticket;
    CHECK(cudaMalloc(&d_before, 64 * sizeof(int)));
    CHECK(cudaMalloc(&d_after, 64 * sizeof(int)));
    CHECK(cudaMalloc(&d_ticket, sizeof(int)));
    CHECK(cudaMemset(d_ticket, 0, sizeof(int)));
    tickets_around_shuffle<<<1, 64>>>(d_before, d_after, d_ticket);
    const auto before = host_copy(d_before, 64), after = host_copy(d_after, 64);
    bool ok = true;
    if (warp_operations_in_loops()) {
      // Warp 0's lanes in order to the shuffle, then warp 1's; then warp
      // 0's lanes on to their return, then warp 1's.
      for (int k = 0; k < 64; ++k) ok = ok && before[k] == k && after[k] == 64 + k;
      expect(ok, "around a shuffle, warps take turns (warp loops)");
    } else {
      // Warp 0 arrives in order; lane 31 completes the shuffle and returns;
      // then thread 32 + k starts and waits, and lane k of warp 0 goes on,
      // in turn; thread 63 completes warp 1's shuffle, then warp 1 goes on.
      ok = after[31] == 32 && after[63] == 96;
      for (int k = 0; k < 32; ++k) ok = ok && before[k] == k && before[32 + k] == 33 + 2 * k;
      for (int k = 0; k < 31; ++k) ok = ok && after[k] == 34 + 2 * k && after[32 + k] == 97 + k;
      expect(ok, "around a shuffle, threads run in the fibers' order");
    }
  }
  {
    const int n = 48;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 37) % 29;
    int *d_in = device_copy(in), *d_out;
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    settled_arrivals<<<1, n>>>(d_in, d_out);
    const auto out = host_copy(d_out, n);
    std::vector<int> v(n);
    for (int t = 0; t < n; ++t) {
      const int lane = t % 32;
      v[t] = in[t] + (lane < 16 ? in[t ^ 1] : (lane + 2 < 32 ? in[t + 2] : in[t]));
    }
    bool ok = true;
    for (int t = 0; t < n; ++t) {
      const int base = t / 32 * 32, lanes = std::min(32, n - base);
      unsigned odd = 0;
      for (int l = 0; l < lanes; ++l) odd |= unsigned(v[base + l] & 1) << l;
      ok = ok && out[t] == v[t] * 3 + 7 + lanes * 100 + int(odd % 1021u) * 1000;
    }
    expect(ok, "halves at different shuffles, then constants shuffled and voted");
  }
  for (int return_early : {0, 1}) {
    unsigned* d;
    CHECK(cudaMalloc(&d, 64 * sizeof(unsigned)));
    mask_beside_barrier<<<1, 64>>>(d, return_early);
    const bool ran = cudaDeviceSynchronize() == cudaSuccess;
    const auto out = host_copy(d, 64);
    bool ok = ran;
    for (int t = 0; t < 64; ++t) ok = ok && out[t] == (t % 32 < 16 ? 0x0000ffffu : 0xffff0000u);
    expect(ok, return_early ? "__activemask() beside lanes that return"
                            : "__activemask() beside lanes at the barrier");
    CHECK(cudaFree(d));
  }
  {
    // Lanes 16..31 wait at the barrier, lanes 0..15 at a shuffle naming
    // them: the launch ends with an error, as the fibers end it.
    int* d;
    CHECK(cudaMalloc(&d, 32 * sizeof(int)));
    never_meets<<<2, 32>>>(d);
    expect(cudaDeviceSynchronize() == cudaErrorLaunchFailure, "a deadlock ends the launch");
    CHECK(cudaDeviceReset());
  }
}

int main() {
  {
    const int n = 1000, threads = 128, blocks = (n + threads - 1) / threads;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 37) % 101 - 50;
    int *d_in = device_copy(in), *d_out;
    CHECK(cudaMalloc(&d_out, blocks * sizeof(int)));
    reduce_sum<<<blocks, threads, threads * sizeof(int)>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    const auto out = host_copy(d_out, blocks);
    bool ok = true;
    for (int b = 0; b < blocks; ++b) {
      int want = 0;
      for (int i = b * threads; i < n && i < (b + 1) * threads; ++i) want += in[i];
      ok = ok && out[b] == want;
    }
    expect(ok, "tree reduction, a barrier in a loop");
  }
  {
    const int rows = 37, cols = 29;
    std::vector<float> in(rows * cols);
    for (int i = 0; i < rows * cols; ++i) in[i] = float(i) * 0.5f;
    float *d_in = device_copy(in), *d_out;
    CHECK(cudaMalloc(&d_out, in.size() * sizeof(float)));
    transpose<<<dim3((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile),
                dim3(kTile, kTile)>>>(d_in, d_out, rows, cols);
    const auto out = host_copy(d_out, in.size());
    bool ok = true;
    for (int y = 0; y < rows; ++y)
      for (int x = 0; x < cols; ++x) ok = ok && out[x * rows + y] == in[y * cols + x];
    expect(ok, "tiled transpose, 2D blocks at the edges");
  }
  {
    const int per = 7 * 5 * 3, blocks = 3;
    int* d_out;
    CHECK(cudaMalloc(&d_out, blocks * per * sizeof(int)));
    private_state<<<blocks, dim3(7, 5, 3)>>>(d_out);
    const auto out = host_copy(d_out, blocks * per);
    bool ok = true;
    for (int b = 0; b < blocks; ++b)
      for (int t = 0; t < per; ++t) {
        const int u = (t + 2) % per;
        const int counter_u = u + (u + 1) % per;
        ok = ok && out[b * per + t] == 60 * t + 15 + counter_u;
      }
    expect(ok, "private arrays and taken addresses across barriers");
  }
  {
    const int n = 300;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = i * 3;
    int *d_in = device_copy(in), *d_out;
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    early_return<<<2, 256>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    const auto out = host_copy(d_out, n);
    bool ok = true;
    for (int i = 0; i < n; ++i) ok = ok && out[i] == (i % 256 > 0 ? in[i - 1] : -1);
    expect(ok, "threads that return before the barrier");
  }
  {
    const int blocks = 4;
    std::vector<int> in(blocks * 64);
    for (size_t i = 0; i < in.size(); ++i) in[i] = int(i % 9) + 1;
    int *d_in = device_copy(in), *d_out;
    CHECK(cudaMalloc(&d_out, in.size() * sizeof(int)));
    scan64<<<blocks, 64>>>(d_in, d_out);
    const auto out = host_copy(d_out, in.size());
    bool ok = true;
    for (int b = 0; b < blocks; ++b) {
      int run = 0;
      for (int t = 0; t < 64; ++t) ok = ok && out[b * 64 + t] == (run += in[b * 64 + t]);
    }
    expect(ok, "scan with a barrier in an inlined device function");
    int* d_v;
    CHECK(cudaMalloc(&d_v, 32 * sizeof(int)));
    barrier_in_call<<<1, 32>>>(d_v);
    const auto v = host_copy(d_v, 32);
    bool ok2 = true;
    for (int t = 0; t < 32; ++t) ok2 = ok2 && v[t] == 31 - t;
    expect(ok2, "a barrier in a device function kept out of line");
  }
  for (int planes : {1, 9, 10, 20, 25}) {
    const int width = 16 + 2 * kReach, stride = 16 * width, depth = planes + 2 * kReach + 1;
    std::vector<float> in(size_t(depth) * stride);
    for (size_t i = 0; i < in.size(); ++i) in[i] = float((i * 7) % 13) * 0.25f;
    float *d_in = device_copy(in), *d_out;
    CHECK(cudaMalloc(&d_out, in.size() * sizeof(float)));
    CHECK(cudaMemset(d_out, 0, in.size() * sizeof(float)));
    z_march<<<1, dim3(16, 16)>>>(d_in, d_out, planes);
    const auto out = host_copy(d_out, in.size());
    bool ok = true;
    for (int z = 0; z < planes; ++z)
      for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 16; ++x) {
          const float want = z_march_cpu(in, x, y, z);
          const float got = out[size_t(z + kReach + 1) * stride + y * width + x + kReach];
          ok = ok && std::fabs(got - want) <= 1e-4f * std::fabs(want) + 1e-5f;
        }
    char what[80];
    std::snprintf(what, sizeof(what), "a z-march of %d planes, a register queue", planes);
    expect(ok, what);
  }
  {
    int *d_order, *d_ticket;
    CHECK(cudaMalloc(&d_order, 64 * sizeof(int)));
    CHECK(cudaMalloc(&d_ticket, sizeof(int)));
    CHECK(cudaMemset(d_ticket, 0, sizeof(int)));
    first_after_barrier<<<1, 64>>>(d_order, d_ticket);
    const auto order = host_copy(d_order, 64);
    expect(order[63] == 0 && order[0] == 1, "after a barrier, the last thread to arrive goes first");
    CHECK(cudaMemset(d_ticket, 0, sizeof(int)));
    warp_after_barrier<<<1, 64>>>(d_order, d_ticket);
    const auto warp_order = host_copy(d_order, 64);
    if (warp_operations_in_loops()) {
      bool in_order = true;
      for (int t = 0; t < 64; ++t) in_order = in_order && warp_order[t] == t;
      expect(in_order, "after a barrier, warps take turns from warp 0 (warp loops)");
    } else {
      expect(warp_order[63] == 0 && warp_order[0] == 1,
             "after a barrier, the last thread to arrive goes first (a warp operation's kernel)");
    }
  }
  {
    const dim3 block(5, 4, 3);
    const int per = 5 * 4 * 3, blocks = 4, n = blocks * per - 17;
    int *d_out, *d_order, *d_ticket;
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMalloc(&d_order, n * sizeof(int)));
    CHECK(cudaMalloc(&d_ticket, sizeof(int)));
    CHECK(cudaMemset(d_ticket, 0, sizeof(int)));
    no_waits<<<blocks, block>>>(d_out, d_order, d_ticket, n);
    CHECK(cudaGetLastError());
    const auto out = host_copy(d_out, n), order = host_copy(d_order, n);
    // One worker runs a block's threads in order; blocks may interleave (two
    // workers take tickets at once), so a block's tickets only increase.
    bool ok = true, in_order = true;
    for (int i = 0; i < n; ++i) {
      const int count = 1 + i % per % 8;
      ok = ok && out[i] == count * i * 10 + count * (count - 1) / 2;
      if (i % per > 0) in_order = in_order && order[i] > order[i - 1];
    }
    expect(ok, "no barrier: private locals, early returns, 3D blocks");
    expect(in_order, "no barrier: a block's threads run in order");
  }
  warp_operations();
  {
    // The last line: whether a barrier's kernel and a warp operation's
    // kept their threads' locals side by side (frames) or apart (fibers).
    unsigned long long* d_at;
    CHECK(cudaMalloc(&d_at, 4 * sizeof(unsigned long long)));
    where_locals_are<<<1, 2>>>(d_at);
    where_locals_are_warp<<<1, 2>>>(d_at + 2);
    const auto at = host_copy(d_at, 4);
    const bool barrier_frames = side_by_side(at[0], at[1]), warp_frames = side_by_side(at[2], at[3]);
    std::printf("checks that failed: %d\n", failures);
    std::printf("threads keep their locals in the block's frames: %s\n",
                barrier_frames && warp_frames    ? "yes (block loops)"
                : !barrier_frames && !warp_frames ? "no (a fiber each)"
                                                  : (barrier_frames ? "only at barriers"
                                                                    : "only at warp operations"));
  }
  return failures != 0;
}

// The tests of this program (tests/lit/README.md): its kernels run as block
// loops (the plain build's default) and as a fiber per thread; the last
// line says which ran.
// BUILD: NO_GPU
// TEST: unit.block_loops_on
// LABELS: unit
// RUN: CUDALAB_BLOCK_LOOPS=on %bin
// CHECK: {{^}}checks that failed: 0
// CHECK-NEXT: {{^}}threads keep their locals in the block's frames: yes (block loops)
//
// Without the copies of the kernels that use the processor's wide vectors
// (AVX2), where it has them: the copies the default leaves out.
// TEST: unit.block_loops_narrow
// LABELS: unit
// RUN: CUDALAB_BLOCK_LOOPS=narrow %bin
// CHECK: {{^}}checks that failed: 0
// CHECK-NEXT: {{^}}threads keep their locals in the block's frames: yes (block loops)
//
// TEST: unit.block_loops_off
// LABELS: unit
// RUN: CUDALAB_BLOCK_LOOPS=off %bin
// CHECK: {{^}}checks that failed: 0
// CHECK-NEXT: {{^}}threads keep their locals in the block's frames: no (a fiber each)
//
// Which of its kernels got a block-loops body (the others keep their fibers).
// TEST: unit.block_loops_bodies
// LABELS: unit
// REQUIRES: block-loops
// RUN: %python %S/has_block_loops.py %bin reduce_sum transpose private_state early_return \
// RUN:   scan64 z_march first_after_barrier warp_after_barrier where_locals_are block_sum votes \
// RUN:   shift_left \
// RUN:   tile_scan tickets_around_shuffle where_locals_are_warp never_meets no_waits \
// RUN:   mask_beside_barrier settled_arrivals \
// RUN:   waits_in_calls fast_math_softmax fast_math_tree guarded_calls --not barrier_in_call
