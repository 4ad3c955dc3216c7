// hostile: after a correct launch, the host code writes through a bad pointer (SIGSEGV)
// expect-max-points: 0
// note: the kernel is correct; the launcher then crashes the process before returning
#include <sys/mman.h>

#include <csignal>
#include <cstdint>
#include <cstdlib>

#include "lesson.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
  cudaDeviceSynchronize();
  // Nobody gets to catch it: the default action for SIGSEGV.
  std::signal(SIGSEGV, SIG_DFL);
  std::signal(SIGBUS, SIG_DFL);
  // A wild pointer, through a volatile so the compiler keeps the store.
  int* volatile wild = reinterpret_cast<int*>(uintptr_t(0x10));
  *wild = 42;
  // A page that was unmapped.
  void* page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  munmap(page, 4096);
  *static_cast<volatile int*>(page) = 42;
  // And if both were survived somehow, the signal itself.
  std::raise(SIGSEGV);
}
