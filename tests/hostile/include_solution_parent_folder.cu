// hostile: includes "../solution.cu" at compile time
// expect-max-points: 0
// note: if the include were found this would pass every test; it must fail to compile
#include "../solution.cu"
#include "lesson.h"
