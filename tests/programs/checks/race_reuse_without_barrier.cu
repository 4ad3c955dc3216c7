// racecheck corpus (beyond compute-sanitizer): a block reduces a maximum
// into partial[], reads it from partial[0], then reuses partial[] for the
// next sum with no barrier between: a fast thread writes its value over
// partial[0] while a slower one has still to read the maximum there.
// The read is on the earlier line, and loops stand before it (and a comment
// with the word for), but no loop holds both lines: the fix is a
// __syncthreads() between them.
// expect: racecheck read-after-write race_reuse_without_barrier.cu:21
#include <cstdio>

// one block for the whole array
__global__ void shift_by_max(float* data) {
  __shared__ float partial[64];
  const unsigned t = threadIdx.x;
  partial[t] = data[t];
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (t < half) partial[t] = fmaxf(partial[t], partial[t + half]);
    __syncthreads();
  }
  const float top = partial[0];
  partial[t] = data[t] - top;  // the block's values, shifted by the maximum
  __syncthreads();
  data[t] = partial[(t + 1) % blockDim.x];
}

int main() {
  float* data;
  cudaMalloc(&data, 64 * sizeof(float));
  cudaMemset(data, 0, 64 * sizeof(float));
  shift_by_max<<<1, 64>>>(data);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(data);
  return 0;
}
