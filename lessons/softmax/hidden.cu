// Softmax: the hidden test. Its matrix shapes and values are drawn for each
// grading run; a student sees its name, its points and whether it passed.
#include <random>

#include "cases.h"
#include "cudalab/framework/grading.h"

CUDALAB_HIDDEN_GRADED_TEST(HiddenRandomShapes, 1,
                           "seeded shapes, small and large logits, for each of the four stages") {
  std::mt19937_64 rng(t.seed(0));
  for (int k = 0; k < 8 && !t.failed(); ++k) {
    // Stage 1 gets short rows; stages 2 to 4 rows longer than a block, so
    // that each thread sees several columns. A braced list is worked out
    // left to right: the draws come in this order with every compiler.
    const int stage = k / 2;
    const Shape shape{.rows = 1 + int(rng() % 24),
                      .cols = stage == 0 ? 1 + int(rng() % 300) : 257 + int(rng() % 1500),
                      .logits = k % 2 ? Logits::kLarge : Logits::kSmall};
    run_case(t, kStages[stage], shape, t.seed(1 + k));
  }
}
