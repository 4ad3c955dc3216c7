// Benchmark program: the cost of one __syncthreads per thread, and of an
// empty one-block launch, on the simulator (printed in nanoseconds).
#include <chrono>
#include <cstdio>

__global__ void barriers(int rounds) {
  for (int r = 0; r < rounds; ++r) __syncthreads();
}
__global__ void empty() {}

int main() {
  using clock = std::chrono::steady_clock;
  const int blocks = 256, threads = 256, rounds = 64;
  barriers<<<blocks, threads>>>(1);  // warm-up: stacks made
  auto t0 = clock::now();
  barriers<<<blocks, threads>>>(rounds);
  auto t1 = clock::now();
  barriers<<<blocks, threads>>>(0);
  auto t2 = clock::now();
  const double with = std::chrono::duration<double, std::nano>(t1 - t0).count();
  const double without = std::chrono::duration<double, std::nano>(t2 - t1).count();
  const double per_sync = (with - without) / (double(blocks) * threads * rounds);
  const int launches = 2000;
  auto t3 = clock::now();
  for (int i = 0; i < launches; ++i) empty<<<1, 1>>>();
  auto t4 = clock::now();
  const double per_launch = std::chrono::duration<double, std::nano>(t4 - t3).count() / launches;
  std::printf("__syncthreads: %.1f ns per thread per barrier (wall time, all workers)\n", per_sync);
  std::printf("empty launch <<<1, 1>>>: %.1f us\n", per_launch / 1000);
  return 0;
}
