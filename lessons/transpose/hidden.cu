// Matrix transpose: the hidden test. Its shapes are drawn for each grading
// run; a student sees its name, its points and whether it passed, not its
// inputs. It is left out of the student's copy (`cudalab release`) and
// graded in the autograder's.
#include <random>

#include "cases.h"
#include "cudalab/framework/grading.h"

CUDALAB_HIDDEN_GRADED_TEST(HiddenShapes, 1, "seeded shapes (tall, wide, odd) for stages 1 to 4") {
  std::mt19937_64 rng(t.seed(0));
  for (int k = 0; k < 4 && !t.failed(); ++k) {
    // A braced list is worked out left to right: the draws come in this
    // order with every compiler. One side short, one long, either way round.
    const int a = 2 + int(rng() % 70), b = 40 + int(rng() % 160);
    const bool tall = rng() % 2;
    run_case(t, kStages[k], {.height = tall ? b : a, .width = tall ? a : b, .seed = t.seed(1 + k)});
  }
}
