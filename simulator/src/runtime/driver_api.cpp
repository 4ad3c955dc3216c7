// The driver API's calls other than modules (modules.cpp): errors, the
// device, contexts, cuLaunchKernel, memory, streams, events and occupancy,
// each done by the runtime API's call of the same meaning, so that the two
// APIs share one device, one allocation table and one error state.
//
// The simulator has one device and one context, which every thread has
// current; cuInit is not needed first (a GPU answers
// CUDA_ERROR_NOT_INITIALIZED), so that programs mixing the two APIs work.
#include <cstdio>
#include <cstring>
#include <vector>

#include "cudalab/detail/runtime.h"
#include "cudalab/kernel_language.h"
#include "runtime/modules.h"

struct CUctx_st {
  int device = 0;
};

namespace {

CUctx_st g_context;
thread_local CUcontext tl_current = nullptr;
thread_local std::vector<CUcontext> tl_stack;

struct ErrorText {
  CUresult code;
  const char* name;
  const char* text;
};

const ErrorText kErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
     "PTX JIT compiler library not found"},
    {CUDA_ERROR_INVALID_SOURCE, "CUDA_ERROR_INVALID_SOURCE", "device kernel image is invalid"},
    {CUDA_ERROR_FILE_NOT_FOUND, "CUDA_ERROR_FILE_NOT_FOUND", "file not found"},
    {CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND",
     "shared object symbol not found"},
    {CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED",
     "shared object initialization failed"},
    {CUDA_ERROR_OPERATING_SYSTEM, "CUDA_ERROR_OPERATING_SYSTEM", "OS call failed"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE", "the operation is not permitted now"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT",
     "the launch timed out and was terminated"},
    {CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE",
     "the primary context is already active"},
    {CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed"},
    {CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT", "device-side assert triggered"},
    {CUDA_ERROR_HARDWARE_STACK_ERROR, "CUDA_ERROR_HARDWARE_STACK_ERROR", "hardware stack error"},
    {CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION",
     "an illegal instruction was encountered"},
    {CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
     "too many blocks in cooperative launch"},
    {CUDA_ERROR_NOT_PERMITTED, "CUDA_ERROR_NOT_PERMITTED", "operation not permitted"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

const ErrorText* find_error(CUresult e) {
  for (const auto& t : kErrors)
    if (t.code == e) return &t;
  return nullptr;
}

// cuGetErrorName and cuGetErrorString: the error's `field` in *out.
CUresult error_text(CUresult e, const char** out, const char* ErrorText::*field) {
  const ErrorText* t = find_error(e);
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  *out = t ? t->*field : nullptr;
  return t ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult check_device(CUdevice device) {
  int count = 0;
  cudaGetDeviceCount(&count);
  return device >= 0 && device < count ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

void* as_pointer(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

// The value repeated over `count` elements of `size` bytes, written as a copy
// from the host so that the checks see the memory written.
CUresult memset_elements(CUdeviceptr dst, const void* value, size_t size, size_t count,
                         cudaStream_t stream, bool async) {
  std::vector<unsigned char> pattern(size * count);
  for (size_t i = 0; i < count; ++i) std::memcpy(pattern.data() + i * size, value, size);
  if (async)
    return cudalab::rt::driver_result(cudaMemcpyAsync(
        as_pointer(dst), pattern.data(), pattern.size(), cudaMemcpyHostToDevice, stream));
  return cudalab::rt::driver_result(
      cudaMemcpy(as_pointer(dst), pattern.data(), pattern.size(), cudaMemcpyHostToDevice));
}

CUresult launch_function(const char* file, int line, CUfunction f, dim3 grid, dim3 block,
                         unsigned shared_bytes, CUstream stream, void** params, void** extra,
                         unsigned flags) {
  using namespace cudalab::rt;
  if (!live_function(f)) return CUDA_ERROR_INVALID_HANDLE;
  std::vector<void*> packed;
  if (extra) {
    if (params) return CUDA_ERROR_INVALID_VALUE;  // one or the other
    const char* buffer = nullptr;
    size_t buffer_size = 0;
    bool sized = false;
    for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
        buffer = static_cast<const char*>(extra[i + 1]);
      } else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
        if (!extra[i + 1]) return CUDA_ERROR_INVALID_VALUE;
        buffer_size = *static_cast<const size_t*>(extra[i + 1]);
        sized = true;
      } else {
        return CUDA_ERROR_INVALID_VALUE;
      }
    }
    cudalab::detail::ParamLayout layout{};
    if (!cudalab::detail::find_kernel_layout(f->kernel, &layout)) return CUDA_ERROR_INVALID_VALUE;
    if (layout.count > 0 && (!buffer || !sized)) return CUDA_ERROR_INVALID_VALUE;
    // Each parameter at the next multiple of its alignment, as the buffer
    // is laid out for a GPU.
    size_t offset = 0;
    for (size_t i = 0; i < layout.count; ++i) {
      offset = (offset + layout.alignments[i] - 1) / layout.alignments[i] * layout.alignments[i];
      packed.push_back(const_cast<char*>(buffer + offset));
      offset += layout.sizes[i];
    }
    // A GPU wants the size exact: an H100 refuses a buffer with padding
    // after the last parameter.
    if (layout.count > 0 && offset != buffer_size) {
      std::fprintf(stderr,
                   "cudalab: cuLaunchKernel of '%s' at %s:%d: CU_LAUNCH_PARAM_BUFFER_SIZE says "
                   "%zu bytes, the kernel's parameters take %zu (each at a multiple of its "
                   "alignment, nothing after the last) (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)\n",
                   f->name, file, line, buffer_size, offset);
      return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
    }
    params = packed.data();
  }
  const cudalab::detail::LaunchSite site{f->name, file, line};
  return driver_result(
      f->invoker(f->kernel, params, site, grid, block, shared_bytes, stream, flags));
}

}  // namespace

namespace cudalab::rt {

CUresult driver_result(cudaError_t e) {
  switch (e) {
    case cudaSuccess:
      return CUDA_SUCCESS;
    case cudaErrorInvalidConfiguration:
    case cudaErrorInvalidPitchValue:
    case cudaErrorInvalidSymbol:
    case cudaErrorInvalidHostPointer:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidMemcpyDirection:
      return CUDA_ERROR_INVALID_VALUE;
    case cudaErrorInvalidDeviceFunction:
      return CUDA_ERROR_INVALID_HANDLE;
    case cudaErrorCudartUnloading:
      return CUDA_ERROR_DEINITIALIZED;
    default:
      break;
  }
  const auto code = static_cast<CUresult>(static_cast<int>(e));
  return find_error(code) ? code : CUDA_ERROR_UNKNOWN;
}

}  // namespace cudalab::rt

namespace cudalab::detail {

int driver_launch(const char* file, int line, CUfunc_st* function, unsigned grid_x, unsigned grid_y,
                  unsigned grid_z, unsigned block_x, unsigned block_y, unsigned block_z,
                  unsigned shared_bytes, CUstream_st* stream, void** params, void** extra) {
  return launch_function(file, line, function, dim3(grid_x, grid_y, grid_z),
                         dim3(block_x, block_y, block_z), shared_bytes, stream, params, extra, 0);
}

int driver_malloc(unsigned long long* pointer, size_t bytes, const char* file, int line) {
  if (!pointer || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  void* p = nullptr;
  const CUresult r = cudalab::rt::driver_result(malloc_device(&p, bytes, file, line));
  if (r == CUDA_SUCCESS) *pointer = reinterpret_cast<uintptr_t>(p);
  return r;
}

}  // namespace cudalab::detail

using cudalab::rt::driver_result;

extern "C" {

CUresult cuGetErrorName(CUresult error, const char** name) {
  return error_text(error, name, &ErrorText::name);
}

CUresult cuGetErrorString(CUresult error, const char** text) {
  return error_text(error, text, &ErrorText::text);
}

CUresult cuInit(unsigned int flags) { return flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }

CUresult cuDriverGetVersion(int* version) {
  if (!version) return CUDA_ERROR_INVALID_VALUE;
  return driver_result(cudaDriverGetVersion(version));
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  if (check_device(ordinal) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int* count) {
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  return driver_result(cudaGetDeviceCount(count));
}

CUresult cuDeviceGetName(char* name, int length, CUdevice device) {
  if (!name || length <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (check_device(device) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_DEVICE;
  cudaDeviceProp p{};
  cudaGetDeviceProperties(&p, device);
  std::snprintf(name, size_t(length), "%s", p.name);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice device) {
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  if (check_device(device) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_DEVICE;
  return driver_result(
      cudaDeviceGetAttribute(value, static_cast<cudaDeviceAttr>(attribute), device));
}

CUresult cuDeviceTotalMem(size_t* bytes, CUdevice device) {
  if (!bytes) return CUDA_ERROR_INVALID_VALUE;
  if (check_device(device) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_DEVICE;
  cudaDeviceProp p{};
  cudaGetDeviceProperties(&p, device);
  *bytes = p.totalGlobalMem;
  return CUDA_SUCCESS;
}

CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice device) {
  if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
  if (check_device(device) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_DEVICE;
  cudaDeviceProp p{};
  cudaGetDeviceProperties(&p, device);
  *major = p.major;
  *minor = p.minor;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
  if (!context) return CUDA_ERROR_INVALID_VALUE;
  if (check_device(device) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_DEVICE;
  *context = &g_context;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice device) { return check_device(device); }

CUresult cuDevicePrimaryCtxReset(CUdevice device) {
  if (check_device(device) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_DEVICE;
  return driver_result(cudaDeviceReset());
}

CUresult cuCtxCreate(CUcontext* context, CUctxCreateParams*, unsigned int, CUdevice device) {
  if (!context) return CUDA_ERROR_INVALID_VALUE;
  if (check_device(device) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_DEVICE;
  *context = tl_current = &g_context;
  return CUDA_SUCCESS;
}

CUresult cuCtxDestroy(CUcontext context) {
  if (context != &g_context) return CUDA_ERROR_INVALID_VALUE;
  if (tl_current == context) tl_current = nullptr;
  return driver_result(cudaDeviceSynchronize());
}

CUresult cuCtxSynchronize(void) { return driver_result(cudaDeviceSynchronize()); }

CUresult cuCtxSetCurrent(CUcontext context) {
  if (context && context != &g_context) return CUDA_ERROR_INVALID_CONTEXT;
  tl_current = context;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext* context) {
  if (!context) return CUDA_ERROR_INVALID_VALUE;
  *context = tl_current;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice* device) {
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent(CUcontext context) {
  if (context != &g_context) return CUDA_ERROR_INVALID_CONTEXT;
  tl_stack.push_back(tl_current);
  tl_current = context;
  return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent(CUcontext* context) {
  if (!tl_current) return CUDA_ERROR_INVALID_CONTEXT;
  if (context) *context = tl_current;
  tl_current = tl_stack.empty() ? nullptr : tl_stack.back();
  if (!tl_stack.empty()) tl_stack.pop_back();
  return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int* value, CUfunction_attribute attribute, CUfunction function) {
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  if (!cudalab::rt::live_function(function)) return CUDA_ERROR_INVALID_HANDLE;
  cudaFuncAttributes a{};
  const CUresult r = driver_result(cudalab::detail::func_get_attributes(&a, function->kernel));
  if (r != CUDA_SUCCESS) return r;
  switch (attribute) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *value = a.maxThreadsPerBlock;
      break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
      *value = int(a.sharedSizeBytes);
      break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
      *value = int(a.constSizeBytes);
      break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
      *value = int(a.localSizeBytes);
      break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
      *value = a.numRegs;
      break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
      *value = a.ptxVersion;
      break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
      *value = a.binaryVersion;
      break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
      *value = a.cacheModeCA;
      break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      *value = a.maxDynamicSharedSizeBytes;
      break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
      *value = a.preferredShmemCarveout;
      break;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute, int value) {
  if (!cudalab::rt::live_function(function)) return CUDA_ERROR_INVALID_HANDLE;
  cudaFuncAttribute a;
  if (attribute == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
    a = cudaFuncAttributeMaxDynamicSharedMemorySize;
  else if (attribute == CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)
    a = cudaFuncAttributePreferredSharedMemoryCarveout;
  else
    return CUDA_ERROR_INVALID_VALUE;
  return driver_result(cudalab::detail::func_set_attribute(function->kernel, a, value));
}

CUresult(cuLaunchKernel)(CUfunction function, unsigned int grid_x, unsigned int grid_y,
                         unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                         unsigned int block_z, unsigned int shared_bytes, CUstream stream,
                         void** params, void** extra) {
  return launch_function("(a call through a pointer to cuLaunchKernel)", 0, function,
                         dim3(grid_x, grid_y, grid_z), dim3(block_x, block_y, block_z),
                         shared_bytes, stream, params, extra, 0);
}

CUresult cuLaunchCooperativeKernel(CUfunction function, unsigned int grid_x, unsigned int grid_y,
                                   unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                                   unsigned int block_z, unsigned int shared_bytes, CUstream stream,
                                   void** params) {
  return launch_function("(cuLaunchCooperativeKernel)", 0, function, dim3(grid_x, grid_y, grid_z),
                         dim3(block_x, block_y, block_z), shared_bytes, stream, params, nullptr,
                         cudalab::detail::kLaunchCooperative);
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, CUfunction function,
                                                     int block_size, size_t dynamic_shared) {
  if (!cudalab::rt::live_function(function)) return CUDA_ERROR_INVALID_HANDLE;
  return driver_result(cudalab::detail::occupancy_max_active_blocks(blocks, function->kernel,
                                                                    block_size, dynamic_shared));
}

CUresult cuOccupancyMaxPotentialBlockSize(int* min_grid, int* block_size, CUfunction function,
                                          CUoccupancyB2DSize shared_of_block_size,
                                          size_t dynamic_shared, int limit) {
  if (!cudalab::rt::live_function(function)) return CUDA_ERROR_INVALID_HANDLE;
  // A block-size-dependent shared memory is taken at the largest block.
  if (shared_of_block_size) dynamic_shared = shared_of_block_size(limit > 0 ? limit : 1024);
  return driver_result(cudalab::detail::occupancy_max_potential_block_size(min_grid, block_size,
                                                                           dynamic_shared, limit));
}

CUresult(cuMemAlloc)(CUdeviceptr* pointer, size_t bytes) {
  return static_cast<CUresult>(cudalab::detail::driver_malloc(
      pointer, bytes, "(a call through a pointer to cuMemAlloc)", 0));
}

CUresult cuMemFree(CUdeviceptr pointer) {
  if (!pointer) return CUDA_ERROR_INVALID_VALUE;
  return driver_result(cudaFree(as_pointer(pointer)));
}

CUresult cuMemAllocHost(void** pointer, size_t bytes) {
  if (!pointer) return CUDA_ERROR_INVALID_VALUE;
  return driver_result(cudaMallocHost(pointer, bytes));
}

CUresult cuMemHostAlloc(void** pointer, size_t bytes, unsigned int flags) {
  if (!pointer) return CUDA_ERROR_INVALID_VALUE;
  return driver_result(cudaHostAlloc(pointer, bytes, flags));
}

CUresult cuMemFreeHost(void* pointer) { return driver_result(cudaFreeHost(pointer)); }

CUresult cuMemAllocManaged(CUdeviceptr* pointer, size_t bytes, unsigned int flags) {
  if (!pointer || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  void* p = nullptr;
  const CUresult r =
      driver_result(cudalab::detail::malloc_managed(&p, bytes, flags, "(cuMemAllocManaged)", 0));
  if (r == CUDA_SUCCESS) *pointer = reinterpret_cast<uintptr_t>(p);
  return r;
}

CUresult cuMemGetInfo(size_t* free, size_t* total) {
  if (!free || !total) return CUDA_ERROR_INVALID_VALUE;
  return driver_result(cudaMemGetInfo(free, total));
}

CUresult cuMemcpyHtoD(CUdeviceptr dst, const void* src, size_t bytes) {
  return driver_result(cudaMemcpy(as_pointer(dst), src, bytes, cudaMemcpyHostToDevice));
}

CUresult cuMemcpyDtoH(void* dst, CUdeviceptr src, size_t bytes) {
  return driver_result(cudaMemcpy(dst, as_pointer(src), bytes, cudaMemcpyDeviceToHost));
}

CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  return driver_result(
      cudaMemcpy(as_pointer(dst), as_pointer(src), bytes, cudaMemcpyDeviceToDevice));
}

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  return driver_result(cudaMemcpy(as_pointer(dst), as_pointer(src), bytes, cudaMemcpyDefault));
}

CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t bytes, CUstream stream) {
  return driver_result(
      cudaMemcpyAsync(as_pointer(dst), src, bytes, cudaMemcpyHostToDevice, stream));
}

CUresult cuMemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  return driver_result(
      cudaMemcpyAsync(dst, as_pointer(src), bytes, cudaMemcpyDeviceToHost, stream));
}

CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  return driver_result(
      cudaMemcpyAsync(as_pointer(dst), as_pointer(src), bytes, cudaMemcpyDeviceToDevice, stream));
}

CUresult cuMemsetD8(CUdeviceptr dst, unsigned char value, size_t count) {
  return driver_result(cudaMemset(as_pointer(dst), value, count));
}

CUresult cuMemsetD16(CUdeviceptr dst, unsigned short value, size_t count) {
  if (dst % 2) return CUDA_ERROR_INVALID_VALUE;
  return memset_elements(dst, &value, sizeof(value), count, nullptr, false);
}

CUresult cuMemsetD32(CUdeviceptr dst, unsigned int value, size_t count) {
  if (dst % 4) return CUDA_ERROR_INVALID_VALUE;
  return memset_elements(dst, &value, sizeof(value), count, nullptr, false);
}

CUresult cuStreamCreate(CUstream* stream, unsigned int flags) {
  if (!stream) return CUDA_ERROR_INVALID_VALUE;
  return driver_result(cudaStreamCreateWithFlags(stream, flags));
}

CUresult cuStreamSynchronize(CUstream stream) {
  return driver_result(cudaStreamSynchronize(stream));
}
CUresult cuStreamQuery(CUstream stream) { return driver_result(cudaStreamQuery(stream)); }
CUresult cuStreamDestroy(CUstream stream) { return driver_result(cudaStreamDestroy(stream)); }

CUresult cuEventCreate(CUevent* event, unsigned int flags) {
  if (!event) return CUDA_ERROR_INVALID_VALUE;
  return driver_result(cudaEventCreateWithFlags(event, flags));
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
  return driver_result(cudaEventRecord(event, stream));
}
CUresult cuEventSynchronize(CUevent event) { return driver_result(cudaEventSynchronize(event)); }
CUresult cuEventQuery(CUevent event) { return driver_result(cudaEventQuery(event)); }
CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
  return driver_result(cudaEventElapsedTime(ms, start, end));
}
CUresult cuEventDestroy(CUevent event) { return driver_result(cudaEventDestroy(event)); }

}  // extern "C"
