// Error codes, their names and strings (as the CUDA runtime spells them), and
// the last-error / sticky-error rules.
#include "runtime/errors.h"

#include <mutex>

namespace cudalab::rt {
namespace {
std::mutex g_error_mutex;
cudaError_t g_last = cudaSuccess;
cudaError_t g_sticky = cudaSuccess;

struct ErrorText {
  cudaError_t code;
  const char* name;
  const char* text;
};
constexpr ErrorText kErrors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorCudartUnloading, "cudaErrorCudartUnloading", "driver shutting down"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
     "invalid configuration argument"},
    {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {cudaErrorInvalidHostPointer, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {cudaErrorInvalidTexture, "cudaErrorInvalidTexture", "invalid texture reference"},
    {cudaErrorInvalidTextureBinding, "cudaErrorInvalidTextureBinding",
     "texture is not bound to a pointer"},
    {cudaErrorInvalidChannelDescriptor, "cudaErrorInvalidChannelDescriptor",
     "invalid channel descriptor"},
    {cudaErrorInvalidFilterSetting, "cudaErrorInvalidFilterSetting",
     "linear filtering not supported for non-float type"},
    {cudaErrorInvalidNormSetting, "cudaErrorInvalidNormSetting",
     "read as normalized float not supported for 32-bit non float type"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection",
     "invalid copy direction for memcpy"},
    {cudaErrorLaunchPendingCountExceeded, "cudaErrorLaunchPendingCountExceeded",
     "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorIllegalState, "cudaErrorIllegalState",
     "the operation cannot be performed in the present state"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress",
     "an illegal memory access was encountered"},
    {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources",
     "too many resources requested for launch"},
    {cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {cudaErrorHardwareStackError, "cudaErrorHardwareStackError", "hardware stack error"},
    {cudaErrorIllegalInstruction, "cudaErrorIllegalInstruction",
     "an illegal instruction was encountered"},
    {cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered"},
    {cudaErrorMisalignedAddress, "cudaErrorMisalignedAddress", "misaligned address"},
    {cudaErrorCooperativeLaunchTooLarge, "cudaErrorCooperativeLaunchTooLarge",
     "too many blocks in cooperative launch"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorStreamCaptureUnsupported, "cudaErrorStreamCaptureUnsupported",
     "operation not permitted when stream is capturing"},
    {cudaErrorStreamCaptureInvalidated, "cudaErrorStreamCaptureInvalidated",
     "operation failed due to a previous error during capture"},
    {cudaErrorStreamCaptureMerge, "cudaErrorStreamCaptureMerge",
     "operation would result in a merge of separate capture sequences"},
    {cudaErrorStreamCaptureUnmatched, "cudaErrorStreamCaptureUnmatched",
     "capture was not ended in the same stream as it began"},
    {cudaErrorStreamCaptureUnjoined, "cudaErrorStreamCaptureUnjoined",
     "capturing stream has unjoined work"},
    {cudaErrorStreamCaptureIsolation, "cudaErrorStreamCaptureIsolation",
     "dependency created on uncaptured work in another stream"},
    {cudaErrorStreamCaptureImplicit, "cudaErrorStreamCaptureImplicit",
     "operation would make the legacy stream depend on a capturing blocking stream"},
    {cudaErrorCapturedEvent, "cudaErrorCapturedEvent",
     "operation not permitted on an event last recorded in a capturing stream"},
    {cudaErrorStreamCaptureWrongThread, "cudaErrorStreamCaptureWrongThread",
     "attempt to terminate a thread-local capture sequence from another thread"},
    {cudaErrorGraphExecUpdateFailure, "cudaErrorGraphExecUpdateFailure",
     "the graph update was not performed because it included changes which violated "
     "constraints specific to instantiated graph update"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

const ErrorText* lookup(cudaError_t e) {
  for (const auto& t : kErrors)
    if (t.code == e) return &t;
  return nullptr;
}
}  // namespace

cudaError_t api_result(cudaError_t e) {
  std::lock_guard lock(g_error_mutex);
  if (g_sticky != cudaSuccess) {
    g_last = g_sticky;  // a call that failed: the last error again
    return g_sticky;
  }
  if (e != cudaSuccess) g_last = e;
  return e;
}

void record_last_error(cudaError_t e) {
  std::lock_guard lock(g_error_mutex);
  if (e != cudaSuccess) g_last = e;
}

void set_sticky_error(cudaError_t e) {
  std::lock_guard lock(g_error_mutex);
  g_sticky = e;
  g_last = e;
}

cudaError_t sticky_error() {
  std::lock_guard lock(g_error_mutex);
  return g_sticky;
}

void clear_errors() {
  std::lock_guard lock(g_error_mutex);
  g_sticky = g_last = cudaSuccess;
}

// As on a GPU: cudaGetLastError returns a sticky error once, like any other;
// the calls after it that do work return it again.
cudaError_t take_last_error(bool reset) {
  std::lock_guard lock(g_error_mutex);
  cudaError_t e = g_last;
  if (reset) g_last = cudaSuccess;
  return e;
}

}  // namespace cudalab::rt

using namespace cudalab::rt;

cudaError_t cudaGetLastError() { return take_last_error(true); }
cudaError_t cudaPeekAtLastError() { return take_last_error(false); }

const char* cudaGetErrorString(cudaError_t error) {
  const ErrorText* t = lookup(error);
  return t ? t->text : "unrecognized error code";
}

const char* cudaGetErrorName(cudaError_t error) {
  const ErrorText* t = lookup(error);
  return t ? t->name : "cudaErrorUnknown";
}
