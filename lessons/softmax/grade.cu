// Softmax: the graded tests. Each runs one kernel of the student's file
// through its launcher on a seeded matrix and compares every element with
// the CPU's. The comparison is relative: a kernel adds the row's
// exponentials in float and in its own order, and a GPU's expf differs from
// the CPU's exp by a unit or two in the last place, so an element may be off
// by about cols x 2^-24 of its size (reference.h says why); elements below
// 1e-30 only need to be that small.
//
// Run them, from the course's top folder:
//   on the simulator:  ./build/bin/cudalab check softmax
//     (grades your exercise.cu; --solution or --file F.cu grades another file)
//   on a GPU:          ./build/bin/cudalab check softmax --gpu
//     (nvcc builds your file and the tests run on the GPU; the method rubrics
//     still run on the simulator)
//   on a GPU without the cudalab command, the tests and your file as one
//   program that prints each test's points (nvcc all one line, as driver.cu):
//     nvcc -O3 -std=c++17 -arch=sm_90 -I framework/include -I support/include
//       -I trace/include -I lessons/softmax lessons/softmax/grade.cu
//       lessons/softmax/exercise.cu framework/src/*.cpp support/src/*.cpp -o grade_softmax
//     ./grade_softmax
#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "cases.h"
#include "cudalab/framework/compare.h"
#include "cudalab/framework/grading.h"
#include "cudalab/framework/submission.h"
#include "lesson.h"
#include "reference.h"
#include "stages.h"

// The four stages of stages.h, each with the student's launcher.
#define GRADED_STAGE(number, name, kernel, launcher) {#kernel, CUDALAB_SUBMISSION(launcher)},
const Stage kStages[] = {SOFTMAX_STAGES(GRADED_STAGE)};
#undef GRADED_STAGE

namespace {

// Room after the end of out, filled with a marker (NaN): a kernel writing
// past the last row is caught. x has none, so that memcheck names a read
// past its end.
constexpr int kGuard = 1024;

// Whether out[i] is inf or NaN that a kernel wrote (not the unwritten
// marker, whose bytes are all 0xff).
bool computed_not_finite(float v) {
  unsigned bits;
  std::memcpy(&bits, &v, sizeof bits);
  return !std::isfinite(v) && bits != 0xffffffffu;
}

// What wrong softmax values look like, in words, after the comparison's
// list: the rows checked against the mistakes that make them so. NaN only
// in the rows whose values are all far below 0 (a max that starts at 0),
// in every row of large logits (no max subtracted), or with small values
// (-INFINITY - (-INFINITY)); rows each off by a factor of their own (a
// wrong sum: in the online stage, one not rescaled when the max grew).
void explain_softmax(cudalab::grading::TestContext& t, const Stage& stage,
                     const std::vector<float>& x, const std::vector<float>& want,
                     const std::vector<float>& got, int rows, int cols, bool large,
                     const cudalab::Tolerance& tol) {
  const size_t elements = size_t(rows) * cols;
  if (cudalab::nothing_written(got.data(), elements)) {
    t.fail() << "  No element of out was written: is the kernel body still a TODO?\n";
    return;
  }
  const bool online = &stage == &kOnline;
  auto at = [&](int r, int c) { return size_t(r) * cols + c; };
  auto right = [&](size_t i) {
    return std::fabs(double(got[i]) - want[i]) <= tol.absolute + tol.relative * std::fabs(want[i]);
  };
  // Rows holding inf or NaN the kernel computed; whether every other row is
  // right; which rows are all below 0.
  std::vector<int> not_finite, negative;
  bool others_right = true;
  for (int r = 0; r < rows; ++r) {
    bool bad = false, wrong = false, below = true;
    for (int c = 0; c < cols; ++c) {
      bad = bad || computed_not_finite(got[at(r, c)]);
      wrong = wrong || !right(at(r, c));
      below = below && x[at(r, c)] < 0.0f;
    }
    if (bad) not_finite.push_back(r);
    if (!bad && wrong) others_right = false;
    if (below) negative.push_back(r);
  }
  if (!not_finite.empty()) {
    const size_t first = at(not_finite.front(), 0);
    size_t bad = first;
    while (!computed_not_finite(got[bad])) ++bad;
    t.fail() << "  ";
    if (large && not_finite == negative && others_right)
      t.fail() << "Only the rows whose values are all below -200 (the odd rows) are NaN, and "
                  "the others are right: the max of those rows came out as 0 or more, not their "
                  "own. Does the max start at 0.0f, or do lanes that saw no column bring 0.0f "
                  "into the max? It must start at -INFINITY. With a max of 0, every expf(x - 0) "
                  "of such a row is 0 in float (below -104) and the row is 0 / 0 = NaN.\n";
    else if (large && int(not_finite.size()) == rows)
      t.fail() << "Every row of these large logits is inf or NaN: is the row's max subtracted "
                  "before expf? In float, expf above 88.7 is inf and below -104 is 0, so a row "
                  "of values from 200 to 1,000 gives inf / inf = NaN and one below -200 gives "
                  "0 / 0 = NaN. With the max subtracted, every exponent is 0 or less and the "
                  "largest term is exactly 1.\n";
    else if (large)
      t.fail() << "In float, expf of anything above 88.7 is inf and of anything below -104 is "
                  "0: subtract the row's max first, found from -INFINITY, not 0 (the odd rows "
                  "here are all below -200). If the tests with small values give NaN too, look "
                  "instead for -INFINITY - (-INFINITY), in a thread that saw no column of the "
                  "row.\n";
    else if (online)
      t.fail() << "With values between -5 and 5, NaN comes from -INFINITY - (-INFINITY): a "
                  "thread that saw no column of the row keeps max -INFINITY and sum 0, and "
                  "merging two such pairs computes expf(-INFINITY - (-INFINITY)) = expf(NaN). "
                  "The merge of (max, sum) pairs must take the case of an empty pair on its own "
                  "(if one max is -INFINITY, keep the other pair).\n";
    else
      t.fail() << "NaN comes from 0 / 0, inf / inf or inf - inf, such as -INFINITY - "
                  "(-INFINITY) for a thread that saw no column of the row.\n";
    t.fail() << "  (out[" << bad << "], row " << bad / cols << ", is " << got[bad]
             << ": the kernel computed it; it is not the marker of an element nobody wrote.)\n";
    return;
  }
  // Rows that are their right values times a factor of their own.
  int factor_row = -1;
  double factor = 1;
  for (int r = 0; r < rows; ++r) {
    double k = 0;
    bool one_factor = true, wrong = false;
    for (int c = 0; c < cols && one_factor; ++c) {
      const size_t i = at(r, c);
      wrong = wrong || !right(i);
      if (want[i] < 1e-20f) continue;
      const double ki = double(got[i]) / want[i];
      if (k == 0) k = ki;
      one_factor = std::fabs(ki / k - 1) < 1e-3;
    }
    if (!wrong) continue;
    if (!one_factor || k == 0) return;
    if (factor_row < 0) factor_row = r, factor = k;
  }
  if (factor_row < 0) return;
  t.fail() << "  Each wrong row is its right values times a factor of its own (row " << factor_row
           << ": " << factor << "), so each row's sum, the divisor, is wrong: too "
           << (factor < 1 ? "large" : "small") << ". ";
  if (online && factor < 1)
    t.fail() << "In the online loop, when the max grows from m to m', the sum so far must be "
                "rescaled: sum = sum * expf(m - m') + expf(x - m'). Without it the terms added "
                "before count on the old, smaller max, too large by expf(m' - m).\n";
  else if (online)
    t.fail() << "Do all the threads' (max, sum) pairs reach the merge, each rescaled to the "
                "larger max?\n";
  else
    t.fail() << "Does every column's expf(x - max) reach the sum once, with the same max as "
                "the numerators?\n";
}

}  // namespace

