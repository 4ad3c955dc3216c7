// Monte Carlo: the hidden test. Its seeds, block counts and option are
// drawn for each grading run; a student sees its name, its points and
// whether it passed.
#include <random>

#include "cases.h"
#include "cudalab/grading.h"
#include "lesson.h"

CUDALAB_HIDDEN_GRADED_TEST(HiddenSeedsAndOptions, 1, "seeded runs, other options") {
  std::mt19937_64 rng(t.seed(0));
  pi_case(t, 3 + int(rng() % 40), 50 + int(rng() % 100), rng());
  if (t.failed()) return;
  const Option in_the_money{120.0f, 100.0f, 0.03f, 0.3f, 0.5f};
  call_case(t, in_the_money, 8 + int(rng() % 20), 100, rng(), true);
}
