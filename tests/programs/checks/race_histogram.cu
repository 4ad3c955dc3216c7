// racecheck corpus (beyond compute-sanitizer): a histogram counted with ++
// instead of atomicAdd: threads of every block update the same bins.
// expect: racecheck write-after-write race_histogram.cu:9
#include <cstdio>

__global__ void histogram(const unsigned char* data, int n, unsigned* bins) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    bins[data[i] % 16] += 1;  // atomicAdd(&bins[...], 1) is needed
  }
}

int main() {
  const int n = 4096;
  unsigned char* data;
  unsigned* bins;
  cudaMalloc(&data, n);
  cudaMalloc(&bins, 16 * sizeof(unsigned));
  cudaMemset(data, 7, n);
  cudaMemset(bins, 0, 16 * sizeof(unsigned));
  histogram<<<n / 256, 256>>>(data, n, bins);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(data);
  cudaFree(bins);
  return 0;
}
