// Kernels whose floating-point operations are known, for the FLOP counts of
// `cudalab stats`: a naive matmul (2 n^3 single-precision FLOPs) on a size
// that is not a multiple of the warp, and a double-precision axpy (2 n).
#include <cstdio>

__global__ void matmul(const float* a, const float* b, float* c, int n) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float sum = 0;
  for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];
  c[row * n + col] = sum;
}

__global__ void axpy(double alpha, const double* x, double* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + y[i];
}

int main() {
  const int n = 40, m = 100;
  float *a, *b, *c;
  double *x, *y;
  cudaMalloc(&a, n * n * sizeof(float));
  cudaMalloc(&b, n * n * sizeof(float));
  cudaMalloc(&c, n * n * sizeof(float));
  cudaMalloc(&x, m * sizeof(double));
  cudaMalloc(&y, m * sizeof(double));
  cudaMemset(a, 0, n * n * sizeof(float));
  cudaMemset(b, 0, n * n * sizeof(float));
  cudaMemset(x, 0, m * sizeof(double));
  cudaMemset(y, 0, m * sizeof(double));
  matmul<<<dim3(3, 3), dim3(16, 16)>>>(a, b, c, n);
  axpy<<<2, 64>>>(3.0, x, y, m);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("flops: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
