// CUDA's clock() is a __host__ __device__ function: in a kernel it counts the
// GPU's cycles, elsewhere it is the C library's clock(). The rewriter turns
// every call of clock() in a .cu file (`clock()`, `std::clock()`,
// `::clock()`) into a call of this one, which is both: in a kernel thread
// the GPU's cycles (as clock64() counts them), anywhere else the C library's
// clock(). The C library's own function stays as it is, so code may declare
// it, take its address or name something else clock. Defined in
// simulator/src/. Not for programs to call.
#pragma once

#include <ctime>

namespace cudalab::detail {
std::clock_t clock();
}  // namespace cudalab::detail
