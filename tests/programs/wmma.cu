// Tensor cores through mma.h (nvcuda::wmma): every shape and type the
// simulator has, operands in both layouts, accumulators loaded and stored
// both ways, D = A * B + C for a 64 x 64 x 64 product with one warp per
// tile (four warps a block), an accumulator scaled element by element, and
// TF32 rounding. The inputs are small multiples of 1/4, so every product and
// sum is exact and the result does not depend on the order a tensor core
// adds in: each case must equal the host's result exactly. Prints one line
// per case and "all cases pass"; built with nvcc it runs the same cases on a
// GPU (run on an H100 when this test was written: all pass).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cstdio>
#include <type_traits>
#include <vector>

using namespace nvcuda;

// Input value i of a matrix: a multiple of 1/4 in [-1, 1].
__host__ __device__ inline float input(int i, int salt) {
  return float(((i * 7 + salt * 13) % 9) - 4) / 4.0f;
}

// One warp per 16-wide tile of D = alpha * (A * B) + C (row-major m x n, A
// m x k row-major or column-major, B k x n the other way).
template <int M, int N, int K, class TA, class TAcc, class LA, class LB>
__global__ void gemm(const TA* a, const TA* b, const TAcc* c, TAcc* d, int m, int n, int k,
                     float alpha) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int tiles_n = n / N;
  const int row = warp / tiles_n * M, col = warp % tiles_n * N;
  if (row >= m) return;
  wmma::fragment<wmma::matrix_a, M, N, K, TA, LA> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, TA, LB> fb;
  wmma::fragment<wmma::accumulator, M, N, K, TAcc> acc, fc;
  wmma::fill_fragment(acc, 0.0f);
  const bool a_row = std::is_same<LA, wmma::row_major>::value;
  const bool b_row = std::is_same<LB, wmma::row_major>::value;
  for (int kk = 0; kk < k; kk += K) {
    wmma::load_matrix_sync(fa, a_row ? a + row * k + kk : a + kk * m + row, a_row ? k : m);
    wmma::load_matrix_sync(fb, b_row ? b + kk * n + col : b + col * k + kk, b_row ? n : k);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::load_matrix_sync(fc, c + row * n + col, n, wmma::mem_row_major);
  for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = TAcc(float(acc.x[i]) * alpha + float(fc.x[i]));
  // Stored column-major into a scratch tile, then copied row-major by lane.
  __shared__ TAcc scratch[4][M * N];
  TAcc* mine = scratch[threadIdx.x / 32];
  wmma::store_matrix_sync(mine, acc, M, wmma::mem_col_major);
  __syncwarp();
  for (int e = threadIdx.x % 32; e < M * N; e += 32)
    d[(row + e / N) * n + col + e % N] = mine[(e % N) * M + e / N];
}

