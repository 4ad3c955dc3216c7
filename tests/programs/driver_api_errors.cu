// The error codes of the driver API and NVRTC for bad input, as a GPU gives
// them: each call's result is compared with the code an H100 returned
// (measured there with this program, CUDA 13.0, driver 580). Prints each mismatch, then "all as
// CUDA" when there is none. Built for the simulator and, as its gpu twin,
// with nvcc -lnvrtc -lcuda.
#include <cuda.h>
#include <nvrtc.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {
int mismatches = 0;

void expect(const char* what, CUresult got, CUresult want) {
  const char* g = "?";
  const char* w = "?";
  cuGetErrorName(got, &g);
  cuGetErrorName(want, &w);
  std::printf("%-48s %s\n", what, g);
  if (got != want) {
    std::printf("  MISMATCH: a GPU gives %s\n", w);
    ++mismatches;
  }
}

void expect(const char* what, nvrtcResult got, nvrtcResult want) {
  std::printf("%-48s %s\n", what, nvrtcGetErrorString(got));
  if (got != want) {
    std::printf("  MISMATCH: a GPU gives %s\n", nvrtcGetErrorString(want));
    ++mismatches;
  }
}

const char* kGood = R"(
extern "C" __global__ void store(int* p, int v) { p[threadIdx.x] = v; }
template <class T> __global__ void twice(T* p) { p[threadIdx.x] *= 2; }
__device__ int flag;
)";
const char* kBad = "extern \"C\" __global__ void broken(int* p) {\n  p[0] = undeclared;\n}\n";
}  // namespace

