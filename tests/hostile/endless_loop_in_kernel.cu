// hostile: every thread writes its element, then spins forever with the watchdog signal blocked
// expect-max-points: 0
// graded-with-limit: 3
// note: the elements are correct, but the kernel never finishes
#include <pthread.h>

#include <csignal>

#include "lesson.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
  // On the simulator a kernel is host code: block every signal this worker
  // thread could be interrupted with (a timeout watchdog's included), then
  // spin. The volatile keeps the loop from being assumed to end.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  volatile unsigned long spins = 0;
  while (true) spins = spins + 1;
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
  cudaDeviceSynchronize();
}
