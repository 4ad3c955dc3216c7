// hostile: wrong results (a - b), and a detached thread that never ends,
// which a static object's destructor waits for
// expect-max-points: 0
//
// The launcher starts a worker thread (detached) that never finishes; at
// exit a static object waits for it. So after each answer the program never
// ends. The judge must stop waiting once the answer
// is in: one limit for the whole submission, not one per test.
#include <atomic>
#include <chrono>
#include <thread>

#include "lesson.h"

namespace {
std::atomic<bool> finished{false};
std::atomic<bool> started{false};
struct WaitsForTheWorker {
  ~WaitsForTheWorker() {
    while (started && !finished) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
} waits;
}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] - b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks, int threads) {
  if (!started.exchange(true))
    std::thread([] {
      while (!finished) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }).detach();
  vector_add<<<blocks, threads>>>(a, b, c, n);
}
