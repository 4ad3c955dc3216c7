// Matrix multiply: the graded tests. Each runs one kernel of the student's
// file through its launcher on seeded matrices and compares every element of
// C with the CPU, which sums in double precision. A float sum of n products
// can differ from it by about n x 2^-24 times the sum of the products' sizes
// (one rounding per addition), so that, twice over, is the tolerance.
//
// Run them, from the course's top folder:
//   on the simulator:  ./build/bin/cudalab check matmul
//     (grades your exercise.cu; --solution or --file F.cu grades another file)
//   on a GPU:          ./build/bin/cudalab check matmul --gpu
//     (nvcc builds your file and the tests run on the GPU; the method rubrics
//     still run on the simulator)
//   on a GPU without the cudalab command, the tests and your file as one
//   program that prints each test's points (nvcc all one line, as driver.cu):
//     nvcc -O3 -std=c++17 -arch=sm_90 -I framework/include -I support/include
//       -I trace/include -I lessons/matmul lessons/matmul/grade.cu
//       lessons/matmul/exercise.cu framework/src/*.cpp support/src/*.cpp -o grade_matmul
//     ./grade_matmul
#include <cmath>
#include <cstring>
#include <random>
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
const Stage kStages[] = {MATMUL_STAGES(GRADED_STAGE)};
#undef GRADED_STAGE

namespace {

// Room after the end of C, filled with a marker: a kernel without a bounds
// check writes there.
constexpr int kGuard = 1024;

}  // namespace

void run_case(cudalab::grading::TestContext& t, const Stage& stage, int n, uint64_t seed) {
  t.note() << stage.kernel << ", n = " << n << "\n";
  const size_t elements = size_t(n) * n;
  const std::vector<float> a = cudalab::random_floats(elements, seed),
                           b = cudalab::random_floats(elements, seed + 1);
  std::vector<float> want(elements), got(elements + kGuard);
  double worst_bound = 0;
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      double size = 0;
      want[size_t(r) * n + c] = float(matmul_cpu_element(a.data(), b.data(), n, r, c, &size));
      worst_bound = std::max(worst_bound, matmul_tolerance(n, size));
    }
  const size_t bytes = elements * sizeof(float);
  float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  // A and B get the guard too, so that a kernel reading past their end
  // reads NaN, the same on every run, rather than whatever lies there.
  const size_t guarded = bytes + kGuard * sizeof(float);
  if (cudaMalloc(&d_a, guarded) != cudaSuccess || cudaMalloc(&d_b, guarded) != cudaSuccess ||
      cudaMalloc(&d_c, guarded) != cudaSuccess) {
    t.fail() << "could not allocate device memory: " << cudaGetErrorString(cudaGetLastError())
             << "\n";
    return;
  }
  for (float* d : {d_a, d_b, d_c}) cudaMemset(d, cudalab::kUnwritten, guarded);  // NaN
  cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b.data(), bytes, cudaMemcpyHostToDevice);
  cudalab::track_writers();

  stage.launch(d_a, d_b, d_c, n);
  if (const std::string why = cudalab::launch_problem(); !why.empty()) {
    t.fail() << why;
  } else {
    cudaMemcpy(got.data(), d_c, guarded, cudaMemcpyDeviceToHost);
    std::ostringstream details;
    // Elements are c[row * n + col]: the index names both.
    const cudalab::CompareResult r =
        cudalab::compare(got.data(), want.data(), elements, {worst_bound + 1e-30, 0}, "c", d_c,
                         details, 5, size_t(n));
    if (!r.ok()) {
      t.fail() << details.str() << "  (element i is row i / " << n << ", column i % " << n
               << "; the tolerance is " << worst_bound << ")\n";
      if (cudalab::nothing_written(got.data(), elements))
        t.fail() << "  No element of c was written: is the kernel body still a TODO?\n";
    }
    if (const long past = cudalab::written_past_end(got.data(), elements, kGuard); past >= 0) {
      const std::string who = cudalab::describe_writer(d_c + past);
      t.fail() << "  c[" << past << "] was written, but c has only " << elements << " elements ("
               << n << " x " << n << ")" << (who.empty() ? "" : ", by " + who)
               << ": a thread outside the matrix stored its sum. Only threads with row < n "
                  "and col < n may write.\n";
    }
  }
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
}

CUDALAB_GRADED_TEST(NaiveSquare64, 1, "stage 1, naive: 64 x 64") {
  run_case(t, kNaive, 64, t.seed(1));
}
CUDALAB_GRADED_TEST(NaiveOddSize, 1, "stage 1, naive: 100 x 100 (not a multiple of 16)") {
  run_case(t, kNaive, 100, t.seed(1));
}
CUDALAB_GRADED_TEST(CoalescedSquare64, 1, "stage 2, coalesced: 64 x 64") {
  run_case(t, kCoalesced, 64, t.seed(1));
}
CUDALAB_GRADED_TEST(CoalescedOddSize, 1, "stage 2, coalesced: 100 x 100") {
  run_case(t, kCoalesced, 100, t.seed(1));
}
CUDALAB_GRADED_TEST(TiledSquare64, 1, "stage 3, tiled: 64 x 64 (4 x 4 tiles)") {
  run_case(t, kTiled, 64, t.seed(1));
}
CUDALAB_GRADED_TEST(TiledOddSize, 1,
                    "stage 3, tiled: 100 x 100 (the last tiles stick out of the matrices)") {
  run_case(t, kTiled, 100, t.seed(1));
}
CUDALAB_GRADED_TEST(TiledSmall, 1, "stage 3, tiled: 5 x 5 (smaller than one tile)") {
  run_case(t, kTiled, 5, t.seed(1));
}
CUDALAB_EXTRA_CREDIT_TEST(RegisterTiledSquare256, 1,
                          "stage 4 (advanced, extra credit), register-tiled: 256 x 256") {
  run_case(t, kRegister, 256, t.seed(1));
}
CUDALAB_EXTRA_CREDIT_TEST(RegisterTiledOddSize, 1,
                          "stage 4 (advanced, extra credit), register-tiled: 200 x 200") {
  run_case(t, kRegister, 200, t.seed(1));
}

int main(int argc, char** argv) { return cudalab::grading::grader_main(argc, argv); }
