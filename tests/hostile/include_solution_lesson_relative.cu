// hostile: includes "../vector_add/solution.cu", relative to any folder on the include path
// expect-max-points: 0
// note: if the include were found this would pass every test; it must fail to compile
//
// With the lesson's folder on the include path (for lesson.h), its parent
// is lessons/, and ../vector_add/solution.cu is the reference solution.
#include "../vector_add/solution.cu"
#include "lesson.h"
