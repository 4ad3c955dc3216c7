// Reduction: the hidden test. Its sizes and grids are drawn for each grading
// run; a student sees its name, its points and whether it passed.
#include <random>

#include "cases.h"
#include "cudalab/framework/grading.h"

CUDALAB_HIDDEN_GRADED_TEST(HiddenRandomSizes, 2, "seeded sizes and grids for the four stages") {
  std::mt19937_64 rng(t.seed(0));
  for (int k = 0; k < 4 && !t.failed(); ++k) {
    // One draw a statement, so that they come in this order with every compiler.
    const int n = 1 + int(rng() % 120000);
    const int blocks = 1 + int(rng() % 48);
    run_case(t, kStages[k], {.n = n, .blocks = blocks, .seed = t.seed(1 + k)});
  }
}
