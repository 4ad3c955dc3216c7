// cudalab's CPU simulator: threadIdx, blockIdx and friends (in cuda_runtime.h).
#pragma once
#include "cuda_runtime.h"
