// hostile: allocates host memory in 1 GiB chunks up to 64 GiB, touching every page; computes a * b
// expect-max-points: 0
//
// mallocs 1 GiB at a time and writes one byte in every 4 KiB page of it, so
// the memory is really used, until malloc fails or 64 GiB are held; then
// tries one malloc of 64 GiB and an mmap of 64 GiB with MAP_POPULATE. The
// address-space limit should make it fail early; without one the memory
// limit must stop it, and the machine and the judge must survive. If it
// ever gets past that, the kernel computes a * b.
#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "lesson.h"

namespace {
constexpr size_t kGiB = size_t(1) << 30;
constexpr size_t kPage = 4096;

void touch(char* p, size_t bytes) {
  for (size_t at = 0; at < bytes; at += kPage) p[at] = char(at >> 12);
}

void hog() {
  std::vector<char*> held;
  for (int k = 0; k < 64; ++k) {
    char* p = static_cast<char*>(std::malloc(kGiB));
    if (!p) break;
    touch(p, kGiB);
    held.push_back(p);
    std::fprintf(stderr, "host_memory_hog: %d GiB held\n", k + 1);
  }
  if (char* big = static_cast<char*>(std::malloc(64 * kGiB))) touch(big, 64 * kGiB);
  void* m = mmap(nullptr, 64 * kGiB, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE | MAP_NORESERVE, -1, 0);
  if (m != MAP_FAILED) touch(static_cast<char*>(m), 64 * kGiB);
  // Never freed: held until the process ends.
}
}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] * b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  hog();
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
