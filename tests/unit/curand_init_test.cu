// curand_init(seed, thread id, 0) in every thread of a large grid: the
// simulator jumps from one thread's state to the next; each state must equal
// the one a lone curand_init computes.
#include <curand_kernel.h>
#include <gtest/gtest.h>

#include <vector>

namespace {

__global__ void first_draws(unsigned* out, int n) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= n) return;
  curandState s;
  curand_init(2026, id, 0, &s);
  out[id] = curand(&s);
}

TEST(CurandInit, EveryThreadsStateIsItsOwnSubsequence) {
  const int n = 1 << 16;
  unsigned* d;
  cudaMalloc(&d, n * sizeof(unsigned));
  first_draws<<<n / 256, 256>>>(d, n);
  std::vector<unsigned> h(n);
  ASSERT_EQ(cudaMemcpy(h.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost), cudaSuccess);
  // Checked from the top down, so that none can reuse an earlier jump.
  for (int id = n - 1; id >= 0; id -= 997) {
    curandState s;
    curand_init(2026, id, 0, &s);
    EXPECT_EQ(h[id], curand(&s)) << "thread " << id;
  }
  cudaFree(d);
}

}  // namespace
