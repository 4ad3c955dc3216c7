// racecheck corpus: each thread reads its right neighbour's value, then
// overwrites its own slot with no barrier between the read and the write.
// expect: racecheck write-after-read race_shared_war.cu:12
#include <cstdio>

__global__ void shift_left(int* data) {
  __shared__ int s[128];
  const unsigned t = threadIdx.x;
  s[t] = data[t];
  __syncthreads();
  const int right = t + 1 < blockDim.x ? s[t + 1] : 0;
  s[t] = right;  // a __syncthreads() is missing before this write
  __syncthreads();
  data[t] = s[t];
}

int main() {
  int* data;
  cudaMalloc(&data, 128 * sizeof(int));
  cudaMemset(data, 0, 128 * sizeof(int));
  shift_left<<<1, 128>>>(data);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(data);
  return 0;
}
