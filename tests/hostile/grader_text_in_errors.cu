// hostile: includes the graded tests under macros that make the compiler quote their lines
// expect-max-points: 0
// note: a compile failure whatever happens; the compiler's output must not quote grade.cu
//
// The graded tests hold the sizes, shapes and seeds of the hidden test. If
// grade.cu can be reached it is included after macros that turn the names
// on those lines into undeclared ones, so each error prints one of them. If
// it is nowhere, the file does not compile either.
#include "lesson.h"

#if __has_include("grade.cu")
#define HOSTILE_TARGET "grade.cu"
#elif __has_include("../grade.cu")
#define HOSTILE_TARGET "../grade.cu"
#elif __has_include("../vector_add/grade.cu")
#define HOSTILE_TARGET "../vector_add/grade.cu"
#elif __has_include(<../../lessons/vector_add/grade.cu>)
#define HOSTILE_TARGET <../../lessons/vector_add/grade.cu>
#elif __has_include("@REPOSITORY@/lessons/vector_add/grade.cu")
#define HOSTILE_TARGET "@REPOSITORY@/lessons/vector_add/grade.cu"
#endif

#ifdef HOSTILE_TARGET
#define mt19937 hostile_leak_rng
#define run_case hostile_leak_case
#define blocks_for hostile_leak_blocks
#define shapes hostile_leak_shapes
#define main hostile_leak_main
#include HOSTILE_TARGET
#else
#error "HOSTILE-NOTHING-FOUND: no grade.cu reachable (the expected outcome)"
#endif
