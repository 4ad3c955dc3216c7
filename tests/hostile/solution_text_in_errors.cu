// hostile: includes the solution under macros that make the compiler quote its lines in errors
// expect-max-points: 0
// note: a compile failure whatever happens; the compiler's output must not quote solution.cu
//
// Looks for the solution wherever a quoted or angle-bracket include could
// reach it. If it is there, it is included after macros that turn the CUDA
// built-in variables and `float` into undeclared names, so that each error
// prints a line of the solution. If it is nowhere, the file does not compile
// either (there is no launcher), which is all a grader may show.
#include "lesson.h"

#if __has_include("solution.cu")
#define HOSTILE_TARGET "solution.cu"
#elif __has_include("../solution.cu")
#define HOSTILE_TARGET "../solution.cu"
#elif __has_include("../vector_add/solution.cu")
#define HOSTILE_TARGET "../vector_add/solution.cu"
#elif __has_include(<../../lessons/vector_add/solution.cu>)
#define HOSTILE_TARGET <../../lessons/vector_add/solution.cu>
#elif __has_include("@REPOSITORY@/lessons/vector_add/solution.cu")
#define HOSTILE_TARGET "@REPOSITORY@/lessons/vector_add/solution.cu"
#endif

#ifdef HOSTILE_TARGET
#define gridDim hostile_leak_gridDim
#define blockIdx hostile_leak_blockIdx
#define blockDim hostile_leak_blockDim
#define threadIdx hostile_leak_threadIdx
#define float hostile_leak_float
#include HOSTILE_TARGET
#else
#error "HOSTILE-NOTHING-FOUND: no solution.cu reachable (the expected outcome)"
#endif