void run_case(cudalab::grading::TestContext& t, const Stage& stage, const Shape& shape,
              uint64_t seed) {
  const auto [rows, cols, logits] = shape;
  const bool large = logits == Logits::kLarge;
  t.note() << stage.kernel << ", " << rows << " rows x " << cols << " columns"
           << (large ? ", large logits (200 to 1,000 and -1,000 to -200)" : "") << "\n";
  const size_t elements = size_t(rows) * cols;
  std::vector<float> x = large ? cudalab::random_floats(elements, seed, 200.0f, 1000.0f)
                               : cudalab::random_floats(elements, seed, -5.0f, 5.0f);
  if (large)  // the odd rows all negative: their max is far below 0
    for (int r = 1; r < rows; r += 2)
      for (int c = 0; c < cols; ++c) x[size_t(r) * cols + c] = -x[size_t(r) * cols + c];
  std::vector<float> want(elements), got(elements + kGuard);
  softmax_cpu(x.data(), want.data(), rows, cols);

  const size_t bytes = elements * sizeof(float), guarded = bytes + kGuard * sizeof(float);
  float *d_x = nullptr, *d_out = nullptr;
  if (cudaMalloc(&d_x, bytes) != cudaSuccess || cudaMalloc(&d_out, guarded) != cudaSuccess) {
    t.fail() << "could not allocate device memory: " << cudaGetErrorString(cudaGetLastError())
             << "\n";
    return;
  }
  cudaMemcpy(d_x, x.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemset(d_out, cudalab::kUnwritten, guarded);  // NaN: unwritten elements show
  cudalab::track_writers();  // on the simulator: which thread wrote each element

  stage.launch(d_x, d_out, rows, cols);
  if (const std::string why = cudalab::launch_problem(); !why.empty()) {
    t.fail() << why;
  } else {
    cudaMemcpy(got.data(), d_out, guarded, cudaMemcpyDeviceToHost);
    std::ostringstream details;
    const cudalab::Tolerance tol{kSoftmaxAbsoluteTolerance, softmax_relative_tolerance(cols)};
    // Elements are out[row * cols + col]: the index names both; the viewer
    // draws them in rows of cols.
    const cudalab::CompareResult r = cudalab::compare(got.data(), want.data(), elements, tol, "out",
                                                      d_out, details, 5, size_t(cols));
    if (!r.ok()) {
      t.fail() << details.str() << "  (element i is row i / " << cols << ", column i % " << cols
               << "; the tolerance is " << tol.relative << " of the expected value)\n";
      explain_softmax(t, stage, x, want, got, rows, cols, large, tol);
    }
    if (const long past = cudalab::written_past_end(got.data(), elements, kGuard); past >= 0) {
      const std::string who = cudalab::describe_writer(d_out + past);
      t.fail() << "  out[" << past << "] was written, but out has only " << elements
               << " elements (" << rows << " x " << cols << ")" << (who.empty() ? "" : ", " + who)
               << ": a thread went past the end of the last row. A row has " << cols
               << (cols == 1 ? " column" : " columns")
               << ", not a whole number of blocks: check c < cols before every access.\n";
    }
  }
  cudaFree(d_x);
  cudaFree(d_out);
}

// Stage 1: a thread per row.
CUDALAB_GRADED_TEST(ThreadPerRow, 1, "stage 1, a thread per row: 64 rows x 100 columns") {
  run_case(t, kThreadPerRow, {.rows = 64, .cols = 100}, t.seed(1));
}
CUDALAB_GRADED_TEST(ThreadPerRowManyRows, 1,
                    "stage 1: 600 rows x 13 columns (rows not a multiple of the block)") {
  run_case(t, kThreadPerRow, {.rows = 600, .cols = 13}, t.seed(1));
}
CUDALAB_GRADED_TEST(ThreadPerRowLargeLogits, 1,
                    "stage 1: large logits, 32 x 200 (exp overflows without the max)") {
  run_case(t, kThreadPerRow, {.rows = 32, .cols = 200, .logits = Logits::kLarge}, t.seed(1));
}

// Stage 2: a block per row, reductions in shared memory.
CUDALAB_GRADED_TEST(BlockPerRow, 1, "stage 2, a block per row: 8 rows x 1,024 columns") {
  run_case(t, kBlockPerRow, {.rows = 8, .cols = 1024}, t.seed(1));
}
CUDALAB_GRADED_TEST(BlockPerRowOddLength, 1,
                    "stage 2: 6 rows x 1,000 columns (not a multiple of the block size)") {
  run_case(t, kBlockPerRow, {.rows = 6, .cols = 1000}, t.seed(1));
}
CUDALAB_GRADED_TEST(BlockPerRowOneColumn, 1,
                    "stage 2: 40 rows of one column (255 threads of each block see nothing)") {
  run_case(t, kBlockPerRow, {.rows = 40, .cols = 1}, t.seed(1));
}
CUDALAB_GRADED_TEST(BlockPerRowLargeLogits, 1, "stage 2: large logits, 8 x 300") {
  run_case(t, kBlockPerRow, {.rows = 8, .cols = 300, .logits = Logits::kLarge}, t.seed(1));
}

// Stage 3: warp shuffles.
CUDALAB_GRADED_TEST(WarpShuffle, 1, "stage 3, warp shuffles: 8 rows x 1,024 columns") {
  run_case(t, kWarpShuffle, {.rows = 8, .cols = 1024}, t.seed(1));
}
CUDALAB_GRADED_TEST(WarpShuffleOddLength, 1, "stage 3: 6 rows x 1,000 columns") {
  run_case(t, kWarpShuffle, {.rows = 6, .cols = 1000}, t.seed(1));
}
CUDALAB_GRADED_TEST(WarpShuffleOneColumn, 1, "stage 3: 40 rows of one column") {
  run_case(t, kWarpShuffle, {.rows = 40, .cols = 1}, t.seed(1));
}
CUDALAB_GRADED_TEST(WarpShuffleLargeLogits, 1, "stage 3: large logits, 8 x 300") {
  run_case(t, kWarpShuffle, {.rows = 8, .cols = 300, .logits = Logits::kLarge}, t.seed(1));
}

// Stage 4: the online softmax.
CUDALAB_GRADED_TEST(Online, 1, "stage 4, online softmax: 8 rows x 1,024 columns") {
  run_case(t, kOnline, {.rows = 8, .cols = 1024}, t.seed(1));
}
CUDALAB_GRADED_TEST(OnlineOddLength, 1, "stage 4: 6 rows x 1,000 columns") {
  run_case(t, kOnline, {.rows = 6, .cols = 1000}, t.seed(1));
}
CUDALAB_GRADED_TEST(OnlineOneColumn, 1,
                    "stage 4: 40 rows of one column (merging threads that saw nothing)") {
  run_case(t, kOnline, {.rows = 40, .cols = 1}, t.seed(1));
}
CUDALAB_GRADED_TEST(OnlineLargeLogits, 1, "stage 4: large logits, 8 x 300") {
  run_case(t, kOnline, {.rows = 8, .cols = 300, .logits = Logits::kLarge}, t.seed(1));
}

int main(int argc, char** argv) { return cudalab::grading::grader_main(argc, argv); }
