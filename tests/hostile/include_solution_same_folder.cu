// hostile: includes "solution.cu" at compile time (next to it, or in any quoted include path)
// expect-max-points: 0
// note: if the include were found this would pass every test; it must fail to compile
//
// A submission is compiled from wherever the grader puts it, with the
// lesson's folder (for lesson.h) perhaps on the include path: then a quoted
// include of solution.cu finds the reference solution there.
#include "lesson.h"
#include "solution.cu"
