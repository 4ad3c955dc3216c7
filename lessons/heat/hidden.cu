// Heat equation: the hidden test. Its grids, alphas and step counts are
// drawn for each grading run; a student sees its name, its points and
// whether it passed.
#include <random>

#include "cases.h"
#include "cudalab/framework/grading.h"

CUDALAB_HIDDEN_GRADED_TEST(HiddenGrids, 1, "seeded grid sizes, alphas and step counts") {
  std::mt19937_64 rng(t.seed(0));
  for (int k = 0; k < 4 && !t.failed(); ++k) {
    // A braced list is worked out left to right: the draws come in this
    // order with every compiler.
    const HeatRun run{.nx = 3 + int(rng() % 120),
                      .ny = 3 + int(rng() % 60),
                      .alpha = 0.05f + 0.05f * float(rng() % 5),
                      .steps = 1 + int(rng() % 7),
                      .stage = 1 + k % 3};
    against_cpu(t, run, t.seed(1 + k));
  }
}
