// CUDA's builtin_types.h: the runtime's types (error codes, handles, device
// properties) and the vector types, which host files of the driver API's
// programs include without cuda_runtime.h.
#pragma once

#include "cudalab/driver_types.h"
#include "vector_types.h"
