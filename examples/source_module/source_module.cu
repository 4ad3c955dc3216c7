// A kernel compiled while the program runs: the CUDA C++ way of PyCUDA's
// SourceModule. The kernel is a string; NVRTC (CUDA's run-time compiler)
// compiles it, the driver API loads the result as a module, finds the kernel
// by name and launches it. The program then checks the GPU's products
// against the CPU's and prints them.
//
// Why do this? The source can be made while the program runs: sizes, types
// or unrolled loops written into the string before it is compiled.
//
// It prints the CPU's time for the same work (one core, a plain loop) and
// the kernel's: on the simulator, the time of the CPU's threads running it;
// built with nvcc, the GPU's.
//
// Build on the simulator:  cudalab-cc -I framework/include source_module.cu -lnvrtc -lcuda -o
// source_module Build for a GPU:         nvcc -I framework/include source_module.cu -lnvrtc -lcuda
// -o source_module
#include <cuda.h>
#include <nvrtc.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cudalab/framework/timing.h"

// The kernel, as text. extern "C" keeps its name "multiply_them" as
// written; a C++ name would be mangled (nvrtcGetLoweredName finds it then).
const char* kKernelSource = R"(
extern "C" __global__ void multiply_them(float* dest, const float* a, const float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dest[i] = a[i] * b[i];
}
)";

// Every call returns an error code: stop at the first one that is not success.
void check(CUresult result, const char* what) {
  if (result != CUDA_SUCCESS) {
    const char* name = "unknown error";
    cuGetErrorName(result, &name);
    std::printf("%s failed: %s\n", what, name);
    std::exit(1);
  }
}

void check(nvrtcResult result, const char* what) {
  if (result != NVRTC_SUCCESS) {
    std::printf("%s failed: %s\n", what, nvrtcGetErrorString(result));
    std::exit(1);
  }
}

