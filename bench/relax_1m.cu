// Benchmark program: 64 steps of Floyd-Warshall on 1024 nodes, one launch a
// step and a thread a matrix element (1M threads) that does two loads, an
// add, a compare and perhaps a store. A kernel this small is where the cost
// of going from one thread to the next shows: it waits at nothing, so the
// block runs as one loop over its threads (or, with CUDALAB_BLOCK_LOOPS=off,
// its threads are started one by one).
#include <cstdio>
#include <vector>

#include "bench_data.h"

__global__ void relax(int* d, int n, int k) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  const int via = d[i * n + k] + d[k * n + j];
  if (via < d[i * n + j]) d[i * n + j] = via;
}

int main() {
  const int n = 1024, steps = 64;
  std::vector<int> d(size_t(n) * n);
  fill_relax_input(d, n);
  int* d_d;
  cudaMalloc(&d_d, d.size() * sizeof(int));
  cudaMemcpy(d_d, d.data(), d.size() * sizeof(int), cudaMemcpyHostToDevice);
  const dim3 block(16, 16), grid(n / 16, n / 16);
  for (int k = 0; k < steps; ++k) relax<<<grid, block>>>(d_d, n, k);
  std::vector<int> got(d.size());
  cudaMemcpy(got.data(), d_d, got.size() * sizeof(int), cudaMemcpyDeviceToHost);
  const bool ok = relax_wrong(d, got, n, steps) == 0;
  std::printf("%d relaxation steps on %d nodes: %s\n", steps, n, ok ? "as the CPU's" : "WRONG");
  return !ok;
}
