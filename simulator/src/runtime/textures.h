// What the rest of the runtime asks of CUDA arrays (textures.cpp). Not a
// public header.
#pragma once

#include "cudalab/driver_types.h"
#include "cudalab/graphs.h"

namespace cudalab::rt {

// cudaMemcpy3D with a CUDA array on either side (textures.cpp).
cudaError_t memcpy3d_with_arrays(const cudaMemcpy3DParms* p);

}  // namespace cudalab::rt
