// synccheck corpus: __syncwarp with a mask of the even lanes, called by
// every lane: the odd lanes leave themselves out.
// expect: synccheck warp-mask syncwarp_self.cu:9
#include <cstdio>

__global__ void pairs(int* data) {
  __shared__ int s[32];
  s[threadIdx.x] = data[threadIdx.x];
  __syncwarp(0x55555555u);
  data[threadIdx.x] = s[threadIdx.x ^ 1];
}

int main() {
  int* data;
  cudaMalloc(&data, 32 * sizeof(int));
  cudaMemset(data, 0, 32 * sizeof(int));
  pairs<<<1, 32>>>(data);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(data);
  return 0;
}
