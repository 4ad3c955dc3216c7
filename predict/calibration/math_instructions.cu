// A GPU's instructions for one call of each math library function, and for
// a division and a square root, as nvcc -O3 compiles them for sm_90: a
// kernel of 1M threads, each one call on a value between 0.5 and 2, beside
// one that only copies (base_f, base_d). Run under Nsight Compute:
//   nvcc -O3 -arch=sm_90 math_instructions.cu -o math_instructions
//   ncu --csv --metrics smsp__inst_executed.sum,smsp__inst_executed_pipe_fp64.sum,\
//       smsp__inst_executed_pipe_xu.sum ./math_instructions
// A call's instructions are its kernel's less the copy's, over 32,768 warps:
// math_instructions.txt has them, and the simulator's estimate of a
// block's instructions (simulator/src/traces/float_ops.cpp) counts them.
#include <cmath>
#include <cstdio>
#define K1(name, T, expr)                            \
  __global__ void name(const T* in, T* out, int n) { \
    int i = blockIdx.x * blockDim.x + threadIdx.x;   \
    if (i < n) {                                     \
      T x = in[i];                                   \
      out[i] = expr;                                 \
    }                                                \
  }
K1(base_f, float, x)
K1(base_d, double, x)
K1(k_sinf, float, sinf(x))
K1(k_cosf, float, cosf(x))
K1(k_tanf, float, tanf(x))
K1(k_expf, float, expf(x))
K1(k_exp2f, float, exp2f(x))
K1(k_exp10f, float, exp10f(x))
K1(k_logf, float, logf(x))
K1(k_log2f, float, log2f(x))
K1(k_log10f, float, log10f(x))
K1(k_powf, float, powf(x, 1.37f))
K1(k_sqrtf, float, sqrtf(x))
K1(k_rsqrtf, float, rsqrtf(x))
K1(k_fdiv, float, 1.37f / x)
K1(k_sin, double, sin(x))
K1(k_cos, double, cos(x))
K1(k_exp, double, exp(x))
K1(k_log, double, log(x))
K1(k_pow, double, pow(x, 1.37))
K1(k_sqrt, double, sqrt(x))
K1(k_ddiv, double, 1.37 / x)
K1(k_atanf, float, atanf(x))
K1(k_tanhf, float, tanhf(x))
K1(k_erff, float, erff(x))
int main() {
  const int n = 1 << 20;
  float *fi, *fo;
  double *di, *dout;
  cudaMalloc(&fi, n * 4);
  cudaMalloc(&fo, n * 4);
  cudaMalloc(&di, n * 8);
  cudaMalloc(&dout, n * 8);
  float* hf = new float[n];
  double* hd = new double[n];
  for (int i = 0; i < n; ++i) {
    hf[i] = 0.5f + (i % 1000) * 0.0015f;
    hd[i] = hf[i];
  }
  cudaMemcpy(fi, hf, n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(di, hd, n * 8, cudaMemcpyHostToDevice);
  const int b = n / 256;
  for (auto k : {base_f, k_sinf, k_cosf, k_tanf, k_expf, k_exp2f, k_exp10f, k_logf, k_log2f,
                 k_log10f, k_powf, k_sqrtf, k_rsqrtf, k_fdiv, k_atanf, k_tanhf, k_erff})
    k<<<b, 256>>>(fi, fo, n);
  for (auto k : {base_d, k_sin, k_cos, k_exp, k_log, k_pow, k_sqrt, k_ddiv})
    k<<<b, 256>>>(di, dout, n);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
