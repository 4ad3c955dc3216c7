// Vector add: the graded tests (10 points; hidden.cu has the hidden one).
// Each runs the kernel from the student's file through its launcher, on
// inputs drawn for this grading run, and compares every element with the
// CPU; a + b is a single rounding on both, so they must agree exactly.
//
// Run them, from the course's top folder:
//   on the simulator:  ./build/bin/cudalab check vector_add
//     (grades your exercise.cu; --solution or --file F.cu grades another file)
//   on a GPU:          ./build/bin/cudalab check vector_add --gpu
//     (nvcc builds your file and the tests run on the GPU; the method rubrics
//     still run on the simulator)
//   on a GPU without the cudalab command, the tests and your file as one
//   program that prints each test's points (nvcc all one line, as driver.cu):
//     nvcc -O3 -std=c++17 -arch=sm_90 -I framework/include -I support/include
//       -I trace/include -I lessons/vector_add lessons/vector_add/grade.cu
//       lessons/vector_add/exercise.cu framework/src/*.cpp support/src/*.cpp -o grade_vector_add
//     ./grade_vector_add
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

namespace {

const auto launch_vector_add_of_student = CUDALAB_SUBMISSION(launch_vector_add);

// Room after the end of c, filled with a marker: a kernel without a bounds
// check writes there.
constexpr int kGuard = 256;

}  // namespace

void run_case(cudalab::grading::TestContext& t, const Case& c) {
  t.note() << "n = " << c.n << ", " << c.blocks << " blocks of " << c.threads << " threads\n";
  std::vector<float> a = cudalab::random_floats(c.n, c.seed),
                     b = cudalab::random_floats(c.n, c.seed + 1);
  std::vector<float> want(c.n), got(c.n + kGuard);
  vector_add_cpu(a.data(), b.data(), want.data(), c.n);

  const size_t bytes = size_t(c.n) * sizeof(float);
  float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  if (cudaMalloc(&d_a, bytes) != cudaSuccess || cudaMalloc(&d_b, bytes) != cudaSuccess ||
      cudaMalloc(&d_c, bytes + kGuard * sizeof(float)) != cudaSuccess) {
    t.fail() << "could not allocate device memory: " << cudaGetErrorString(cudaGetLastError())
             << "\n";
    return;
  }
  cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemset(d_c, cudalab::kUnwritten, bytes + kGuard * sizeof(float));  // NaN everywhere
  cudalab::track_writers();

  launch_vector_add_of_student(d_a, d_b, d_c, c.n, c.blocks, c.threads);
  if (const std::string why = cudalab::launch_problem(); !why.empty()) {
    t.fail() << why;
    return;
  }
  cudaMemcpy(got.data(), d_c, bytes + kGuard * sizeof(float), cudaMemcpyDeviceToHost);

  std::ostringstream details;
  cudalab::CompareResult r =
      cudalab::compare(got.data(), want.data(), c.n, {0, 0}, "c", d_c, details);
  if (!r.ok()) {
    t.fail() << details.str();
    if (cudalab::nothing_written(got.data(), size_t(c.n)))
      t.fail() << "  No element of c was written: is the kernel body still a TODO?\n";
  }
  if (const long past = cudalab::written_past_end(got.data(), size_t(c.n), kGuard); past >= 0) {
    const std::string who = cudalab::describe_writer(d_c + past);
    t.fail() << "  c[" << past << "] was written, but c has only " << c.n
             << (c.n == 1 ? " element" : " elements")
             << ": a thread past the end of the array wrote to memory that is not "
                "yours"
             << (who.empty() ? "" : " (" + who + ")")
             << ". Check the bounds: only i < n may be written.\n";
  }
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
}

CUDALAB_GRADED_TEST(MultipleOfBlockSize, 2, "n a multiple of the block size (65,536 = 256 x 256)") {
  run_case(t, {.n = 65536, .blocks = 256, .threads = 256, .seed = t.seed(1)});
}

CUDALAB_GRADED_TEST(NotAMultipleOfBlockSize, 2,
                    "n not a multiple of the block size (100,003): the bounds check") {
  run_case(t, {.n = 100003, .blocks = blocks_for(100003, 256), .threads = 256, .seed = t.seed(1)});
}

CUDALAB_GRADED_TEST(OneElement, 1, "a single element, one block of 256 threads") {
  run_case(t, {.n = 1, .blocks = 1, .threads = 256, .seed = t.seed(1)});
}

CUDALAB_GRADED_TEST(
    GridStride, 2,
    "a grid smaller than the array (16 blocks of 128 for 100,000): the grid-stride loop") {
  run_case(t, {.n = 100000, .blocks = 16, .threads = 128, .seed = t.seed(1)});
}

CUDALAB_GRADED_TEST(SixteenMillion, 2, "16M elements (16,777,216), blocks of 256") {
  run_case(t,
           {.n = 1 << 24, .blocks = blocks_for(1 << 24, 256), .threads = 256, .seed = t.seed(1)});
}

int main(int argc, char** argv) { return cudalab::grading::grader_main(argc, argv); }
