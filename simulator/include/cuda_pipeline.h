// cudalab: <cuda_pipeline.h>'s primitives (cuda_pipeline_primitives.h).
#pragma once
#include "cuda_pipeline_primitives.h"
