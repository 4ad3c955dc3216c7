// Which public Thrust headers nvcc's Thrust brings with each one
// (thrust_headers.cpp): the rewriter adds them to a file that includes it.
#pragma once

#include <string>
#include <vector>

namespace cudalab::rewriter {

// For "sort" (thrust/sort.h), the names of the others ("sequence", ...);
// for "cub" (any of CUB's headers), the Thrust headers CUB brings; empty for
// a header that brings none or that is not Thrust's.
std::vector<std::string> thrust_headers_with(const std::string& header);

}  // namespace cudalab::rewriter
