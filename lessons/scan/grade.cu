// Scan: the graded tests. Each runs one stage of the student's file through
// its launcher on random ints from -100 to 100 (so no sum overflows) and
// compares every element with the CPU's scan: integer sums are exact, so
// they must be equal. When they are not, the message says what the wrong
// values look like (an exclusive scan, a tile with the wrong carry-in).
//
// Run them, from the course's top folder:
//   on the simulator:  ./build/bin/cudalab check scan
//     (grades your exercise.cu; --solution or --file F.cu grades another file)
//   on a GPU:          ./build/bin/cudalab check scan --gpu
//     (nvcc builds your file and the tests run on the GPU; the method rubrics
//     still run on the simulator)
//   on a GPU without the cudalab command, the tests and your file as one
//   program that prints each test's points (nvcc all one line, as driver.cu):
//     nvcc -O3 -std=c++17 -arch=sm_90 -I framework/include -I support/include
//       -I trace/include -I lessons/scan lessons/scan/grade.cu
//       lessons/scan/exercise.cu framework/src/*.cpp support/src/*.cpp -o grade_scan
//     ./grade_scan
#include <sstream>
#include <string>
#include <vector>

#include "cases.h"
#include "cudalab/framework/compare.h"
#include "cudalab/framework/grading.h"
#include "cudalab/framework/submission.h"
#include "lesson.h"
#include "reference.h"