template <int M, int N, int K, class TA, class TAcc, class LA, class LB>
bool run_case(const char* name, float alpha) {
  const int m = 64, n = 64, k = 64;
  std::vector<TA> ha(m * k), hb(k * n);
  std::vector<TAcc> hc(m * n), hd(m * n);
  const bool a_row = std::is_same<LA, wmma::row_major>::value;
  const bool b_row = std::is_same<LB, wmma::row_major>::value;
  std::vector<double> ref(m * n);
  auto av = [&](int r, int c) { return double(input(r * k + c, 1)); };
  auto bv = [&](int r, int c) { return double(input(r * n + c, 2)); };
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < k; ++c) ha[a_row ? r * k + c : c * m + r] = TA(float(av(r, c)));
  for (int r = 0; r < k; ++r)
    for (int c = 0; c < n; ++c) hb[b_row ? r * n + c : c * k + r] = TA(float(bv(r, c)));
  for (int i = 0; i < m * n; ++i) hc[i] = TAcc(input(i, 3));
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c) {
      double s = 0;
      for (int i = 0; i < k; ++i) s += av(r, i) * bv(i, c);
      ref[r * n + c] = s * alpha + double(float(hc[r * n + c]));
    }
  TA *da, *db;
  TAcc *dc, *dd;
  cudaMalloc(&da, ha.size() * sizeof(TA));
  cudaMalloc(&db, hb.size() * sizeof(TA));
  cudaMalloc(&dc, hc.size() * sizeof(TAcc));
  cudaMalloc(&dd, hd.size() * sizeof(TAcc));
  cudaMemcpy(da, ha.data(), ha.size() * sizeof(TA), cudaMemcpyHostToDevice);
  cudaMemcpy(db, hb.data(), hb.size() * sizeof(TA), cudaMemcpyHostToDevice);
  cudaMemcpy(dc, hc.data(), hc.size() * sizeof(TAcc), cudaMemcpyHostToDevice);
  const int warps = (m / M) * (n / N);
  gemm<M, N, K, TA, TAcc, LA, LB><<<(warps + 3) / 4, 128>>>(da, db, dc, dd, m, n, k, alpha);
  const cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(hd.data(), dd, hd.size() * sizeof(TAcc), cudaMemcpyDeviceToHost);
  int wrong = 0, first = -1;
  for (int i = 0; i < m * n; ++i)
    if (double(float(hd[i])) != ref[i] && wrong++ == 0) first = i;
  std::printf("%-32s %s", name, e == cudaSuccess && wrong == 0 ? "pass" : "FAIL");
  if (e != cudaSuccess) std::printf(" (%s)", cudaGetErrorString(e));
  if (wrong)
    std::printf(" (%d wrong; first at %d: %.9g, expected %.9g)", wrong, first,
                double(float(hd[first])), ref[first]);
  std::printf("\n");
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  cudaFree(dd);
  return e == cudaSuccess && wrong == 0;
}

// Integers: 8-bit operands, int accumulators.
template <int M, int N, int K, class T>
__global__ void int_tile(const T* a, const T* b, int* d) {
  wmma::fragment<wmma::matrix_a, M, N, K, T, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, T, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, M, N, K, int> acc;
  wmma::fill_fragment(acc, 5);
  wmma::load_matrix_sync(fa, a, K);
  wmma::load_matrix_sync(fb, b, K);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(d, acc, N, wmma::mem_row_major);
}

template <int M, int N, int K, class T>
bool int_case(const char* name) {
  std::vector<T> ha(M * K), hb(K * N);
  for (int i = 0; i < M * K; ++i) ha[i] = T((i * 37) % 101 - (T(-1) < 0 ? 50 : 0));
  for (int i = 0; i < K * N; ++i) hb[i] = T((i * 53) % 97 - (T(-1) < 0 ? 48 : 0));
  T *da, *db;
  int* dd;
  cudaMalloc(&da, ha.size());
  cudaMalloc(&db, hb.size());
  cudaMalloc(&dd, M * N * sizeof(int));
  cudaMemcpy(da, ha.data(), ha.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(db, hb.data(), hb.size(), cudaMemcpyHostToDevice);
  int_tile<M, N, K, T><<<1, 32>>>(da, db, dd);
  std::vector<int> hd(M * N);
  const cudaError_t e = cudaMemcpy(hd.data(), dd, hd.size() * sizeof(int), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      int s = 5;
      for (int i = 0; i < K; ++i) s += int(ha[r * K + i]) * int(hb[c * K + i]);
      wrong += hd[r * N + c] != s;
    }
  std::printf("%-32s %s\n", name, e == cudaSuccess && wrong == 0 ? "pass" : "FAIL");
  cudaFree(da);
  cudaFree(db);
  cudaFree(dd);
  return e == cudaSuccess && wrong == 0;
}

// TF32: operands rounded element by element with __float_to_tf32.
__global__ void tf32_tile(const float* a, const float* b, float* d) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  wmma::load_matrix_sync(fa, a, 8);
  wmma::load_matrix_sync(fb, b, 8);
  for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
  for (int i = 0; i < fb.num_elements; ++i) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}

