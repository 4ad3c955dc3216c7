// hostile: asks cudaMalloc for 1 TiB (and other huge sizes) and fills what it gets; computes a * b
// expect-max-points: 0
//
// Allocates 1 TiB of device memory, then 1 TiB of managed and of pinned host
// memory, then halves the size until an allocation succeeds, down to 1 GiB,
// and fills each buffer it got with cudaMemset, which touches every page.
// Each failure is handled (the error is printed and cleared) and the kernel
// still runs, but computes a * b: it may only fail, never bring down the
// machine or the judge.
#include <cstdio>

#include "lesson.h"

namespace {
constexpr size_t kTiB = size_t(1) << 40;
constexpr size_t kGiB = size_t(1) << 30;

void report(const char* what, size_t bytes, cudaError_t e) {
  std::fprintf(stderr, "cuda_malloc_1tib: %s(%zu GiB): %s\n", what, bytes / kGiB,
               cudaGetErrorString(e));
  cudaGetLastError();  // clear it, so the launch below is not refused for it
}

void grab() {
  void* p = nullptr;
  cudaError_t e = cudaMalloc(&p, kTiB);
  report("cudaMalloc", kTiB, e);
  if (e == cudaSuccess) report("cudaMemset", kTiB, cudaMemset(p, 0x5a, kTiB));
  e = cudaMallocManaged(&p, kTiB);
  report("cudaMallocManaged", kTiB, e);
  if (e == cudaSuccess) report("cudaMemset", kTiB, cudaMemset(p, 0x5a, kTiB));
  e = cudaMallocHost(&p, kTiB);
  report("cudaMallocHost", kTiB, e);
  // Then the most it will give.
  for (size_t bytes = kTiB / 2; bytes >= kGiB; bytes /= 2) {
    e = cudaMalloc(&p, bytes);
    report("cudaMalloc", bytes, e);
    if (e == cudaSuccess) {
      report("cudaMemset", bytes, cudaMemset(p, 0x5a, bytes));
      break;  // kept, never freed
    }
  }
}
}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] * b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  grab();
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
