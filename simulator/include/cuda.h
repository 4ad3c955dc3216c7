// The CUDA driver API on the CPU simulator: what a program that includes
// <cuda.h> calls to load a module (a file made by `cudalab-cc -fatbin`, or an
// image from NVRTC) and launch its kernels by name, and the memory, stream,
// event and context calls such programs use beside it. The handles are the
// runtime API's: a CUdeviceptr is the address cudaMalloc returns, a CUstream
// a cudaStream_t, so the two APIs mix in one program. Definitions:
// simulator/src/runtime/driver_api.cpp and simulator/src/runtime/modules.cpp.
#pragma once
// The name CUDA's own header defines: helpers test it to offer their
// driver-API functions.
#ifndef __cuda_cuda_h__
#define __cuda_cuda_h__
#endif

#include <cstddef>

#include "cudalab/detail/module.h"
#include "cudalab/driver_types.h"

#define CUDA_VERSION 13000
#define CU_LAUNCH_PARAM_END_AS_INT 0x00
#define CU_LAUNCH_PARAM_END ((void*)CU_LAUNCH_PARAM_END_AS_INT)
#define CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT 0x01
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void*)CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT)
#define CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT 0x02
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void*)CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT)
#define CU_MEMHOSTALLOC_PORTABLE 0x01
#define CU_MEMHOSTALLOC_DEVICEMAP 0x02
#define CU_MEMHOSTALLOC_WRITECOMBINED 0x04
#define CU_CTX_SCHED_AUTO 0x00
#define CU_CTX_SCHED_SPIN 0x01
#define CU_CTX_SCHED_YIELD 0x02
#define CU_CTX_SCHED_BLOCKING_SYNC 0x04
#define CU_CTX_MAP_HOST 0x08

extern "C" {

// int underneath: any code a program passes (cuGetErrorName(CUresult(12345))) is a value.
enum cudaError_enum : int {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
  CUDA_ERROR_INVALID_SOURCE = 300,
  CUDA_ERROR_FILE_NOT_FOUND = 301,
  CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND = 302,
  CUDA_ERROR_SHARED_OBJECT_INIT_FAILED = 303,
  CUDA_ERROR_OPERATING_SYSTEM = 304,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_ILLEGAL_STATE = 401,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_LAUNCH_TIMEOUT = 702,
  CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE = 708,
  CUDA_ERROR_CONTEXT_IS_DESTROYED = 709,
  CUDA_ERROR_ASSERT = 710,
  CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
  CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
  CUDA_ERROR_MISALIGNED_ADDRESS = 716,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
  CUDA_ERROR_NOT_PERMITTED = 800,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_UNKNOWN = 999,
};
typedef enum cudaError_enum CUresult;

typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef CUstream_st* CUstream;
typedef CUevent_st* CUevent;

// The same numbers as the runtime's cudaDeviceAttr.
typedef enum CUdevice_attribute_enum {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY = 9,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MAX_PITCH = 11,
  CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12,
  CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
  CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT = 14,
  CU_DEVICE_ATTRIBUTE_GPU_OVERLAP = 15,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT = 17,
  CU_DEVICE_ATTRIBUTE_INTEGRATED = 18,
  CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY = 19,
  CU_DEVICE_ATTRIBUTE_COMPUTE_MODE = 20,
  CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS = 31,
  CU_DEVICE_ATTRIBUTE_ECC_ENABLED = 32,
  CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
  CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
  CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,
  CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
  CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
  CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT = 40,
  CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
  CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
  CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
  CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY = 83,
  CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
} CUdevice_attribute;

typedef enum CUcomputemode_enum {
  CU_COMPUTEMODE_DEFAULT = 0,
  CU_COMPUTEMODE_PROHIBITED = 2,
  CU_COMPUTEMODE_EXCLUSIVE_PROCESS = 3,
} CUcomputemode;

typedef enum CUfunction_attribute_enum {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_PTX_VERSION = 5,
  CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6,
  CU_FUNC_ATTRIBUTE_CACHE_MODE_CA = 7,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
} CUfunction_attribute;

typedef enum CUjit_option_enum {
  CU_JIT_MAX_REGISTERS = 0,
  CU_JIT_THREADS_PER_BLOCK = 1,
  CU_JIT_WALL_TIME = 2,
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_OPTIMIZATION_LEVEL = 7,
  CU_JIT_TARGET_FROM_CUCONTEXT = 8,
  CU_JIT_TARGET = 9,
  CU_JIT_FALLBACK_STRATEGY = 10,
  CU_JIT_GENERATE_DEBUG_INFO = 11,
  CU_JIT_LOG_VERBOSE = 12,
  CU_JIT_GENERATE_LINE_INFO = 13,
  CU_JIT_CACHE_MODE = 14,
} CUjit_option;

typedef enum CUmemAttach_flags_enum {
  CU_MEM_ATTACH_GLOBAL = 0x1,
  CU_MEM_ATTACH_HOST = 0x2,
  CU_MEM_ATTACH_SINGLE = 0x4,
} CUmemAttach_flags;

typedef enum CUstream_flags_enum {
  CU_STREAM_DEFAULT = 0x0,
  CU_STREAM_NON_BLOCKING = 0x1,
} CUstream_flags;

typedef enum CUevent_flags_enum {
  CU_EVENT_DEFAULT = 0x0,
  CU_EVENT_BLOCKING_SYNC = 0x1,
  CU_EVENT_DISABLE_TIMING = 0x2,
} CUevent_flags;

typedef struct CUctxCreateParams_st {
  void* execAffinityParams;
  int numExecAffinityParams;
  void* cigParams;
} CUctxCreateParams;

typedef size_t (*CUoccupancyB2DSize)(int block_size);

CUresult cuGetErrorName(CUresult error, const char** name);
CUresult cuGetErrorString(CUresult error, const char** text);
CUresult cuInit(unsigned int flags);
CUresult cuDriverGetVersion(int* version);

CUresult cuDeviceGet(CUdevice* device, int ordinal);
CUresult cuDeviceGetCount(int* count);
CUresult cuDeviceGetName(char* name, int length, CUdevice device);
CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice device);
CUresult cuDeviceTotalMem(size_t* bytes, CUdevice device);
CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice device);

CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device);
CUresult cuDevicePrimaryCtxRelease(CUdevice device);
CUresult cuDevicePrimaryCtxReset(CUdevice device);
CUresult cuCtxCreate(CUcontext* context, CUctxCreateParams* params, unsigned int flags,
                     CUdevice device);
CUresult cuCtxDestroy(CUcontext context);
CUresult cuCtxSynchronize(void);
CUresult cuCtxSetCurrent(CUcontext context);
CUresult cuCtxGetCurrent(CUcontext* context);
CUresult cuCtxGetDevice(CUdevice* device);
CUresult cuCtxPushCurrent(CUcontext context);
CUresult cuCtxPopCurrent(CUcontext* context);

CUresult cuModuleLoad(CUmodule* module, const char* file);
CUresult cuModuleLoadData(CUmodule* module, const void* image);
CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int count,
                            CUjit_option* options, void** values);
CUresult cuModuleLoadFatBinary(CUmodule* module, const void* image);
CUresult cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name);
CUresult cuModuleGetGlobal(CUdeviceptr* address, size_t* bytes, CUmodule module, const char* name);
CUresult cuModuleUnload(CUmodule module);
CUresult cuFuncGetAttribute(int* value, CUfunction_attribute attribute, CUfunction function);
CUresult cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute, int value);

CUresult cuLaunchKernel(CUfunction function, unsigned int grid_x, unsigned int grid_y,
                        unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                        unsigned int block_z, unsigned int shared_bytes, CUstream stream,
                        void** params, void** extra);
CUresult cuLaunchCooperativeKernel(CUfunction function, unsigned int grid_x, unsigned int grid_y,
                                   unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                                   unsigned int block_z, unsigned int shared_bytes, CUstream stream,
                                   void** params);
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, CUfunction function,
                                                     int block_size, size_t dynamic_shared);
CUresult cuOccupancyMaxPotentialBlockSize(int* min_grid, int* block_size, CUfunction function,
                                          CUoccupancyB2DSize shared_of_block_size,
                                          size_t dynamic_shared, int limit);

CUresult cuMemAlloc(CUdeviceptr* pointer, size_t bytes);
CUresult cuMemFree(CUdeviceptr pointer);
CUresult cuMemAllocHost(void** pointer, size_t bytes);
CUresult cuMemHostAlloc(void** pointer, size_t bytes, unsigned int flags);
CUresult cuMemFreeHost(void* pointer);
CUresult cuMemAllocManaged(CUdeviceptr* pointer, size_t bytes, unsigned int flags);
CUresult cuMemGetInfo(size_t* free, size_t* total);
CUresult cuMemcpyHtoD(CUdeviceptr dst, const void* src, size_t bytes);
CUresult cuMemcpyDtoH(void* dst, CUdeviceptr src, size_t bytes);
CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t bytes, CUstream stream);
CUresult cuMemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t bytes, CUstream stream);
CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream);
CUresult cuMemsetD8(CUdeviceptr dst, unsigned char value, size_t count);
CUresult cuMemsetD16(CUdeviceptr dst, unsigned short value, size_t count);
CUresult cuMemsetD32(CUdeviceptr dst, unsigned int value, size_t count);

CUresult cuStreamCreate(CUstream* stream, unsigned int flags);
CUresult cuStreamSynchronize(CUstream stream);
CUresult cuStreamQuery(CUstream stream);
CUresult cuStreamDestroy(CUstream stream);
CUresult cuEventCreate(CUevent* event, unsigned int flags);
CUresult cuEventRecord(CUevent event, CUstream stream);
CUresult cuEventSynchronize(CUevent event);
CUresult cuEventQuery(CUevent event);
CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end);
CUresult cuEventDestroy(CUevent event);

}  // extern "C"

// Launches and allocations say where in the program they were made (a
// fault report names the launch, memcheck the allocation).
#define cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shmem, stream, params, extra)                 \
  static_cast<CUresult>(::cudalab::detail::driver_launch(__FILE__, __LINE__, f, gx, gy, gz, bx, \
                                                         by, bz, shmem, stream, params, extra))
#define cuMemAlloc(pointer, bytes) \
  static_cast<CUresult>(::cudalab::detail::driver_malloc(pointer, bytes, __FILE__, __LINE__))
