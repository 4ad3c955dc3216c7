// Scan: the hidden tests. Their sizes are drawn from the grading run's seed;
// a student sees their names, points and whether they passed, not their
// inputs. They are left out of the student's copy (`cudalab release`) and
// graded in the autograder's.
#include <random>

#include "cases.h"
#include "cudalab/framework/grading.h"
#include "lesson.h"

CUDALAB_HIDDEN_GRADED_TEST(HiddenRandomSizes, 1, "seeded sizes for stages 1 to 3") {
  std::mt19937_64 rng(t.seed(0));
  // One draw a statement, so that they come in this order with every compiler.
  const int kogge_stone_n = 2 + int(rng() % (kBlockElements - 1));
  const int brent_kung_n = 2 + int(rng() % (kBlockElements - 1));
  const int multiblock_n = kTileElements + int(rng() % 150000);
  scan_case(t, Stage::kKoggeStone, kogge_stone_n, t.seed(1));
  if (!t.failed()) scan_case(t, Stage::kBrentKung, brent_kung_n, t.seed(2));
  if (!t.failed()) scan_case(t, Stage::kMultiBlock, multiblock_n, t.seed(3));
}

// Stage 4 is optional: extra credit.
CUDALAB_HIDDEN_EXTRA_CREDIT_TEST(HiddenRandomSizesSinglePass, 1,
                                 "seeded sizes for stage 4 (extra credit)") {
  std::mt19937_64 rng(t.seed(0));
  const int first_n = 1 + int(rng() % 9000);
  const int second_n = 10 * kTileElements + int(rng() % 200000);
  scan_case(t, Stage::kSinglePass, first_n, t.seed(1));
  if (!t.failed()) scan_case(t, Stage::kSinglePass, second_n, t.seed(2));
}
