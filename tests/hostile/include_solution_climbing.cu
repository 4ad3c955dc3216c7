// hostile: includes "../../lessons/vector_add/solution.cu", climbing from where it is compiled
// expect-max-points: 0
// note: if the include were found this would pass every test; it must fail to compile
//
// From a file two folders below the repository's root (tests/hostile/, or
// a grader's build/<something>/) the climb reaches the lesson's solution.
// It also shows a second problem: cudalab-cc writes its rewritten copy of a
// quoted include that has kernels or launches to its temporary folder
// joined with the include's name, and "../../" leaves that folder: this
// include puts a copy of the solution at $TMPDIR/lessons/vector_add/, which
// other users may read. In the sandbox, nothing of the repository may be
// found and the compile must write nothing outside its own folders.
#include "../../lessons/vector_add/solution.cu"
#include "lesson.h"
