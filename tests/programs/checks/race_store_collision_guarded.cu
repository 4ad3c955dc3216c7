// racecheck corpus (beyond compute-sanitizer): race_store_collision's
// transpose with its bounds check on the line of the store, as students
// write it: two threads store into one element of out. The fix is the
// index, not an atomic.
// expect: racecheck write-after-write race_store_collision_guarded.cu:10
#include <cstdio>

__global__ void transpose(const float* in, float* out, int width, int height) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c < width && r < height) out[c * width + r] = in[r * width + c];
}

int main() {
  const int width = 4, height = 6;
  float *in, *out;
  cudaMalloc(&in, width * height * sizeof(float));
  cudaMalloc(&out, 2 * width * height * sizeof(float));
  float ramp[width * height];
  for (int i = 0; i < width * height; ++i) ramp[i] = float(i);  // two stores differ
  cudaMemcpy(in, ramp, sizeof(ramp), cudaMemcpyHostToDevice);
  transpose<<<1, dim3(8, 8)>>>(in, out, width, height);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(out);
  cudaFree(in);
  return 0;
}