bool tf32_case() {
  // 1 + 2^-11 rounds up to 1 + 2^-10 in TF32 (a tie, away from zero);
  // 1 + 2^-12 rounds down to 1.
  std::vector<float> ha(16 * 8), hb(16 * 8);
  for (int i = 0; i < 16 * 8; ++i) {
    ha[i] = i % 3 == 0 ? 1.0f + 0x1p-11f : (i % 3 == 1 ? 1.0f + 0x1p-12f : 0.5f);
    hb[i] = i % 2 ? 2.0f : -0.25f;
  }
  float *da, *db, *dd;
  cudaMalloc(&da, 512);
  cudaMalloc(&db, 512);
  cudaMalloc(&dd, 1024);
  cudaMemcpy(da, ha.data(), 512, cudaMemcpyHostToDevice);
  cudaMemcpy(db, hb.data(), 512, cudaMemcpyHostToDevice);
  tf32_tile<<<1, 32>>>(da, db, dd);
  std::vector<float> hd(256);
  const cudaError_t e = cudaMemcpy(hd.data(), dd, 1024, cudaMemcpyDeviceToHost);
  auto tf32 = [](float f) { return f == 1.0f + 0x1p-11f ? 1.0f + 0x1p-10f : (f == 1.0f + 0x1p-12f ? 1.0f : f); };
  int wrong = 0;
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) {
      double s = 0;
      for (int i = 0; i < 8; ++i) s += double(tf32(ha[r * 8 + i])) * double(hb[c * 8 + i]);
      wrong += double(hd[r * 16 + c]) != s;
    }
  std::printf("%-32s %s\n", "tf32 m16n16k8", e == cudaSuccess && wrong == 0 ? "pass" : "FAIL");
  cudaFree(da);
  cudaFree(db);
  cudaFree(dd);
  return e == cudaSuccess && wrong == 0;
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device\n");
    return 77;
  }
  int ok = 0, cases = 0;
  auto count = [&](bool pass) { ok += pass, ++cases; };
  using R = wmma::row_major;
  using C = wmma::col_major;
  count(run_case<16, 16, 16, __half, float, R, C>("half m16n16k16 row/col float", 1.0f));
  count(run_case<16, 16, 16, __half, float, C, R>("half m16n16k16 col/row float x2", 2.0f));
  count(run_case<32, 8, 16, __half, __half, R, R>("half m32n8k16 row/row half", 1.0f));
  count(run_case<8, 32, 16, __half, float, C, C>("half m8n32k16 col/col float", 0.5f));
  count(run_case<16, 16, 16, __nv_bfloat16, float, R, C>("bf16 m16n16k16 row/col float", 1.0f));
  count(run_case<32, 8, 16, __nv_bfloat16, float, C, R>("bf16 m32n8k16 col/row float", 1.0f));
  count(run_case<8, 8, 4, double, double, R, C>("double m8n8k4 row/col", 1.0f));
  count(run_case<8, 8, 4, double, double, C, R>("double m8n8k4 col/row x2", 2.0f));
  count(int_case<16, 16, 16, signed char>("s8 m16n16k16"));
  count(int_case<32, 8, 16, unsigned char>("u8 m32n8k16"));
  count(int_case<8, 32, 16, signed char>("s8 m8n32k16"));
  count(tf32_case());
  if (ok == cases) std::printf("all cases pass\n");
  else std::printf("%d of %d cases fail\n", cases - ok, cases);
  return ok == cases ? 0 : 1;
}

// The tests of this program (tests/lit/README.md): every case exact, on
// the simulator and on an H100.
// BUILD:
// TEST: unit.wmma_cases
// LABELS: unit
// RUN: %bin
// CHECK-NOT: FAIL
// CHECK: {{^}}all cases pass
//
// TEST: gpu.wmma_cases
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu
// CHECK-NOT: FAIL
// CHECK: {{^}}all cases pass
