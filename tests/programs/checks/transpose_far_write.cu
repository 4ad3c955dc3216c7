// memcheck corpus: a transpose that indexes its output with the wrong
// dimension (cols where rows belongs), so most threads write far past the
// end of the output. A GPU faults once they leave its memory; the
// simulator stops the launch there, naming the buffer they ran past, and
// never writes over memory that is not the program's device buffers.
// expect: memcheck write transpose_far_write.cu:12
#include <cstdio>
#include <vector>

__global__ void transpose(const float* in, float* out, int rows, int cols) {
  const int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows && c < cols) out[c * cols + r] = in[r * cols + c];  // c * rows + r
}

int main() {
  const int rows = 64, cols = 1024;
  std::vector<float> h(rows * cols, 1.0f);
  float *in, *out;
  cudaMalloc(&in, h.size() * sizeof(float));
  cudaMalloc(&out, h.size() * sizeof(float));
  cudaMemcpy(in, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
  transpose<<<dim3(cols / 16, rows / 16), dim3(16, 16)>>>(in, out, rows, cols);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
