// Thrust's configuration as the simulator builds it. Every Thrust header
// includes <thrust/detail/config.h> first and finds this file before
// Debian's Thrust (libthrust-dev), which it then includes. A .cu file is
// compiled with __CUDACC__ and __CUDA_ARCH__ defined, which would make
// Thrust take itself for nvcc's and pick its CUDA system; while its
// configuration is read they are hidden, so that Thrust configures itself
// as for a host compiler's build, with the CPP system (the host's code) as
// the device system. Its device memory is the simulator's: see
// thrust/system/cpp/memory_resource.h and execution_policy.h here.
#ifndef CUDALAB_THRUST_CONFIG_H
#define CUDALAB_THRUST_CONFIG_H

#ifndef THRUST_DEVICE_SYSTEM
#define THRUST_DEVICE_SYSTEM THRUST_DEVICE_SYSTEM_CPP
#endif
#ifndef THRUST_HOST_SYSTEM
#define THRUST_HOST_SYSTEM THRUST_HOST_SYSTEM_CPP
#endif

#pragma push_macro("__CUDACC__")
#pragma push_macro("__CUDA_ARCH__")
#undef __CUDACC__
#undef __CUDA_ARCH__
#include_next <thrust/detail/config.h>
#pragma pop_macro("__CUDA_ARCH__")
#pragma pop_macro("__CUDACC__")

#if THRUST_DEVICE_SYSTEM != THRUST_DEVICE_SYSTEM_CPP || THRUST_HOST_SYSTEM != THRUST_HOST_SYSTEM_CPP
#error \
    "On the cudalab simulator Thrust runs its algorithms on the host: leave THRUST_DEVICE_SYSTEM and THRUST_HOST_SYSTEM undefined (they are THRUST_DEVICE_SYSTEM_CPP and THRUST_HOST_SYSTEM_CPP)."
#endif

// Thrust's CUDA system includes CUB, which includes <iostream>: programs
// built with nvcc use std::cout after including only Thrust's headers
// (HeCBench's mtf). The other Thrust headers nvcc's Thrust brings along
// (thrust::system_error with device_malloc.h, which cuda-samples'
// segmentationTreeThrust catches) cudalab-cc adds after the program's own
// includes: from here, in the middle of a header such as thrust/tuple.h,
// they would find it half read.
#include <iostream>

#endif  // CUDALAB_THRUST_CONFIG_H