namespace {

// The student's launchers, called in their own process.
const auto kogge_stone_of_student = CUDALAB_SUBMISSION(launch_scan_kogge_stone);
const auto brent_kung_of_student = CUDALAB_SUBMISSION(launch_scan_brent_kung);
const auto multiblock_of_student = CUDALAB_SUBMISSION(launch_scan_multiblock);
const auto single_pass_of_student = CUDALAB_SUBMISSION(launch_scan_single_pass);
const auto reduce_tiles_of_student = CUDALAB_SUBMISSION(launch_reduce_tiles);
const auto scan_tile_sums_of_student = CUDALAB_SUBMISSION(launch_scan_tile_sums);

// Room after the end of each output, filled with a marker (-1): a kernel
// without a bounds check writes there.
constexpr int kGuard = 1024;

const char* stage_name(Stage s) {
  switch (s) {
    case Stage::kKoggeStone:
      return "stage 1 (Kogge-Stone)";
    case Stage::kBrentKung:
      return "stage 2 (Brent-Kung)";
    case Stage::kMultiBlock:
      return "stage 3 (reduce-then-scan)";
    case Stage::kSinglePass:
      return "stage 4 (single pass)";
  }
  return "?";
}

// n ints on the device, and `guard` more marked unwritten (-1) after them.
// Outputs get a guard, to catch writes past their end; inputs none, so that
// memcheck sees a read past their end.
struct DeviceInts {
  int* p = nullptr;
  bool make(cudalab::grading::TestContext& t, const std::vector<int32_t>& values, size_t n,
            size_t guard) {
    if (cudaMalloc(&p, (n + guard) * sizeof(int)) != cudaSuccess) {
      t.fail() << "could not allocate device memory: " << cudaGetErrorString(cudaGetLastError())
               << "\n";
      p = nullptr;
      return false;
    }
    cudaMemset(p, cudalab::kUnwritten, (n + guard) * sizeof(int));
    if (!values.empty())
      cudaMemcpy(p, values.data(), values.size() * sizeof(int), cudaMemcpyHostToDevice);
    return true;
  }
  ~DeviceInts() { cudaFree(p); }
};

// Copies n elements and the guard back from `d`.
std::vector<int32_t> copy_back(const int* d, size_t n) {
  std::vector<int32_t> got(n + kGuard);
  cudaMemcpy(got.data(), d, got.size() * sizeof(int), cudaMemcpyDeviceToHost);
  return got;
}

// Says that something was written past the end of `name`, and by whom.
void check_guard(cudalab::grading::TestContext& t, const std::vector<int32_t>& got, size_t n,
                 const int* device, const char* name) {
  const long past = cudalab::written_past_end(got.data(), n, kGuard);
  if (past < 0) return;
  const std::string who = cudalab::describe_writer(device + past);
  t.fail() << "  " << name << "[" << past << "] was written, but " << name << " has only " << n
           << " elements" << (who.empty() ? "" : ", by " + who)
           << ": only elements below n may be stored (the last block or tile reaches past n).\n";
}

// What wrong scan results look like, in words.
void explain_scan(cudalab::grading::TestContext& t, Stage stage, const std::vector<int32_t>& in,
                  const std::vector<int32_t>& want, const std::vector<int32_t>& got, int n) {
  if (cudalab::nothing_written(got.data(), size_t(n))) {
    t.fail() << "  No element of out was written: is this stage still a TODO?\n";
    return;
  }
  bool exclusive = true;
  for (int i = 0; i < n && exclusive; ++i) exclusive = got[i] == want[i] - in[i];
  if (exclusive) {
    t.fail() << "  Every out[i] is the sum of the elements before i (an exclusive scan). This "
                "lesson's scan is inclusive: out[i] = in[0] + ... + in[i], in[i] included.\n";
    return;
  }
  if (stage == Stage::kMultiBlock || stage == Stage::kSinglePass) {
    // Is each tile scanned right, but started from the wrong sum?
    for (int b = 0; b * kTileElements < n; ++b) {
      const int first = b * kTileElements, end = std::min(n, first + kTileElements);
      const int64_t off = int64_t(got[first]) - want[first];
      bool constant = true;
      for (int i = first; i < end && constant; ++i) constant = int64_t(got[i]) - want[i] == off;
      if (!constant) {
        t.fail() << "  The elements of tile " << b << " (elements " << first << " to " << end - 1
                 << ") are off by different amounts: either the tile is not scanned right "
                    "within itself (load_tile, warp_inclusive_scan, scan_tile, store_tile), or "
                    "its threads did not all add the same sum of the tiles before it (every "
                    "thread must read that carry-in after it was written).\n";
        return;
      }
      if (off == 0) continue;
      const int64_t before = first > 0 ? want[first - 1] : 0;  // the sum of the tiles before b
      const int64_t own = want[end - 1] - before;              // the sum of tile b
      t.fail() << "  Tile " << b << " (elements " << first << " to " << end - 1
               << ") is scanned right within itself, but all its elements are off by " << off
               << ": it must add the sum of all tiles before it, " << before << ". ";
      if (off == own)
        t.fail() << "It added the sum up to and including its own tile (" << before + own
                 << "): the carry-in of tile b is tile_sums[b - 1], not tile_sums[b].\n";
      else if (off == -before)
        t.fail() << "It added nothing: did it get no carry-in at all?\n";
      else
        t.fail() << "\n";
      return;
    }
  }
  if (stage == Stage::kKoggeStone)
    t.fail() << "  In each step every element must add a value of the step before: read one "
                "buffer, write the other, and __syncthreads() after every step, reached by every "
                "thread of the block.\n";
  if (stage == Stage::kBrentKung)
    t.fail() << "  Check the index k of both sweeps (the last element of the t-th run of 2 * "
                "stride elements), the __syncthreads() after every step (outside the if, so "
                "every thread reaches it), and that each thread loads and stores both of its "
                "elements, t and t + 512.\n";
}

}  // namespace

