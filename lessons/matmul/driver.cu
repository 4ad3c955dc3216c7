// Matrix multiply: the lesson's program. It multiplies two random N x N
// matrices with each of the four kernels in your file (exercise.cu or
// solution.cu), checks each against the CPU, and says how fast each was.
//
//   matmul [N]            N x N (default 256) on the four kernels
//   matmul --bench [N]    time them (default 4096); on a GPU, against cuBLAS
//
// Build and run it, from the course's top folder:
//   on the simulator:  ./build/bin/cudalab run matmul -- 100
//     (builds it with your exercise.cu, again whenever you change it;
//     --solution takes solution.cu instead, --check runs it under the checks)
//   on a GPU, with nvcc (all one line; sm_90 is an H100 or H200: put your GPU's):
//     nvcc -O3 -std=c++17 -arch=sm_90 -I framework/include -I support/include
//       -I trace/include -I lessons/matmul lessons/matmul/driver.cu
//       lessons/matmul/exercise.cu framework/src/*.cpp support/src/*.cpp -lcublas
//       -o matmul
//     ./matmul --bench
//
// Napkin math: C = A x B takes 2 N^3 FLOPs (a multiply and an add per k per
// element) and needs only 3 N^2 floats moved at the least, so a good kernel
// is limited by arithmetic, not memory. The naive kernels read 2 N^3 floats
// instead (every element of A and B once per product it is in); shared tiles
// of 16 cut that 16 times, register tiles of 8 x 8 per thread 8 times more
// and, above all, give each thread 64 multiply-adds per 16 shared reads. On
// an H100 (docs/measurements.md): coalesced 5.3 TFLOP/s, tiled 16x16 8.2, cuBLAS 51.5.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cudalab/framework/compare.h"
#include "cudalab/framework/timing.h"
#include "lesson.h"
#include "reference.h"
#include "stages.h"
#ifndef CUDALAB_SIMULATOR
#include <cublas_v2.h>
#endif

namespace {

using cudalab::check;

using Launcher = void (*)(const float*, const float*, float*, int);
struct Kernel {
  const char* name;
  Launcher launch;
};
// The four stages of stages.h, named "1 naive", "2 coalesced", ...
#define KERNEL_OF_STAGE(number, name, kernel, launcher) {#number " " name, launcher},
const Kernel kKernels[] = {MATMUL_STAGES(KERNEL_OF_STAGE)};
#undef KERNEL_OF_STAGE

// Checks every element (n up to 512) or 256 random ones (larger n).
bool verify(const std::vector<float>& a, const std::vector<float>& b, const float* d_c, int n) {
  std::vector<float> got(size_t(n) * n);
  check(cudaMemcpy(got.data(), d_c, got.size() * sizeof(float), cudaMemcpyDeviceToHost),
        "copy of c");
  std::mt19937 rng(7);
  const bool all = n <= 512;
  const size_t count = all ? got.size() : 256;
  size_t wrong = 0;
  for (size_t s = 0; s < count; ++s) {
    const size_t i = all ? s : rng() % got.size();
    double size = 0;
    const double want = matmul_cpu_element(a.data(), b.data(), n, int(i / n), int(i % n), &size);
    const double tol = matmul_tolerance(n, size) + 1e-30;
    if (!(std::fabs(got[i] - want) <= tol)) {
      if (++wrong <= 3)
        std::printf("    c[%zu] (row %zu, column %zu) is %g, expected %g\n", i, i / n, i % n,
                    double(got[i]), want);
    }
  }
  if (wrong) std::printf("    %zu of %zu checked elements are wrong\n", wrong, count);
  return wrong == 0;
}

int run(int n, bool bench) {
  const size_t elements = size_t(n) * n, bytes = elements * sizeof(float);
  const std::vector<float> a = cudalab::random_floats(elements, 1),
                           b = cudalab::random_floats(elements, 2);
  float *d_a, *d_b, *d_c;
  check(cudaMalloc(&d_a, bytes), "cudaMalloc(a)");
  check(cudaMalloc(&d_b, bytes), "cudaMalloc(b)");
  check(cudaMalloc(&d_c, bytes), "cudaMalloc(c)");
  check(cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice), "copy of a");
  check(cudaMemcpy(d_b, b.data(), bytes, cudaMemcpyHostToDevice), "copy of b");
  const double flops = 2.0 * double(n) * n * n;
  std::printf("C = A x B for %d x %d floats: %.3g FLOPs, at least %.3g MB moved\n", n, n, flops,
              3.0 * double(bytes) / 1e6);
  const int reps = bench ? (n >= 2048 ? 5 : 20) : 1;
  double reference_tflops = 0;
#ifndef CUDALAB_SIMULATOR
  if (bench) {  // the machine's practical limit: cuBLAS SGEMM, TF32 off
    cublasHandle_t h;
    cublasCreate(&h);
    cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH);
    const float one = 1, zero = 0;
    auto sgemm = [&] {  // row-major C = A B is column-major C^T = B^T A^T
      cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, d_b, n, d_a, n, &zero, d_c, n);
    };
    const float ms = cudalab::average_ms(sgemm, reps, "cuBLAS");
    reference_tflops = flops / (ms * 1e-3) / 1e12;
    std::printf("  cuBLAS SGEMM              %9.3f ms  %7.2f TFLOP/s  (the reference)\n", ms,
                reference_tflops);
    cublasDestroy(h);
  }
#endif
  bool all_ok = true;
  for (const Kernel& k : kKernels) {
    check(cudaMemset(d_c, 0xff, bytes), "cudaMemset(c)");  // NaN: unwritten elements show
    const float ms = cudalab::average_ms([&] { k.launch(d_a, d_b, d_c, n); }, reps, k.name);
    const double tflops = flops / (ms * 1e-3) / 1e12;
    const bool ok = verify(a, b, d_c, n);
    all_ok &= ok;
    std::printf("  %-24s %9.3f ms  %7.3f TFLOP/s", k.name, ms, tflops);
    if (reference_tflops > 0)
      std::printf("  %5.1f %% of cuBLAS", 100.0 * tflops / reference_tflops);
    std::printf("  %s\n", ok ? "right" : "WRONG");
  }
  if (reference_tflops == 0 && bench)
    std::printf(
        "(on the simulator: times are the CPU's; on an H100 at 4096 the four kernels reach "
        "1.0, 5.3, 8.2 and 27.8 TFLOP/s, cuBLAS 51.5)\n");
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
  return all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  long n = 0;
  bool bench = false;
  for (int i = 1; i < argc; ++i) {
    char* end = nullptr;
    if (!std::strcmp(argv[i], "--bench")) {
      bench = true;
    } else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf(
          "usage: matmul [N]          multiply N x N matrices (default 256) four ways\n"
          "       matmul --bench [N]  time the four kernels (default 4096)\n");
      return 0;
    } else if (n == 0 &&
               (n = std::strtol(argv[i], &end, 10), end && !*end && n >= 1 && n <= 16384)) {
    } else {
      std::fprintf(stderr, "matmul: '%s' is not an option or a size from 1 to 16384\n", argv[i]);
      return 2;
    }
  }
  if (std::string why; !cudalab::device_available(&why)) {
    std::printf("matmul: no CUDA device (%s); nothing to run\n", why.c_str());
    return 77;
  }
  if (n == 0) n = bench ? 4096 : 256;
  return run(int(n), bench);
}
