// The functions behind the runtime API's inline and template functions
// (cudalab/runtime_api.h): the public function takes what CUDA's takes (a
// typed pointer, a symbol, a kernel) and calls one of these with the plain
// values they need. Defined in simulator/src/. Not for programs to call.
#pragma once

#include <cstddef>

#include "cudalab/driver_types.h"

namespace cudalab::detail {

// cudaMalloc; `file` and `line` are where the program called it.
cudaError_t malloc_device(void** ptr, size_t bytes, const char* file, int line);
// cudaMallocManaged.
cudaError_t malloc_managed(void** ptr, size_t bytes, unsigned int flags, const char* file,
                           int line);

// Device memory for Thrust (its containers, device_malloc and its
// algorithms' scratch space): cudaMalloc's, whose site in reports is
// `site`, and counted as written from the start, since Thrust's algorithms
// fill it from host code, which the checks do not see. nullptr when no
// memory is left. thrust_free takes what thrust_malloc gave (and nullptr).
void* thrust_malloc(size_t bytes, const char* site);
void* thrust_malloc_managed(size_t bytes, const char* site);
void thrust_free(void* ptr);
// cudaMemcpyToSymbol and cudaMemcpyFromSymbol: `symbol` is the variable's
// address, `symbol_size` its size.
cudaError_t memcpy_to_symbol(void* symbol, size_t symbol_size, const void* src, size_t count,
                             size_t offset, cudaMemcpyKind kind);
cudaError_t memcpy_from_symbol(void* dst, const void* symbol, size_t symbol_size, size_t count,
                               size_t offset, cudaMemcpyKind kind);

// cudaFuncGetAttributes, cudaFuncSetAttribute and the occupancy calculator,
// for the kernel at `func`.
cudaError_t func_get_attributes(cudaFuncAttributes* attr, const void* func);
cudaError_t func_set_attribute(const void* func, cudaFuncAttribute attr, int value);
cudaError_t occupancy_max_active_blocks(int* blocks, const void* func, int block_size,
                                        size_t dynamic_shared);
cudaError_t occupancy_max_potential_block_size(int* min_grid, int* block_size,
                                               size_t dynamic_shared, int limit);

}  // namespace cudalab::detail
