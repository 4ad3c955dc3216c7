// Benchmark program: the cost of one __syncthreads per thread, and of
// one-block launches (empty; 256 threads that copy a word; the same with a
// warp shuffle), on the simulator.
#include <chrono>
#include <cstdio>

__global__ void barriers(int rounds) {
  for (int r = 0; r < rounds; ++r) __syncthreads();
}
__global__ void empty() {}
__global__ void copy(int* out) { out[threadIdx.x] = int(threadIdx.x); }
__global__ void shuffle(int* out) {
  out[threadIdx.x] = __shfl_sync(0xffffffffu, int(threadIdx.x), 31 - int(threadIdx.x % 32));
}

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
  int* out;
  cudaMalloc(&out, 256 * sizeof(int));
  for (int k = 0; k < 2; ++k) {
    auto t5 = clock::now();
    for (int i = 0; i < launches; ++i) {
      if (k == 0)
        copy<<<1, 256>>>(out);
      else
        shuffle<<<1, 256>>>(out);
    }
    cudaDeviceSynchronize();
    auto t6 = clock::now();
    std::printf("launch <<<1, 256>>> %s: %.1f us\n",
                k == 0 ? "of threads that copy a word" : "of threads that each shuffle once",
                std::chrono::duration<double, std::micro>(t6 - t5).count() / launches);
  }
  cudaFree(out);
  return 0;
}
