// A kernel compiled with NVRTC reports as one compiled in: a kernel's
// printf, memcheck's finding at the kernel string's own line (fill.cu:6,
// CUDALAB_CHECK=all), and a fault at its line (fill.cu:10).
#include <cstdio>
#include <cuda.h>
#include <nvrtc.h>
#include <vector>

const char* kSource = R"(extern "C" __global__ void fill(float* out, int n) {
  __shared__ float tile[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i;
  __syncthreads();
  out[i] = tile[63 - threadIdx.x];
  if (i == 0) printf("hello from the module, n=%d\n", n);
}
extern "C" __global__ void crash(int* p) {
  p[threadIdx.x] = 1;
}
)";

int main() {
  std::setvbuf(stdout, nullptr, _IONBF, 0);  // in order with the reports on stderr
  nvrtcProgram prog;
  nvrtcCreateProgram(&prog, kSource, "fill.cu", 0, nullptr, nullptr);
  // C++14, as older programs ask for (NVRTC takes it): built as C++17.
  const char* options[] = {"--std=c++14"};
  if (nvrtcCompileProgram(prog, 1, options) != NVRTC_SUCCESS) {
    size_t size = 0;
    nvrtcGetProgramLogSize(prog, &size);
    std::vector<char> log(size);
    nvrtcGetProgramLog(prog, log.data());
    std::printf("%s", log.data());
    return 1;
  }
  size_t size = 0;
  nvrtcGetPTXSize(prog, &size);
  std::vector<char> ptx(size);
  nvrtcGetPTX(prog, ptx.data());
  cuInit(0);
  CUmodule module;
  CUfunction fill, crash;
  std::printf("load %d\n", cuModuleLoadData(&module, ptx.data()));
  cuModuleGetFunction(&fill, module, "fill");
  cuModuleGetFunction(&crash, module, "crash");
  CUdeviceptr out;
  cuMemAlloc(&out, 100 * sizeof(float));
  int n = 100;  // 128 threads write: the last 28 write past the end
  void* args[] = {&out, &n};
  std::printf("fill %d\n", cuLaunchKernel(fill, 2, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr));
  std::printf("sync %d\n", cuCtxSynchronize());
  CUdeviceptr null_pointer = 0;
  void* crash_args[] = {&null_pointer};
  std::printf("crash %d\n",
              cuLaunchKernel(crash, 1, 1, 1, 32, 1, 1, 0, nullptr, crash_args, nullptr));
  std::printf("sync %d\n", cuCtxSynchronize());
  return 0;
}

// The tests of this program (tests/lit/README.md): a fault in a kernel
// compiled from a string is reported at the string's line (fill.cu:10).
// BUILD: RUNTIME_COMPILE NO_GPU
// TEST: unit.nvrtc_fault_at_kernel_string_line
// LABELS: unit
// RUN: %bin
// CHECK: hello from the module, n=100
// CHECK: kernel 'crash' (launched at {{[^)]*}}nvrtc_reports.cu:{{[0-9]+}}) stopped at fill.cu:10
//
// Without the host compiler that NVRTC's kernels are built with, the
// program stops and says which compiler it wanted.
// TEST: unit.nvrtc_without_a_compiler
// LABELS: unit
// RUN: CUDALAB_NVRTC_CXX=/nonexistent/clang++ %bin
// EXIT: 1
// CHECK: the host compiler /nonexistent/clang++ is not there. Set CUDALAB_NVRTC_CXX
//
// The checks, in a kernel compiled from a string. (Not in the sanitize or
// tsan builds: the module compiled while the program runs is not built with
// AddressSanitizer or ThreadSanitizer, whose allocator the program's checks
// then see; the checks of such modules are tested in the default build.)
// TEST: unit.nvrtc_checks_at_kernel_string_line
// LABELS: unit
// REQUIRES: !sanitize, !tsan
// RUN: CUDALAB_CHECK=all %bin
// CHECK: Invalid __global__ write of size 4 bytes
// CHECK-NEXT: {{=+}} at fill in fill.cu:6
