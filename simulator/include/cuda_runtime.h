// cudalab's CPU simulator: the header nvcc includes in every .cu file.
#pragma once
#include "cudalab/kernel_language.h"
#include "cudalab/runtime_api.h"
