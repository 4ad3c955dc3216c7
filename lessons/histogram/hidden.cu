// Histogram: the hidden test. Its sizes, block shapes and skews are drawn for
// each grading run; a student sees its name, its points and whether it
// passed.
#include <random>

#include "cases.h"
#include "cudalab/framework/grading.h"

CUDALAB_HIDDEN_GRADED_TEST(HiddenRandomShapes, 2,
                           "seeded sizes, block shapes and skews, each stage") {
  std::mt19937_64 rng(t.seed(0));
  const int shapes[] = {32, 64, 96, 160, 256, 512, 1024};
  const Stage* stages[] = {&kGlobal, &kShared, &kWide};
  for (int k = 0; k < 3 && !t.failed(); ++k) {
    // One draw a statement, so that they come in this order with every compiler.
    const int n = 1 + int(rng() % 150000);
    const int threads = shapes[rng() % 7];
    const int blocks = 1 + int(rng() % 40);
    const int skew = rng() % 2 ? 0 : 50 + int(rng() % 50);
    run_case(t, *stages[k],
             {.n = n, .blocks = blocks, .threads = threads, .skew = skew, .seed = t.seed(1 + k)});
  }
}
