// Thrust's sequential sort, which the CPP system's sort is, read as for the
// host: with __CUDA_ARCH__ defined (as it is in every .cu file here) Thrust
// would sort even plain numbers by merging, as it does in one CUDA thread;
// hidden while its definitions are read, keys of arithmetic types are
// radix-sorted, as on a host (the results are the same, faster).
#pragma once

#pragma push_macro("__CUDA_ARCH__")
#undef __CUDA_ARCH__
#include_next <thrust/system/detail/sequential/sort.h>
#pragma pop_macro("__CUDA_ARCH__")
