// checks corpus: one CUB BlockReduce TempStorage used for two reductions in
// a row without a __syncthreads() between them; the second reduction's
// warps write the storage while the first one's last reader may still read
// it. The report names CUB's lines (the storage is CUB's to use).
// expect: racecheck write-after-read block_reduce_warp_reductions.cuh:146
#include <cub/block/block_reduce.cuh>
#include <cstdio>

__global__ void sum_and_max(const int* in, int* out) {
  using Reduce = cub::BlockReduce<int, 128>;
  __shared__ typename Reduce::TempStorage storage;
  const int v = in[threadIdx.x];
  const int sum = Reduce(storage).Sum(v);
  const int max = Reduce(storage).Reduce(v, cub::Max());  // needs a __syncthreads() before it
  if (threadIdx.x == 0) {
    out[0] = sum;
    out[1] = max;
  }
}

int main() {
  int *in, *out;
  cudaMallocManaged(&in, 128 * sizeof(int));
  cudaMallocManaged(&out, 2 * sizeof(int));
  for (int i = 0; i < 128; ++i) in[i] = i;
  sum_and_max<<<1, 128>>>(in, out);
  std::printf("after: %s, sum %d max %d\n", cudaGetErrorName(cudaDeviceSynchronize()), out[0],
              out[1]);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
