// Monte Carlo: the hidden test. Its seeds, block counts and option are
// drawn for each grading run; a student sees its name, its points and
// whether it passed.
#include <random>

#include "cases.h"
#include "cudalab/framework/grading.h"
#include "lesson.h"

CUDALAB_HIDDEN_GRADED_TEST(HiddenSeedsAndOptions, 1, "seeded runs, other options") {
  std::mt19937_64 rng(t.seed(0));
  // One draw a statement, so that they come in this order with every compiler.
  const int pi_blocks = 3 + int(rng() % 40);
  const int pi_samples = 50 + int(rng() % 100);
  const unsigned long long pi_seed = rng();
  pi_case(t, {.blocks = pi_blocks, .samples_per_thread = pi_samples}, pi_seed);
  if (t.failed()) return;
  const Option in_the_money{
      .spot = 120.0f, .strike = 100.0f, .rate = 0.03f, .volatility = 0.3f, .years = 0.5f};
  const int call_blocks = 8 + int(rng() % 20);
  const unsigned long long call_seed = rng();
  call_case(t, in_the_money, {.blocks = call_blocks, .samples_per_thread = 100}, call_seed,
            SecondMoment::kChecked);
}
