// Machinery of run-time compiled modules (NVRTC) and of the driver API's
// launches. Not for programs to call.
//
// name_expression_address: what the code NVRTC adds to a program for each
// nvrtcAddNameExpression becomes; a kernel template's instantiation is
// registered for cuModuleGetFunction, and the address gives its lowered
// (mangled) name.
//
// The launch and allocation calls behind cuLaunchKernel and cuMemAlloc
// (macros in cuda.h), which take the caller's file and line for reports.
#pragma once

#include "cudalab/detail/launch.h"

struct CUfunc_st;
struct CUstream_st;

namespace cudalab::detail {

template <class... P>
const void* name_expression_address(void (*kernel)(P...), const char* name) {
  register_kernel(kernel, name);
  return reinterpret_cast<const void*>(kernel);
}
template <class T>
const void* name_expression_address(T* object, const char*) {
  return reinterpret_cast<const void*>(object);
}

int driver_launch(const char* file, int line, CUfunc_st* function, unsigned grid_x, unsigned grid_y,
                  unsigned grid_z, unsigned block_x, unsigned block_y, unsigned block_z,
                  unsigned shared_bytes, CUstream_st* stream, void** params, void** extra);
int driver_malloc(unsigned long long* pointer, size_t bytes, const char* file, int line);

}  // namespace cudalab::detail
