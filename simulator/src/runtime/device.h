// The simulated device's figures that the runtime's files ask for
// (device.cpp). Not a public header.
#pragma once

#include <cstddef>

#include "cudalab/driver_types.h"

namespace cudalab::rt {

const cudaDeviceProp& device_properties();
// Dynamic shared memory a launch of this kernel may ask for (48 KiB unless
// raised with cudaFuncSetAttribute).
size_t dynamic_shared_limit(const char* kernel_name);
int blocks_per_multiprocessor(int block_size, size_t dynamic_shared);
// cudaLimitDevRuntimePendingLaunchCount: how many launches made by kernels
// may be unfinished at once.
size_t pending_launch_limit();
// Each worker's arena for dynamic shared memory (the most a block may have).
constexpr size_t kDynamicSharedArena = 228 * 1024;

}  // namespace cudalab::rt
