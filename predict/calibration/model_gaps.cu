// Kernels the model was checked against beyond the corpus, timed on a GPU
// (CUDA events, the median of 10 after a warm-up) and predicted by
// `cudalab predict -- ./model_gaps`: strided and misaligned reads, float4
// loads, __constant__ tables read alike by a warp and lane by lane, a
// local array indexed at run time, bank conflicts, one block's loop,
// barriers, a shuffle sum, a matrix-vector product by columns in 16
// blocks, integer division (powf, divisions and roots, and a 32-way switch
// were here too: they are in the corpus now). predict/README.md says what
// they showed:
//   nvcc -O3 -arch=sm_90 model_gaps.cu -o model_gaps && ./model_gaps
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "probe_timing.h"
__constant__ float c_table[1024];
__global__ void strided(const float* in, float* out, int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[(size_t(i) * stride) % (size_t(n) * 8)];
}
__global__ void misaligned(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i + 1];
}
__global__ void vec4(const float4* in, float4* out, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = in[i];
    v.x *= 2;
    v.y *= 2;
    v.z *= 2;
    v.w *= 2;
    out[i] = v;
  }
}
__global__ void const_uniform(float* out, int iters) {
  float s = 0;
  for (int k = 0; k < iters; ++k) s += c_table[k & 1023];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
__global__ void const_divergent(float* out, int iters) {
  float s = 0;
  for (int k = 0; k < iters; ++k) s += c_table[(threadIdx.x * 33 + k) & 1023];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
__global__ void local_array(float* out, int iters) {
  float a[64];
  for (int i = 0; i < 64; ++i) a[i] = i * threadIdx.x;
  float s = 0;
  for (int k = 0; k < iters; ++k) s += a[(k * 7 + threadIdx.x) & 63];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
__global__ void bank_conflict(float* out, int iters, int stride) {
  __shared__ float s[32 * 33 * 4];
  for (int i = threadIdx.x; i < 32 * 33 * 4; i += blockDim.x) s[i] = i;
  __syncthreads();
  float acc = 0;
  const int lane = threadIdx.x & 31;
  for (int k = 0; k < iters; ++k) acc += s[(lane * stride + k) % (32 * 33 * 4)];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
__global__ void one_block_loop(const float* in, float* out, int n) {
  float s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += in[i];
  out[threadIdx.x] = s;
}
__global__ void sync_heavy(float* out, int iters) {
  __shared__ float s[1024];
  s[threadIdx.x] = threadIdx.x;
  for (int k = 0; k < iters; ++k) {
    __syncthreads();
    float v = s[(threadIdx.x + 1) & 1023];
    __syncthreads();
    s[threadIdx.x] = v + 1;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}
__global__ void shfl_reduce(const float* in, float* out, int n) {
  float v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    v += in[i];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}
__global__ void matvec_cols(const float* m, const float* x, float* y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0;
  for (int c = 0; c < cols; ++c) s += m[size_t(c) * rows + r] * x[c];
  y[r] = s;
}
__global__ void int_mod(unsigned* out, int iters, unsigned d) {
  unsigned x = threadIdx.x * 2654435761u;
  for (int k = 0; k < iters; ++k) x = x / d + x % d + 12345u;
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
bool g_quick = false;
template <class F>
void time_it(const char* name, F f) {
  f();  // a warm-up
  std::printf("%-22s %12.2f us\n", name, median_ms(g_quick ? 1 : 10, f) * 1e3);
}
int main(int argc, char** argv) {
  g_quick = argc > 1 && !std::strcmp(argv[1], "--quick");
  const int n = 1 << 24;
  float *in, *out;
  double* dout;
  unsigned* uout;
  cudaMalloc(&in, size_t(n) * 8 * 4 + 64);
  cudaMalloc(&out, size_t(n) * 4 + 64);
  cudaMalloc(&dout, size_t(n) * 8);
  cudaMalloc(&uout, size_t(n) * 4);
  cudaMemset(in, 0, size_t(n) * 8 * 4 + 64);
  std::vector<float> tab(1024);
  for (int i = 0; i < 1024; ++i) tab[i] = i * 0.5f;
  cudaMemcpyToSymbol(c_table, tab.data(), sizeof(float) * 1024);
  const int b = n / 256, cb = 132 * 16;
  time_it("strided_2", [&] { strided<<<b, 256>>>(in, out, n, 2); });
  time_it("strided_8", [&] { strided<<<b, 256>>>(in, out, n, 8); });
  time_it("misaligned", [&] { misaligned<<<b, 256>>>(in, out, n); });
  time_it("vec4", [&] { vec4<<<b / 4, 256>>>((float4*)in, (float4*)out, n / 4); });
  time_it("const_uniform", [&] { const_uniform<<<cb, 256>>>(out, 1024); });
  time_it("const_divergent", [&] { const_divergent<<<cb, 256>>>(out, 1024); });
  time_it("local_array", [&] { local_array<<<cb, 256>>>(out, 1024); });
  time_it("bank_conflict_1", [&] { bank_conflict<<<cb, 256>>>(out, 1024, 1); });
  time_it("bank_conflict_2", [&] { bank_conflict<<<cb, 256>>>(out, 1024, 2); });
  time_it("bank_conflict_32", [&] { bank_conflict<<<cb, 256>>>(out, 1024, 32); });
  time_it("one_block_loop", [&] { one_block_loop<<<1, 1024>>>(in, out, 1 << 22); });
  time_it("sync_heavy", [&] { sync_heavy<<<132 * 2, 1024>>>(out, 256); });
  time_it("shfl_reduce", [&] { shfl_reduce<<<cb, 256>>>(in, out, n); });
  time_it("matvec_cols", [&] { matvec_cols<<<16, 256>>>(in, in, out, 4096, 4096); });
  time_it("int_mod", [&] { int_mod<<<cb, 256>>>(uout, 256, 1000003u); });
  std::printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
