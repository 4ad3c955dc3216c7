// The simulated device: one GPU whose properties are an H100's (SXM5 80GB),
// so programs that size their launches from cudaGetDeviceProperties behave as
// they would on one.
#include <cstring>

#include "internal.h"

namespace {
int g_current_device = 0;

void fill_h100(cudaDeviceProp* p) {
  std::memset(p, 0, sizeof(*p));
  std::strncpy(p->name, "NVIDIA H100 80GB HBM3 (cudalab simulator)", sizeof(p->name) - 1);
  p->totalGlobalMem = 85031714816ull;
  p->sharedMemPerBlock = 48 * 1024;
  p->sharedMemPerBlockOptin = 227 * 1024;
  p->sharedMemPerMultiprocessor = 228 * 1024;
  p->regsPerBlock = 65536;
  p->regsPerMultiprocessor = 65536;
  p->warpSize = 32;
  p->memPitch = 2147483647;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024;
  p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647;
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  p->clockRate = 1980000;
  p->totalConstMem = 65536;
  p->major = 9;
  p->minor = 0;
  p->textureAlignment = 512;
  p->deviceOverlap = 1;
  p->multiProcessorCount = 132;
  p->canMapHostMemory = 1;
  p->computeMode = cudaComputeModeDefault;
  p->concurrentKernels = 1;
  p->ECCEnabled = 1;
  p->asyncEngineCount = 3;
  p->unifiedAddressing = 1;
  p->memoryClockRate = 2619000;
  p->memoryBusWidth = 5120;
  p->l2CacheSize = 52428800;
  p->maxThreadsPerMultiProcessor = 2048;
  p->managedMemory = 1;
  p->maxBlocksPerMultiProcessor = 32;
  p->cooperativeLaunch = 1;
}
}  // namespace

using cudalab::rt::api_result;

cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return api_result(cudaErrorInvalidValue);
  *count = 1;
  return api_result(cudaSuccess);
}

cudaError_t cudaGetDevice(int* device) {
  if (!device) return api_result(cudaErrorInvalidValue);
  *device = g_current_device;
  return api_result(cudaSuccess);
}

cudaError_t cudaSetDevice(int device) {
  if (device != 0) return api_result(cudaErrorInvalidDevice);
  g_current_device = device;
  return api_result(cudaSuccess);
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (!prop) return api_result(cudaErrorInvalidValue);
  if (device != 0) return api_result(cudaErrorInvalidDevice);
  fill_h100(prop);
  return api_result(cudaSuccess);
}

cudaError_t cudaDriverGetVersion(int* version) {
  if (!version) return api_result(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return api_result(cudaSuccess);
}

cudaError_t cudaRuntimeGetVersion(int* version) {
  if (!version) return api_result(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return api_result(cudaSuccess);
}
