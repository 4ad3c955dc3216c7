// synccheck corpus: a loop whose trip count differs per thread, with a
// __syncthreads() inside it. The threads that leave the loop early wait at
// the barrier after it while the others wait at the one inside: the report
// names the barrier inside the loop, the one to fix.
// expect: synccheck divergent barrier_in_uneven_loop.cu:14
#include <cstdio>

__global__ void smooth(float* x, int n) {
  __shared__ float tile[64];
  const int t = threadIdx.x;
  for (int k = 0; k < t % 4 + 1; ++k) {  // 1 to 4 rounds, by thread
    tile[t] = x[t] + k;
    // each round waits for the block: not every thread has as many rounds
    __syncthreads();
  }
  __syncthreads();
  if (t < n) x[t] = tile[(t + 1) % 64];
}

int main() {
  float* x;
  cudaMalloc(&x, 64 * sizeof(float));
  cudaMemset(x, 0, 64 * sizeof(float));
  smooth<<<1, 64>>>(x, 64);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
