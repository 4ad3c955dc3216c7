// Inline PTX on the simulator: the rewriter's translation of each
// `asm("ptx" : outputs : inputs)` statement whose text is PTX into C++ that
// does what the PTX ISA says (cudalab/detail/ptx.h), on the statement's own
// line. Straight-line PTX is translated: declared registers, predicates and
// guards, integer, bit, float and conversion instructions, special registers,
// loads, stores and atomics, warp shuffles and votes, barriers and fences,
// exit, the video instructions; a macro's parameter made a string as a
// load's modifier, and preprocessor branches among the template's strings.
// Branches, asynchronous copies, tensor-core and half-precision instructions
// become a static_assert at the statement's line naming the instruction (a
// compile error only where the preprocessor keeps the statement). An asm
// statement whose text is not PTX (a host
// program's x86 `rdtsc`, an empty `asm volatile("" ::: "memory")`) is left
// alone.
#pragma once

#include <string>
#include <vector>

#include "rewriter/rewrite.h"

namespace cudalab::rewriter {

// `code` marks the bytes of `source` that are code (not comments or
// literals). Returns the source with every PTX statement translated, with as
// many lines as before; `count` is how many were translated. For a
// `library` header (CUB's), what is not translated stops the kernel when a
// thread reaches it instead of failing the build, and an input operand may
// be a macro standing for a constraint and its value (`_CUB_ASM_PTR_(p)`).
std::string translate_inline_ptx(const std::string& source, const std::vector<bool>& code,
                                 int* count, bool library = false);

}  // namespace cudalab::rewriter
