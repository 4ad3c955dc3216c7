// hostile: includes the repository's solution.cu by its absolute path at compile time
// expect-max-points: 0
// note: if the include were found this would pass every test; it must fail to compile
//
// Careful: cudalab-cc writes its rewritten copy of a quoted include that has
// kernels or launches to its temporary folder joined with the include's
// name, and for an absolute name that is the included file itself. Compiled
// outside a sandbox, this file makes cudalab-cc rewrite
// lessons/vector_add/solution.cu in place (launch syntax replaced, a #line
// directive and kernel registrations added). In the sandbox the repository
// must be absent or read-only, and unchanged after the compile.
#include "@REPOSITORY@/lessons/vector_add/solution.cu"
#include "lesson.h"
