// Matrix multiply: the hidden test. Its sizes are drawn for each grading
// run; a student sees its name, its points and whether it passed.
#include <random>

#include "cases.h"
#include "cudalab/framework/grading.h"

CUDALAB_HIDDEN_GRADED_TEST(HiddenRandomSizes, 1, "seeded sizes for stages 1 to 3") {
  std::mt19937_64 rng(t.seed(0));
  const Stage* stages[] = {&kNaive, &kCoalesced, &kTiled};
  for (int k = 0; k < 3 && !t.failed(); ++k)
    run_case(t, *stages[k], 17 + int(rng() % 150), t.seed(1 + k));
}

// Stage 4 is optional: extra credit.
CUDALAB_HIDDEN_EXTRA_CREDIT_TEST(HiddenRandomSizesRegisterTiled, 1,
                                 "seeded sizes for stage 4 (extra credit)") {
  std::mt19937_64 rng(t.seed(0));
  run_case(t, kRegister, 17 + int(rng() % 150), t.seed(4));
}
