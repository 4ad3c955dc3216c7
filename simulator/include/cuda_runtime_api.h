// cudalab's CPU simulator: the runtime API alone, as in CUDA.
#pragma once
#include "cudalab/runtime_api.h"
#include "cudalab/texture.h"  // CUDA arrays, textures and surfaces
