// hostile: a thread left running after the launcher returns keeps overwriting c (and freed memory)
// expect-max-points: 0
// note: the kernel is correct, but c is overwritten before the launcher returns and after
//
// The kernel writes the right answer. Then the launcher starts a detached
// thread that blocks every signal and overwrites c with 12345.0 again and
// again, for as long as the process lives, and returns only once the thread
// has gone over all of c at least once; so what the launcher leaves behind
// is wrong, and it keeps changing while it is copied back. Each later call
// adds a thread for its own c, while the earlier threads go on writing into
// buffers that were freed (and perhaps reused for the next test's data).
// The judge must see wrong results or a crash, and the process must end
// when the test does.
#include <pthread.h>

#include <atomic>
#include <csignal>
#include <thread>

#include "lesson.h"

namespace {

void corrupt_forever(float* c, int n, std::atomic<bool>* first_pass_done) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  volatile float* v = c;
  while (true) {
    for (int i = 0; i < n; ++i) v[i] = 12345.0f;
    first_pass_done->store(true);
  }
}

}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
  cudaDeviceSynchronize();
  // On the simulator device memory is host memory: a host thread can write it.
  auto* done = new std::atomic<bool>(false);  // never freed: the thread outlives this call
  std::thread(corrupt_forever, c, n, done).detach();
  while (!done->load()) std::this_thread::yield();
}