int main() {
  // 1. The driver API: the first device and its context.
  check(cuInit(0), "cuInit");
  CUdevice device;
  check(cuDeviceGet(&device, 0), "cuDeviceGet");
  CUcontext context;
  check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(context), "cuCtxSetCurrent");

  // 2. Compile the string for this device's architecture.
  int major = 0, minor = 0;
  check(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
        "cuDeviceGetAttribute");
  check(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
        "cuDeviceGetAttribute");
  const std::string arch = "--gpu-architecture=compute_" + std::to_string(major * 10 + minor);
  const char* options[] = {arch.c_str()};

  nvrtcProgram program;
  check(nvrtcCreateProgram(&program, kKernelSource, "multiply.cu", 0, nullptr, nullptr),
        "nvrtcCreateProgram");
  const nvrtcResult compiled = nvrtcCompileProgram(program, 1, options);
  size_t log_size = 0;
  check(nvrtcGetProgramLogSize(program, &log_size), "nvrtcGetProgramLogSize");
  if (log_size > 1) {  // the compiler's errors and warnings, at the string's own lines
    std::vector<char> log(log_size);
    check(nvrtcGetProgramLog(program, log.data()), "nvrtcGetProgramLog");
    std::printf("compiler messages:\n%s\n", log.data());
  }
  check(compiled, "nvrtcCompileProgram");
  size_t ptx_size = 0;
  check(nvrtcGetPTXSize(program, &ptx_size), "nvrtcGetPTXSize");
  std::vector<char> ptx(ptx_size);
  check(nvrtcGetPTX(program, ptx.data()), "nvrtcGetPTX");
  check(nvrtcDestroyProgram(&program), "nvrtcDestroyProgram");
  std::printf("Compiled multiply_them from a string at run time.\n");

  // 3. Load the compiled code as a module and find the kernel by its name.
  CUmodule module;
  check(cuModuleLoadData(&module, ptx.data()), "cuModuleLoadData");
  CUfunction multiply_them;
  check(cuModuleGetFunction(&multiply_them, module, "multiply_them"), "cuModuleGetFunction");

  // 4. Two arrays of 400 numbers on the host, copied to the device.
  const int n = 400;
  std::vector<float> a(n), b(n), dest(n, 0.0f);
  for (int i = 0; i < n; ++i) {
    a[i] = float(i % 17) * 0.25f;
    b[i] = float(i % 5) - 2.0f;
  }
  const size_t bytes = n * sizeof(float);
  CUdeviceptr d_a, d_b, d_dest;
  check(cuMemAlloc(&d_a, bytes), "cuMemAlloc");
  check(cuMemAlloc(&d_b, bytes), "cuMemAlloc");
  check(cuMemAlloc(&d_dest, bytes), "cuMemAlloc");
  check(cuMemcpyHtoD(d_a, a.data(), bytes), "cuMemcpyHtoD");
  check(cuMemcpyHtoD(d_b, b.data(), bytes), "cuMemcpyHtoD");

  // 5. Launch: the kernel's arguments are passed as an array of pointers,
  // one per parameter, in order.
  int count = n;
  void* args[] = {&d_dest, &d_a, &d_b, &count};
  const unsigned threads = 128, blocks = (n + threads - 1) / threads;
  check(cuLaunchKernel(multiply_them, blocks, 1, 1, threads, 1, 1, 0, nullptr, args, nullptr),
        "cuLaunchKernel");
  check(cuCtxSynchronize(), "cuCtxSynchronize");
  check(cuMemcpyDtoH(dest.data(), d_dest, bytes), "cuMemcpyDtoH");

  // 6. The CPU's answer, and the GPU's.
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    if (dest[i] != a[i] * b[i]) ++wrong;
  std::printf("Multiplied %d pairs in %u blocks of %u threads.\n", n, blocks, threads);
  for (int i = 0; i < 5; ++i) std::printf("  %5.2f * %5.2f = %6.2f\n", a[i], b[i], dest[i]);
  if (wrong == 0)
    std::printf("All %d products match the CPU's.\n", n);
  else
    std::printf("%d of %d products differ from the CPU's.\n", wrong, n);

  // 7. The times: the CPU's loop, and the kernel launched and waited for.
  std::vector<float> on_cpu(n);
  const double cpu_ms = cudalab::host_ms(
      [&] {
        for (int i = 0; i < n; ++i) on_cpu[i] = a[i] * b[i];
      },
      5);
  const double kernel_ms = cudalab::host_ms(
      [&] {
        check(cuLaunchKernel(multiply_them, blocks, 1, 1, threads, 1, 1, 0, nullptr, args, nullptr),
              "cuLaunchKernel");
        check(cuCtxSynchronize(), "cuCtxSynchronize");
      },
      5);
  std::printf("time: the CPU's loop %.4f ms; the kernel on %s, launched and waited for, %.4f ms\n",
              cpu_ms, cudalab::kernels_run_on(), kernel_ms);

  check(cuMemFree(d_a), "cuMemFree");
  check(cuMemFree(d_b), "cuMemFree");
  check(cuMemFree(d_dest), "cuMemFree");
  check(cuModuleUnload(module), "cuModuleUnload");
  check(cuDevicePrimaryCtxRelease(device), "cuDevicePrimaryCtxRelease");
  return wrong == 0 ? 0 : 1;
}

// How CTest runs this example (tests/lit/README.md): built for the
// simulator and, where nvcc is found, for a GPU, it must print
// expected_output.txt, then its times, and exit 0.
// BUILD: RUNTIME_COMPILE
// TEST: example.source_module
// LABELS: unit
// RUN: %bin > output.txt && grep -v '^time: ' output.txt > products.txt
// RUN: diff -u %S/expected_output.txt products.txt
// RUN: cat output.txt
// CHECK: time: the CPU's loop {{[0-9.]+}} ms; the kernel on the cudalab simulator (CPU threads),
// launched and waited for, {{[0-9.]+}} ms
//
// TEST: gpu.example.source_module
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu > output.txt && grep -v '^time: ' output.txt > products.txt
// RUN: diff -u %S/expected_output.txt products.txt
// RUN: cat output.txt
// CHECK: time: the CPU's loop {{[0-9.]+}} ms; the kernel on the GPU, launched and waited for,
// {{[0-9.]+}} ms
