// NVRTC, CUDA's run-time compiler, on the CPU simulator: a kernel given as
// a string is compiled while the program runs, and its "PTX" (or "CUBIN") is
// an image that cuModuleLoadData loads (<cuda.h>). Here the image holds the
// source and the kernels built for the CPU by the host compiler, with the
// same launch rewriting, checks and reports as kernels compiled in.
// Definitions: simulator/src/runtime/nvrtc.cpp.
#pragma once

#include <cstddef>

extern "C" {

typedef enum {
  NVRTC_SUCCESS = 0,
  NVRTC_ERROR_OUT_OF_MEMORY = 1,
  NVRTC_ERROR_PROGRAM_CREATION_FAILURE = 2,
  NVRTC_ERROR_INVALID_INPUT = 3,
  NVRTC_ERROR_INVALID_PROGRAM = 4,
  NVRTC_ERROR_INVALID_OPTION = 5,
  NVRTC_ERROR_COMPILATION = 6,
  NVRTC_ERROR_BUILTIN_OPERATION_FAILURE = 7,
  NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION = 8,
  NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION = 9,
  NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID = 10,
  NVRTC_ERROR_INTERNAL_ERROR = 11,
} nvrtcResult;

typedef struct _nvrtcProgram* nvrtcProgram;

const char* nvrtcGetErrorString(nvrtcResult result);
nvrtcResult nvrtcVersion(int* major, int* minor);
nvrtcResult nvrtcGetNumSupportedArchs(int* count);
nvrtcResult nvrtcGetSupportedArchs(int* archs);

nvrtcResult nvrtcCreateProgram(nvrtcProgram* program, const char* source, const char* name,
                               int header_count, const char* const* headers,
                               const char* const* include_names);
nvrtcResult nvrtcDestroyProgram(nvrtcProgram* program);
nvrtcResult nvrtcCompileProgram(nvrtcProgram program, int option_count, const char* const* options);
nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram program, size_t* size);
nvrtcResult nvrtcGetProgramLog(nvrtcProgram program, char* log);
nvrtcResult nvrtcGetPTXSize(nvrtcProgram program, size_t* size);
nvrtcResult nvrtcGetPTX(nvrtcProgram program, char* ptx);
nvrtcResult nvrtcGetCUBINSize(nvrtcProgram program, size_t* size);
nvrtcResult nvrtcGetCUBIN(nvrtcProgram program, char* cubin);
nvrtcResult nvrtcAddNameExpression(nvrtcProgram program, const char* name_expression);
nvrtcResult nvrtcGetLoweredName(nvrtcProgram program, const char* name_expression,
                                const char** lowered_name);

}  // extern "C"