void scan_case(cudalab::grading::TestContext& t, Stage stage, int n, uint64_t seed) {
  t.note() << stage_name(stage) << ", n = " << n << "\n";
  const std::vector<int32_t> in = cudalab::random_ints(size_t(n), seed, -100, 100);
  std::vector<int32_t> want(n);
  scan_cpu(in.data(), want.data(), n);
  DeviceInts d_in, d_out, d_scratch;
  const size_t scratch_bytes = size_t(tiles_for(n) + 1) * sizeof(unsigned long long);
  if (!d_in.make(t, in, size_t(n), 0) || !d_out.make(t, {}, size_t(n), kGuard) ||
      !d_scratch.make(t, {}, scratch_bytes / sizeof(int), 0))
    return;
  cudalab::track_writers();  // on the simulator: which thread wrote each element
  switch (stage) {
    case Stage::kKoggeStone:
      kogge_stone_of_student(d_in.p, d_out.p, n);
      break;
    case Stage::kBrentKung:
      brent_kung_of_student(d_in.p, d_out.p, n);
      break;
    case Stage::kMultiBlock:
      multiblock_of_student(d_in.p, d_out.p, d_scratch.p, n);
      break;
    case Stage::kSinglePass:
      single_pass_of_student(d_in.p, d_out.p, reinterpret_cast<unsigned long long*>(d_scratch.p),
                             n);
      break;
  }
  if (const std::string why = cudalab::launch_problem(); !why.empty()) {
    t.fail() << why;
    return;
  }
  const std::vector<int32_t> got = copy_back(d_out.p, size_t(n));
  std::ostringstream details;
  if (!cudalab::compare(got.data(), want.data(), size_t(n), "out", d_out.p, details).ok()) {
    t.fail() << details.str();
    explain_scan(t, stage, in, want, got, n);
  }
  check_guard(t, got, size_t(n), d_out.p, "out");
}

void reduce_tiles_case(cudalab::grading::TestContext& t, int n, uint64_t seed) {
  const int tiles = tiles_for(n);
  t.note() << "stage 3, launch 1 (reduce_tiles): the sums of " << tiles << " tiles of n = " << n
           << "\n";
  const std::vector<int32_t> in = cudalab::random_ints(size_t(n), seed, -100, 100);
  std::vector<int32_t> want(tiles, 0);
  for (int i = 0; i < n; ++i) want[i / kTileElements] += in[i];
  DeviceInts d_in, d_sums;
  if (!d_in.make(t, in, size_t(n), 0) || !d_sums.make(t, {}, size_t(tiles), kGuard)) return;
  cudalab::track_writers();
  reduce_tiles_of_student(d_in.p, d_sums.p, n);
  if (const std::string why = cudalab::launch_problem(); !why.empty()) {
    t.fail() << why;
    return;
  }
  const std::vector<int32_t> got = copy_back(d_sums.p, size_t(tiles));
  std::ostringstream details;
  if (!cudalab::compare(got.data(), want.data(), size_t(tiles), "tile_sums", d_sums.p, details)
           .ok()) {
    t.fail() << details.str();
    if (cudalab::nothing_written(got.data(), size_t(tiles)))
      t.fail() << "  No element of tile_sums was written: is reduce_tiles still a TODO?\n";
    else
      t.fail() << "  tile_sums[b] must be the sum of elements b * " << kTileElements << " to b * "
               << kTileElements << " + " << kTileElements - 1
               << " of in (the last tile stops at n): all 16 elements of every thread, added "
                  "across the warp and then across the block's warps.\n";
  }
  check_guard(t, got, size_t(tiles), d_sums.p, "tile_sums");
}

void scan_tile_sums_case(cudalab::grading::TestContext& t, int tiles, uint64_t seed) {
  t.note() << "stage 3, launch 2 (scan_tile_sums): scan " << tiles << " tile sums in place\n";
  const std::vector<int32_t> sums = cudalab::random_ints(size_t(tiles), seed, -1000, 1000);
  std::vector<int32_t> want(tiles);
  scan_cpu(sums.data(), want.data(), tiles);
  DeviceInts d_sums;
  if (!d_sums.make(t, sums, size_t(tiles), kGuard)) return;
  cudalab::track_writers();
  scan_tile_sums_of_student(d_sums.p, tiles);
  if (const std::string why = cudalab::launch_problem(); !why.empty()) {
    t.fail() << why;
    return;
  }
  const std::vector<int32_t> got = copy_back(d_sums.p, size_t(tiles));
  std::ostringstream details;
  if (!cudalab::compare(got.data(), want.data(), size_t(tiles), "tile_sums", d_sums.p, details)
           .ok()) {
    t.fail() << details.str();
    bool first_chunk_right = true;
    for (int i = 0; i < kTileElements && i < tiles; ++i) first_chunk_right &= got[i] == want[i];
    if (first_chunk_right && tiles > kTileElements)
      t.fail() << "  The first " << kTileElements
               << " sums are right, the later ones not: each chunk of " << kTileElements
               << " must add the total of all chunks before it (the carry), and the block must "
                  "scan every chunk, up to `tiles`.\n";
    else
      t.fail() << "  tile_sums[b] must become tile_sums[0] + ... + tile_sums[b] (inclusive), "
                  "scanned by one block, "
               << kTileElements << " sums at a time.\n";
  }
  check_guard(t, got, size_t(tiles), d_sums.p, "tile_sums");
}

