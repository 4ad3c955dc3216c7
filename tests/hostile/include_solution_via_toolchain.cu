// hostile: includes the solution relative to the simulator's and framework's header folders
// expect-max-points: 0
// note: if the include were found this would pass every test; it must fail to compile
//
// The compiler is given the simulator's headers (simulator/include) and
// perhaps the framework's (framework/include); both are two folders below
// the repository's root, so an angle-bracket include climbing out of them
// reaches lessons/vector_add/solution.cu.
#include <../../lessons/vector_add/solution.cu>

#include "lesson.h"
