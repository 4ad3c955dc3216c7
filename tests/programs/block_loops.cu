// Kernels that wait at __syncthreads() in the ways course and library code
// does, each checked against the CPU. The plain build runs such a block as
// loops over its threads (simulator/passes/block_loops.cpp); CTest runs this
// program with them and with CUDALAB_BLOCK_LOOPS=off (a fiber per thread),
// and both must print the same but for the last line, which says which ran.
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

// Which thread goes first after a barrier: the fibers let the last one to
// arrive go on first, and the loops keep that order.
__global__ void first_after_barrier(int* order, int* ticket) {
  __syncthreads();
  order[threadIdx.x] = atomicAdd(ticket, 1);
}

// Where a thread's local lives while it waits: on its fiber's stack, or in
// the block's frames, one beside the other.
__global__ void where_locals_are(unsigned long long* at) {
  int local = int(threadIdx.x);
  __syncthreads();
  bump(&local, 1);
  at[threadIdx.x] = reinterpret_cast<unsigned long long>(&local);
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
    unsigned long long* d_at;
    CHECK(cudaMalloc(&d_at, 2 * sizeof(unsigned long long)));
    where_locals_are<<<1, 2>>>(d_at);
    const auto at = host_copy(d_at, 2);
    const unsigned long long apart = at[1] > at[0] ? at[1] - at[0] : at[0] - at[1];
    std::printf("checks that failed: %d\n", failures);
    std::printf("threads keep their locals in the block's frames: %s\n",
                apart < 4096 ? "yes (block loops)" : "no (a fiber each)");
  }
  return failures != 0;
}