// Stage 1.
CUDALAB_GRADED_TEST(KoggeStoneFullBlock, 1, "stage 1, Kogge-Stone: 1,024 elements, a full block") {
  scan_case(t, Stage::kKoggeStone, kBlockElements, t.seed(1));
}
CUDALAB_GRADED_TEST(KoggeStoneOddSize, 1, "stage 1, Kogge-Stone: 1,000 elements (threads past n)") {
  scan_case(t, Stage::kKoggeStone, 1000, t.seed(1));
}
CUDALAB_GRADED_TEST(KoggeStoneOneElement, 1, "stage 1, Kogge-Stone: a single element") {
  scan_case(t, Stage::kKoggeStone, 1, t.seed(1));
}
// Stage 2.
CUDALAB_GRADED_TEST(BrentKungFullBlock, 1, "stage 2, Brent-Kung: 1,024 elements, a full block") {
  scan_case(t, Stage::kBrentKung, kBlockElements, t.seed(1));
}
CUDALAB_GRADED_TEST(BrentKungOddSize, 1, "stage 2, Brent-Kung: 777 elements") {
  scan_case(t, Stage::kBrentKung, 777, t.seed(1));
}
CUDALAB_GRADED_TEST(BrentKungSmall, 1, "stage 2, Brent-Kung: 5 elements") {
  scan_case(t, Stage::kBrentKung, 5, t.seed(1));
}
// Stage 3, launch by launch, then whole.
CUDALAB_GRADED_TEST(ReduceTiles, 1, "stage 3, launch 1: the sums of 5 tiles (20,000 elements)") {
  reduce_tiles_case(t, 20000, t.seed(1));
}
CUDALAB_GRADED_TEST(ScanTileSums, 1,
                    "stage 3, launch 2: 10,000 tile sums (3 chunks of one block, a carry)") {
  scan_tile_sums_case(t, 10000, t.seed(1));
}
CUDALAB_GRADED_TEST(MultiBlockOneTile, 1, "stage 3: 4,096 elements, exactly one tile") {
  scan_case(t, Stage::kMultiBlock, kTileElements, t.seed(1));
}
CUDALAB_GRADED_TEST(MultiBlockOddSize, 2,
                    "stage 3: 50,001 elements (13 tiles, the last one partial)") {
  scan_case(t, Stage::kMultiBlock, 50001, t.seed(1));
}
CUDALAB_GRADED_TEST(MultiBlockOneElement, 1, "stage 3: a single element") {
  scan_case(t, Stage::kMultiBlock, 1, t.seed(1));
}
CUDALAB_GRADED_TEST(MultiBlockLarge, 1, "stage 3: 1,000,000 elements (245 tiles)") {
  scan_case(t, Stage::kMultiBlock, 1000000, t.seed(1));
}
// Stage 4 is optional: extra credit.
CUDALAB_EXTRA_CREDIT_TEST(SinglePassOddSize, 1,
                          "stage 4 (advanced, extra credit), single pass: 50,001 elements") {
  scan_case(t, Stage::kSinglePass, 50001, t.seed(1));
}
CUDALAB_EXTRA_CREDIT_TEST(SinglePassLarge, 1,
                          "stage 4 (advanced, extra credit), single pass: 1,000,000 elements") {
  scan_case(t, Stage::kSinglePass, 1000000, t.seed(1));
}

int main(int argc, char** argv) { return cudalab::grading::grader_main(argc, argv); }
