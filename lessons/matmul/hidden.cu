// Matrix multiply: the hidden test. Its sizes are drawn for each grading
// run; a student sees its name, its points and whether it passed.
#include <random>

#include "cases.h"
#include "cudalab/grading.h"

CUDALAB_HIDDEN_GRADED_TEST(HiddenRandomSizes, 1, "seeded sizes for every stage") {
  std::mt19937_64 rng(t.seed(0));
  const Stage* stages[] = {&kNaive, &kCoalesced, &kTiled, &kRegister};
  for (int k = 0; k < 4 && !t.failed(); ++k)
    run_case(t, *stages[k], 17 + int(rng() % 150), t.seed(1 + k));
}
