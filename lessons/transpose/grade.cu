// Matrix transpose: the graded tests. Each runs one kernel of the student's
// file through its launcher on a seeded matrix and compares every element of
// out with the CPU's transpose. A transpose only moves numbers, so the
// compare is exact: every element equal, bit for bit.
//
// Run them, from the course's top folder:
//   on the simulator:  ./build/bin/cudalab check transpose
//     (grades your exercise.cu; --solution or --file F.cu grades another file)
//   on a GPU:          ./build/bin/cudalab check transpose --gpu
//     (nvcc builds your file and the tests run on the GPU; the method rubrics
//     still run on the simulator)
//   on a GPU without the cudalab command, the tests and your file as one
//   program that prints each test's points (nvcc all one line, as driver.cu):
//     nvcc -O3 -std=c++17 -arch=sm_90 -I framework/include -I support/include
//       -I trace/include -I lessons/transpose lessons/transpose/grade.cu
//       lessons/transpose/exercise.cu framework/src/*.cpp support/src/*.cpp -o grade_transpose
//     ./grade_transpose
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "cases.h"
#include "cudalab/framework/compare.h"
#include "cudalab/framework/grading.h"
#include "cudalab/framework/submission.h"
#include "lesson.h"
#include "reference.h"
#include "stages.h"

