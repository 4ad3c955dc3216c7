// The CUDA system's execution policies (thrust::cuda::par, par_nosync) as
// the simulator has them: see thrust/execution_policy.h in this folder.
// Thrust's own header of this name needs its CUDA system, which a host
// compiler cannot build.
#pragma once

#include <thrust/execution_policy.h>
