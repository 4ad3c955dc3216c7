// CUB's configuration on the simulator, read before CUB's own (the build's
// copy of cub/util_arch.cuh includes this first: cmake/LibraryHeaders.cmake).
// nvcc compiles CUB twice, for the host and for the device, and CUB picks
// its host or device path by __CUDA_ARCH__; the simulator compiles once,
// with __CUDA_ARCH__ set, so that would take the device path everywhere
// (device-wide algorithms would answer cudaErrorNotSupported). Here both
// paths are compiled and the choice is made when the code runs: in a kernel
// thread the device path, elsewhere the host's.
#pragma once

#include "cudalab/detail/launch.h"

#define CUB_IS_DEVICE_CODE (::cudalab::detail::launching_from_kernel())
#define CUB_IS_HOST_CODE (!::cudalab::detail::launching_from_kernel())
#define CUB_INCLUDE_DEVICE_CODE 1
#define CUB_INCLUDE_HOST_CODE 1
#define CUB_RUNTIME_ENABLED
#define CUB_RUNTIME_FUNCTION __host__ __device__

// The lowest PTX version of the simulated GPUs (the A100's 8.0; the H100's
// and H200's are 9.0: simulator/src/runtime/device.cpp). A device-wide algorithm of
// CUB picks its tuning policy when it runs, from a chain of policies, one
// per PTX version from 3.5 up: each policy's kernels are compiled, and on
// the simulator each is a large host function, twice (plain and
// instrumented). The build's copy of cub/util_device.cuh
// (cmake/LibraryHeaders.cmake) stops the chain at the first policy at or
// below this version, which no simulated GPU goes past: the same choice
// when the program runs, a quarter of the compile time.
#define CUDALAB_LOWEST_PTX_VERSION 800
