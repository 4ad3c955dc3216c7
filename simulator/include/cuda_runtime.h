// cudalab's CPU simulator: the header nvcc includes in every .cu file.
#pragma once
#define __CUDA_RUNTIME_H__  // CUDA's include guard, which programs test
#include "cudalab/kernel_language.h"
#include "cudalab/runtime_api.h"
#include "cudalab/texture.h"  // CUDA arrays, textures and surfaces
