// Vector add: the hidden test. Its sizes and block shapes are drawn for each
// grading run; a student sees its name, its points and whether it passed.
#include <random>

#include "cases.h"
#include "cudalab/framework/grading.h"

CUDALAB_HIDDEN_GRADED_TEST(HiddenRandomShapes, 1, "seeded sizes and block shapes") {
  std::mt19937_64 rng(t.seed(0));
  const int shapes[] = {32, 64, 96, 512, 1024};
  for (int k = 0; k < 4 && !t.failed(); ++k) {
    const int n = 1000 + int(rng() % 300000);
    const int threads = shapes[rng() % 5];
    const int blocks = k % 2 ? blocks_for(n, threads) : 1 + int(rng() % 40);
    run_case(t, {.n = n, .blocks = blocks, .threads = threads, .seed = t.seed(1 + k)});
  }
}
