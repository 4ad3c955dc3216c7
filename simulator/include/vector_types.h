#pragma once
#include "cudalab/vector_types.h"