int main() {
  int count = 0;
  expect("cuInit(0)", cuInit(0), CUDA_SUCCESS);
  expect("cuDeviceGetCount", cuDeviceGetCount(&count), CUDA_SUCCESS);
  CUdevice device;
  expect("cuDeviceGet(99)", cuDeviceGet(&device, 99), CUDA_ERROR_INVALID_DEVICE);
  expect("cuDeviceGet(0)", cuDeviceGet(&device, 0), CUDA_SUCCESS);
  const char* name = nullptr;
  expect("cuGetErrorName(12345)", cuGetErrorName(static_cast<CUresult>(12345), &name),
         CUDA_ERROR_INVALID_VALUE);
  CUcontext context;
  expect("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&context, device), CUDA_SUCCESS);
  expect("cuCtxSetCurrent", cuCtxSetCurrent(context), CUDA_SUCCESS);

  // NVRTC.
  nvrtcProgram bad;
  expect("nvrtcCreateProgram(null program)",
         nvrtcCreateProgram(nullptr, kBad, "bad.cu", 0, nullptr, nullptr),
         NVRTC_ERROR_INVALID_PROGRAM);
  expect("nvrtcCreateProgram(bad.cu)", nvrtcCreateProgram(&bad, kBad, "bad.cu", 0, nullptr, nullptr),
         NVRTC_SUCCESS);
  size_t size = 0;
  expect("nvrtcGetPTXSize before compiling", nvrtcGetPTXSize(bad, &size), NVRTC_SUCCESS);
  const char* lowered = nullptr;
  expect("nvrtcGetLoweredName before compiling", nvrtcGetLoweredName(bad, "broken", &lowered),
         NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION);
  const char* unknown_option[] = {"--no-such-option"};
  expect("nvrtcCompileProgram(--no-such-option)", nvrtcCompileProgram(bad, 1, unknown_option),
         NVRTC_ERROR_INVALID_OPTION);
  expect("nvrtcCompileProgram(undeclared name)", nvrtcCompileProgram(bad, 0, nullptr),
         NVRTC_ERROR_COMPILATION);
  expect("nvrtcGetProgramLogSize", nvrtcGetProgramLogSize(bad, &size), NVRTC_SUCCESS);
  std::vector<char> log(size);
  nvrtcGetProgramLog(bad, log.data());
  std::printf("the log:\n%s\n", log.data());
  const bool names_line = std::strstr(log.data(), "bad.cu(2)") || std::strstr(log.data(), "bad.cu:2");
  std::printf("%-48s %s\n", "the log names bad.cu line 2", names_line ? "yes" : "no");
  if (!names_line) ++mismatches;
  expect("nvrtcDestroyProgram", nvrtcDestroyProgram(&bad), NVRTC_SUCCESS);

  nvrtcProgram good;
  expect("nvrtcCreateProgram(good.cu)",
         nvrtcCreateProgram(&good, kGood, "good.cu", 0, nullptr, nullptr), NVRTC_SUCCESS);
  expect("nvrtcAddNameExpression(twice<int>)", nvrtcAddNameExpression(good, "twice<int>"),
         NVRTC_SUCCESS);
  const char* arch[] = {"-arch=compute_90", "-default-device", "-lineinfo", "--std=c++17"};
  expect("nvrtcCompileProgram(good.cu)", nvrtcCompileProgram(good, 4, arch), NVRTC_SUCCESS);
  expect("nvrtcAddNameExpression after compiling", nvrtcAddNameExpression(good, "twice<float>"),
         NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION);
  expect("nvrtcGetLoweredName(twice<float>)", nvrtcGetLoweredName(good, "twice<float>", &lowered),
         NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID);
  expect("nvrtcGetLoweredName(twice<int>)", nvrtcGetLoweredName(good, "twice<int>", &lowered),
         NVRTC_SUCCESS);
  std::printf("%-48s %s\n", "lowered name of twice<int>", lowered);
  expect("nvrtcGetPTXSize", nvrtcGetPTXSize(good, &size), NVRTC_SUCCESS);
  std::vector<char> ptx(size);
  expect("nvrtcGetPTX", nvrtcGetPTX(good, ptx.data()), NVRTC_SUCCESS);

  // Modules.
  CUmodule module;
  expect("cuModuleLoad(a missing file)", cuModuleLoad(&module, "no-such-module.fatbin"),
         CUDA_ERROR_FILE_NOT_FOUND);
  expect("cuModuleLoadData(null)", cuModuleLoadData(&module, nullptr), CUDA_ERROR_INVALID_VALUE);
  expect("cuModuleLoadData(not an image)", cuModuleLoadData(&module, "hello, world"),
         CUDA_ERROR_INVALID_IMAGE);
  expect("cuModuleLoadData(good.cu's PTX)", cuModuleLoadData(&module, ptx.data()), CUDA_SUCCESS);
  CUfunction store, twice;
  expect("cuModuleGetFunction(no such kernel)", cuModuleGetFunction(&store, module, "nope"),
         CUDA_ERROR_NOT_FOUND);
  expect("cuModuleGetFunction(null module)", cuModuleGetFunction(&store, nullptr, "store"),
         CUDA_ERROR_INVALID_HANDLE);
  expect("cuModuleGetFunction(store)", cuModuleGetFunction(&store, module, "store"), CUDA_SUCCESS);
  expect("cuModuleGetFunction(lowered twice<int>)", cuModuleGetFunction(&twice, module, lowered),
         CUDA_SUCCESS);
  CUdeviceptr flag;
  size_t flag_size = 0;
  expect("cuModuleGetGlobal(flag)", cuModuleGetGlobal(&flag, &flag_size, module, "flag"),
         CUDA_SUCCESS);
  std::printf("%-48s %zu\n", "size of flag", flag_size);
  expect("cuModuleGetGlobal(no such variable)", cuModuleGetGlobal(&flag, &flag_size, module, "nope"),
         CUDA_ERROR_NOT_FOUND);

  // Memory and launches.
  CUdeviceptr p;
  expect("cuMemAlloc(0 bytes)", cuMemAlloc(&p, 0), CUDA_ERROR_INVALID_VALUE);
  expect("cuMemAlloc(256 bytes)", cuMemAlloc(&p, 256), CUDA_SUCCESS);
  expect("cuMemsetD32", cuMemsetD32(p, 7, 64), CUDA_SUCCESS);
  int value = 5;
  void* args[] = {&p, &value};
  expect("cuLaunchKernel(null function)",
         cuLaunchKernel(nullptr, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr),
         CUDA_ERROR_INVALID_HANDLE);
  expect("cuLaunchKernel(2048 threads)",
         cuLaunchKernel(store, 1, 1, 1, 2048, 1, 1, 0, nullptr, args, nullptr),
         CUDA_ERROR_INVALID_VALUE);
  struct {
    CUdeviceptr p;
    int v;
  } packed{p, 9};
  size_t packed_size = sizeof(packed);
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE,
                   &packed_size, CU_LAUNCH_PARAM_END};
  expect("cuLaunchKernel(params and extra)",
         cuLaunchKernel(store, 1, 1, 1, 32, 1, 1, 0, nullptr, args, extra),
         CUDA_ERROR_INVALID_VALUE);
  expect("cuLaunchKernel(store, params)",
         cuLaunchKernel(store, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
  // The struct's 4 bytes of padding make the size too large for a GPU.
  expect("cuLaunchKernel(extra buffer of 16 bytes)",
         cuLaunchKernel(store, 1, 1, 1, 16, 1, 1, 0, nullptr, nullptr, extra),
         CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
  packed_size = sizeof(CUdeviceptr) + sizeof(int);
  expect("cuLaunchKernel(extra buffer of 12 bytes)",
         cuLaunchKernel(store, 1, 1, 1, 16, 1, 1, 0, nullptr, nullptr, extra), CUDA_SUCCESS);
  void* twice_args[] = {&p};
  expect("cuLaunchKernel(twice<int>)",
         cuLaunchKernel(twice, 1, 1, 1, 64, 1, 1, 0, nullptr, twice_args, nullptr), CUDA_SUCCESS);
  expect("cuCtxSynchronize", cuCtxSynchronize(), CUDA_SUCCESS);
  int host[64] = {};
  expect("cuMemcpyDtoH", cuMemcpyDtoH(host, p, sizeof(host)), CUDA_SUCCESS);
  std::printf("%-48s %d %d %d\n", "elements 0, 20 and 40", host[0], host[20], host[40]);
  if (host[0] != 18 || host[20] != 10 || host[40] != 14) ++mismatches;
  int attribute = 0;
  expect("cuFuncGetAttribute(max threads)",
         cuFuncGetAttribute(&attribute, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, store),
         CUDA_SUCCESS);
  expect("cuMemFree", cuMemFree(p), CUDA_SUCCESS);

  // A fault: every later call says so.
  CUdeviceptr null_pointer = 0;
  void* fault_args[] = {&null_pointer, &value};
  expect("cuLaunchKernel(store to a null pointer)",
         cuLaunchKernel(store, 1, 1, 1, 32, 1, 1, 0, nullptr, fault_args, nullptr), CUDA_SUCCESS);
  expect("cuCtxSynchronize after the fault", cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  expect("cuMemAlloc after the fault", cuMemAlloc(&p, 256), CUDA_ERROR_ILLEGAL_ADDRESS);
  nvrtcDestroyProgram(&good);
  if (mismatches == 0) std::printf("all as CUDA\n");
  return mismatches == 0 ? 0 : 1;
}

// The tests of this program (tests/lit/README.md): the simulator's build
// and nvcc's must both print "all as CUDA".
// BUILD: RUNTIME_COMPILE
// TEST: unit.driver_api_errors_as_cuda
// LABELS: unit
// RUN: %bin
// CHECK: {{^}}all as CUDA
//
// TEST: gpu.driver_api_errors_as_cuda
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu
// CHECK: {{^}}all as CUDA