// The four stages of stages.h, each with the student's launcher.
#define GRADED_STAGE(number, name, kernel, launcher) \
  {#kernel, "stage " #number " (" name ")", CUDALAB_SUBMISSION(launcher)},
const Stage kStages[] = {TRANSPOSE_STAGES(GRADED_STAGE)};
#undef GRADED_STAGE

namespace {

// Room after the end of out, in elements (see run_case).
constexpr size_t kGuard = kTile;

uint32_t bits_of(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Seeded floats in [-1, 1), all different, so that a wrong element's value
// says which element of in it was copied from. `where` maps each value's
// bits to its index.
std::vector<float> distinct_floats(size_t n, uint64_t seed,
                                   std::unordered_map<uint32_t, size_t>& where) {
  std::vector<float> v = cudalab::random_floats(n, seed);
  where.clear();
  where.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    while (where.count(bits_of(v[i]))) v[i] = std::nextafter(v[i], 2.0f);
    where[bits_of(v[i])] = i;
  }
  return v;
}

// Rows a..b of a tile, in words: "rows 32 to 63".
std::string span(const char* what, int first, int count) {
  std::ostringstream s;
  s << what << " " << first << " to " << first + count - 1;
  return s.str();
}

// Says, for the first wrong element of out, what it holds instead: which
// element of in, and what that mix-up usually is.
void explain_first_wrong(std::ostream& out, const Stage& stage,
                         const std::unordered_map<uint32_t, size_t>& where, const float* got,
                         const float* want, const float* d_out, int width, int height) {
  const size_t n = size_t(width) * height;
  size_t i = 0;
  while (i < n && bits_of(got[i]) == bits_of(want[i])) ++i;
  if (i == n) return;
  const int r = int(i / height), c = int(i % height);  // out's row and column
  out << "  The first wrong one, out[" << i << "], is row " << r << ", column " << c
      << " of out: it should be in[" << c << "][" << r << "] (in[" << size_t(c) * width + r
      << "]).\n";
  if (std::isnan(got[i])) {
    const std::string who = cudalab::describe_writer(d_out + i);
    if (who.empty() || who.rfind("no thread", 0) == 0)
      out << "  It is NaN, the marker the test filled out with: most likely no thread stored "
             "it. Is the thread that should store it outside your bounds check, or does it "
             "store somewhere else?\n";
    else
      out << "  It is NaN, " << who
          << ": the thread stored a value that is not in in. Did it read outside in?\n";
    return;
  }
  const auto found = where.find(bits_of(got[i]));
  if (found == where.end()) {
    out << "  It holds " << got[i] << ", a value that is nowhere in in"
        << (&stage == &kNaive
                ? ".\n"
                : ": is it a word of the shared tile that no thread of the block filled (or "
                  "filled yet)?\n");
    return;
  }
  const size_t j = found->second;
  const int rr = int(j / width), cc = int(j % width);  // in's row and column
  out << "  It holds in[" << rr << "][" << cc << "] (in[" << j << "]) instead.";
  const char* const copied =
      " That is the element at the same index in in: it was copied, not transposed. Element "
      "(r, c) of in goes to row c, column r of out, at out[c * height + r].\n";
  if (&stage == &kNaive) {
    if (j == i)
      out << copied;
    else if (rr == c)
      out << " Right row of in, wrong column.\n";
    else
      out << "\n";
    return;
  }
  // The tiled stages: out's tile at (row block R, column block C) comes from
  // in's tile at (row block C, column block R), transposed inside.
  const int t_r = r / kTile, t_c = c / kTile, s_r = rr / kTile, s_c = cc / kTile;
  const bool right_tile = s_r == t_c && s_c == t_r, same_tile = s_r == t_r && s_c == t_c;
  const bool same_place = rr % kTile == r % kTile && cc % kTile == c % kTile;
  const bool transposed = rr % kTile == c % kTile && cc % kTile == r % kTile;
  if (right_tile && same_place && !transposed) {
    out << " It comes from the right tile of in, but it was not transposed inside the tile: it "
           "has the same row and column in its tile as in out's. Read the tile back with the "
           "row and the column swapped.\n";
  } else if (same_tile && transposed && !right_tile) {
    out << " It was transposed inside its tile, but the tile is in the wrong place: out's tile "
           "with "
        << span("rows", t_r * kTile, kTile) << ", " << span("columns", t_c * kTile, kTile)
        << " must come from in's tile with " << span("rows", t_c * kTile, kTile) << ", "
        << span("columns", t_r * kTile, kTile)
        << ", and this came from the one at the same place. blockIdx.x and blockIdx.y swap "
           "places between in's tile and out's.\n";
  } else if (j == i) {
    out << copied;
  } else if (right_tile) {
    out << " It comes from the right tile of in, from another place in it.\n";
  } else {
    out << " Out's tile with " << span("rows", t_r * kTile, kTile) << ", "
        << span("columns", t_c * kTile, kTile) << " must come from in's tile with "
        << span("rows", t_c * kTile, kTile) << ", " << span("columns", t_r * kTile, kTile)
        << ", but this element comes from the tile with " << span("rows", s_r * kTile, kTile)
        << ", " << span("columns", s_c * kTile, kTile) << ".\n";
  }
}

}  // namespace

void run_case(cudalab::grading::TestContext& t, const Stage& stage, const Shape& shape) {
  const auto [height, width, seed] = shape;
  t.note() << stage.kernel << ", " << stage.name << ": in is " << height << " x " << width << " ("
           << height << (height == 1 ? " row" : " rows") << " of " << width << "), out " << width
           << " x " << height << "\n";
  const size_t n = size_t(width) * height;
  std::unordered_map<uint32_t, size_t> where;
  const std::vector<float> in = distinct_floats(n, seed, where);
  std::vector<float> want(n);
  transpose_cpu(in.data(), want.data(), width, height);
  // Room after the end of out, filled with NaN: a store just past its end
  // shows, and one further off is outside the buffer, where memcheck finds
  // it (and the simulator, like a GPU, may stop the kernel there). in has
  // no room after it: memcheck finds any read past its end.
  const size_t guard = kGuard;
  std::vector<float> got(n + guard);
  const size_t bytes = n * sizeof(float), guarded = (n + guard) * sizeof(float);
  float *d_in = nullptr, *d_out = nullptr;
  if (cudaMalloc(&d_in, bytes) != cudaSuccess || cudaMalloc(&d_out, guarded) != cudaSuccess) {
    t.fail() << "could not allocate device memory: " << cudaGetErrorString(cudaGetLastError())
             << "\n";
    return;
  }
  cudaMemset(d_out, cudalab::kUnwritten, guarded);  // NaN
  cudaMemcpy(d_in, in.data(), bytes, cudaMemcpyHostToDevice);
  cudalab::track_writers();  // on the simulator: which thread wrote each element

  stage.launch(d_in, d_out, width, height);
  if (const std::string why = cudalab::launch_problem(); !why.empty()) {
    t.fail() << why;
  } else {
    cudaMemcpy(got.data(), d_out, guarded, cudaMemcpyDeviceToHost);
    std::ostringstream details;
    // Exact: a transpose moves numbers, it computes nothing. out is drawn in
    // its rows of `height` elements.
    const cudalab::CompareResult r = cudalab::compare(got.data(), want.data(), n, {0, 0}, "out",
                                                      d_out, details, 5, size_t(height));
    if (!r.ok()) {
      t.fail() << details.str() << "  (out has " << width << (width == 1 ? " row of " : " rows of ")
               << height << ": out[i] is row i / " << height << ", column i % " << height
               << ", and row r, column c of out is in[c][r])\n";
      if (cudalab::nothing_written(got.data(), n))
        t.fail() << "  No element of out was written: is the kernel body still a TODO?\n";
      else
        explain_first_wrong(t.fail(), stage, where, got.data(), want.data(), d_out, width, height);
    }
    if (const long past = cudalab::written_past_end(got.data(), n, guard); past >= 0) {
      const std::string who = cudalab::describe_writer(d_out + past);
      t.fail() << "  out[" << past << "] was written, but out has only " << n
               << (n == 1 ? " element (" : " elements (") << width
               << (width == 1 ? " row of " : " rows of ") << height << ")"
               << (who.empty() ? "" : ", " + who)
               << ": a thread stored outside out. Check the element it stores against out's "
                  "edges: out's row must be below width, its column below height.\n";
    }
  }
  cudaFree(d_in);
  cudaFree(d_out);
}

CUDALAB_GRADED_TEST(NaiveSquare, 1, "stage 1, naive: 64 x 64") {
  run_case(t, kNaive, {.height = 64, .width = 64, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(NaiveNonSquare, 1,
                    "stage 1, naive: 100 x 37 (100 rows of 37; not a multiple of the block)") {
  run_case(t, kNaive, {.height = 100, .width = 37, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(TiledSquare, 1, "stage 2, shared-memory tile: 64 x 64 (2 x 2 tiles)") {
  run_case(t, kTiled, {.height = 64, .width = 64, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(TiledOddSize, 1,
                    "stage 2, shared-memory tile: 33 x 65 (the last tiles stick out)") {
  run_case(t, kTiled, {.height = 33, .width = 65, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(PaddedSquare, 1, "stage 3, padded tile: 64 x 64") {
  run_case(t, kPadded, {.height = 64, .width = 64, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(PaddedOddSize, 1, "stage 3, padded tile: 100 x 37") {
  run_case(t, kPadded, {.height = 100, .width = 37, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(CoarsenedSquare, 1, "stage 4, 4 elements per thread: 64 x 64") {
  run_case(t, kCoarsened, {.height = 64, .width = 64, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(CoarsenedOddSize, 1,
                    "stage 4, 4 elements per thread: 100 x 37 (a tile's last rows stick out)") {
  run_case(t, kCoarsened, {.height = 100, .width = 37, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(CoarsenedLarge, 1, "stage 4, 4 elements per thread: 256 x 512 (128 tiles)") {
  run_case(t, kCoarsened, {.height = 256, .width = 512, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(OneElement, 1, "a 1 x 1 matrix on every stage (one thread of a block works)") {
  for (const Stage& stage : kStages) {
    if (t.failed()) break;
    run_case(t, stage, {.height = 1, .width = 1, .seed = t.seed(1)});
  }
}
CUDALAB_GRADED_TEST(OneRowOneColumn, 1,
                    "1 x 70 and 45 x 1 on every stage (a row becomes a column, and back)") {
  for (const Stage& stage : kStages) {
    if (t.failed()) break;
    run_case(t, stage, {.height = 1, .width = 70, .seed = t.seed(1)});
    if (!t.failed()) run_case(t, stage, {.height = 45, .width = 1, .seed = t.seed(2)});
  }
}

int main(int argc, char** argv) { return cudalab::grading::grader_main(argc, argv); }
