// Inline PTX on the simulator: the rewriter's translation of each
// `asm("ptx" : outputs : inputs)` statement whose text is PTX into C++ that
// does what the PTX ISA says (cudalab/detail/ptx.h), on the statement's own
// line. Straight-line PTX is translated: declared registers, predicates and
// guards, integer, bit, float and conversion instructions, special registers,
// loads, stores and atomics, warp shuffles and votes, barriers and fences,
// the SIMD video instructions. Branches, asynchronous copies, tensor-core and
// half-precision instructions become a static_assert at the statement's line
// naming the instruction (a compile error only where the preprocessor keeps
// the statement). An asm statement whose text is not PTX (a host
// program's x86 `rdtsc`, an empty `asm volatile("" ::: "memory")`) is left
// alone.
#pragma once

#include <string>
#include <vector>

#include "rewrite.h"

namespace cudalab::rewriter {

// `code` marks the bytes of `source` that are code (not comments or
// literals). Returns the source with every PTX statement translated, with as
// many lines as before; `count` is how many were translated.
std::string translate_inline_ptx(const std::string& source, const std::vector<bool>& code,
                                 int* count);

}  // namespace cudalab::rewriter
