// The runtime's errors: every API call ends through api_result (errors.cpp).
// Not a public header.
#pragma once

#include "cudalab/driver_types.h"

namespace cudalab::rt {

// Every API call ends through api_result: a sticky error (a kernel fault)
// wins over everything until cudaDeviceReset; other errors become the last
// error, which cudaGetLastError returns once.
cudaError_t api_result(cudaError_t e);
void set_sticky_error(cudaError_t e);
cudaError_t sticky_error();
void clear_errors();
void record_last_error(cudaError_t e);
cudaError_t take_last_error(bool reset);

}  // namespace cudalab::rt
