// Heat equation: the hidden test. Its grids, alphas and step counts are
// drawn for each grading run; a student sees its name, its points and
// whether it passed.
#include <random>

#include "cases.h"
#include "cudalab/grading.h"

CUDALAB_HIDDEN_GRADED_TEST(HiddenGrids, 1, "seeded grid sizes, alphas and step counts") {
  std::mt19937_64 rng(t.seed(0));
  for (int k = 0; k < 4 && !t.failed(); ++k)
    against_cpu(t, 3 + int(rng() % 120), 3 + int(rng() % 60), 0.05f + 0.05f * float(rng() % 5),
                1 + int(rng() % 7), 1 + k % 3, t.seed(1 + k));
}
