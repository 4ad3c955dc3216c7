// Heat equation: the graded tests. The CPU steps the same grid in float with
// the same formula; a kernel that adds the four neighbours in another order
// rounds differently, by a few units in the last place per step, so the
// tolerance is 8 of them per step times the largest temperature. The sine
// mode test checks the physics: sin(pi x / (nx-1)) sin(pi y / (ny-1)) with
// zero edges keeps its shape and shrinks by the same factor every step.
//
// Run them, from the course's top folder:
//   on the simulator:  ./build/bin/cudalab check heat
//     (grades your exercise.cu; --solution or --file F.cu grades another file)
//   on a GPU:          ./build/bin/cudalab check heat --gpu
//     (nvcc builds your file and the tests run on the GPU; the method rubrics
//     still run on the simulator)
//   on a GPU without the cudalab command, the tests and your file as one
//   program that prints each test's points (nvcc all one line, as driver.cu):
//     nvcc -O3 -std=c++17 -arch=sm_90 -I framework/include -I support/include
//       -I trace/include -I lessons/heat lessons/heat/grade.cu
//       lessons/heat/exercise.cu framework/src/*.cpp support/src/*.cpp -o grade_heat
//     ./grade_heat
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

const auto heat_simulate_of_student = CUDALAB_SUBMISSION(heat_simulate);

constexpr double kPi = 3.14159265358979323846;

// Runs heat_simulate on u0 and returns the result in `got`; false when it
// failed (with the reason given to t).
bool simulate(cudalab::grading::TestContext& t, const std::vector<float>& u0, const HeatRun& run,
              std::vector<float>& got, float** device_u, cudaError_t* returned = nullptr) {
  const auto [nx, ny, alpha, steps, stage] = run;
  const size_t bytes = u0.size() * sizeof(float);
  float *u = nullptr, *scratch = nullptr;
  if (cudaMalloc(&u, bytes) != cudaSuccess || cudaMalloc(&scratch, bytes) != cudaSuccess) {
    t.fail() << "could not allocate device memory\n";
    return false;
  }
  cudaMemcpy(u, u0.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemset(scratch, 0xff, bytes);  // NaN: a cell read from scratch before it is written shows
  cudalab::track_writers();
  cudaError_t e = heat_simulate_of_student(u, scratch, nx, ny, alpha, steps, stage);
  if (returned) *returned = e;
  if (e == cudaSuccess) e = cudalab::last_call_error();
  got.assign(u0.size(), 0.0f);
  cudaMemcpy(got.data(), u, bytes, cudaMemcpyDeviceToHost);
  cudaFree(scratch);
  *device_u = u;  // freed by the caller, after naming writers
  if (e != cudaSuccess && !returned) {
    t.fail() << "heat_simulate returned " << cudaGetErrorName(e) << " (" << cudaGetErrorString(e)
             << ")\n";
    return false;
  }
  return true;
}

const char* const kStageNames[] = {"", "stage 1", "stage 2 (shared memory)", "stage 3 (columns)"};

}  // namespace

void against_cpu(cudalab::grading::TestContext& t, const HeatRun& run, uint64_t seed) {
  const auto [nx, ny, alpha, steps, stage] = run;
  t.note() << kStageNames[stage] << ": " << nx << " x " << ny << " grid, alpha " << alpha << ", "
           << steps << " steps\n";
  std::vector<float> u = cudalab::random_floats(size_t(nx) * ny, seed, 0.0f, 100.0f),
                     next(u.size());
  std::vector<float> got;
  float* device_u = nullptr;
  const bool ran = simulate(t, u, run, got, &device_u);
  for (int s = 0; s < steps; ++s) {
    heat_step_cpu(u.data(), next.data(), nx, ny, alpha);
    u.swap(next);
  }
  if (ran) {
    std::ostringstream details;
    const double tol = heat_tolerance(steps, 100.0);
    const cudalab::CompareResult r =
        cudalab::compare(got.data(), u.data(), u.size(), {tol, 0}, "u", device_u, details, 5, nx);
    if (!r.ok()) {
      t.fail() << details.str() << "  (cell i is x = i % " << nx << ", y = i / " << nx
               << "; edge cells keep their value)\n";
      bool unchanged = true;
      std::vector<float> u0 = cudalab::random_floats(size_t(nx) * ny, seed, 0.0f, 100.0f);
      for (size_t i = 0; i < u0.size() && unchanged; ++i) unchanged = got[i] == u0[i];
      if (unchanged && steps > 0)
        t.fail() << "  u did not change at all: do the kernels and heat_simulate still have "
                    "their TODOs, or does the result end in the scratch buffer?\n";
    }
  }
  cudaFree(device_u);
}

// The mode's height is drawn for the run, so its result cannot be looked up.
static void sine_mode(cudalab::grading::TestContext& t, const HeatRun& run) {
  const auto [nx, ny, alpha, steps, stage] = run;
  const double height = 0.5 + 1.5 * double(t.seed(1) % 1000) / 1000;
  t.note() << "sine mode of height " << height << " on " << nx << " x " << ny << ", alpha " << alpha
           << ", " << steps << " steps\n";
  std::vector<float> u(size_t(nx) * ny);
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x)
      u[size_t(y) * nx + x] =
          float(height * std::sin(kPi * x / (nx - 1)) * std::sin(kPi * y / (ny - 1)));
  // The discrete Laplacian's eigenvalue for this mode: each step multiplies
  // the mode by the same factor.
  const double sx = std::sin(kPi / (2.0 * (nx - 1))), sy = std::sin(kPi / (2.0 * (ny - 1)));
  const double factor = std::pow(1.0 - 4.0 * alpha * (sx * sx + sy * sy), steps);
  std::vector<float> got;
  float* device_u = nullptr;
  if (simulate(t, u, run, got, &device_u)) {
    double worst = 0;
    size_t at = 0;
    for (size_t i = 0; i < u.size(); ++i) {
      const double err = std::fabs(got[i] - factor * u[i]);
      if (!(err <= worst)) worst = err, at = i;
    }
    t.note() << "the mode shrank to " << factor << " of its height; largest difference " << worst
             << "\n";
    if (!(worst <= 1e-4 * height)) {
      t.fail() << "cell (" << at % nx << ", " << at / nx << ") is " << got[at] << ", but the mode "
               << "should be " << factor * u[at] << " there after " << steps
               << " steps (it keeps its shape and shrinks by the same factor each step).\n";
    }
  }
  cudaFree(device_u);
}

CUDALAB_GRADED_TEST(OneStep, 1, "stage 1: one step on 64 x 64") {
  against_cpu(t, {.nx = 64, .ny = 64, .alpha = 0.2f, .steps = 1, .stage = 1}, t.seed(1));
}
CUDALAB_GRADED_TEST(ManySteps, 1, "stage 1: 25 steps on 64 x 64 (double buffering)") {
  against_cpu(t, {.nx = 64, .ny = 64, .alpha = 0.25f, .steps = 25, .stage = 1}, t.seed(1));
}
CUDALAB_GRADED_TEST(OddSize, 1, "stage 1: 100 x 37, not a multiple of the block") {
  against_cpu(t, {.nx = 100, .ny = 37, .alpha = 0.1f, .steps = 4, .stage = 1}, t.seed(1));
}
CUDALAB_GRADED_TEST(SineModeDecays, 1, "stage 1: a sine mode keeps its shape and decays") {
  sine_mode(t, {.nx = 33, .ny = 17, .alpha = 0.2f, .steps = 100, .stage = 1});
}
CUDALAB_GRADED_TEST(UnstableAlphaRefused, 1,
                    "alpha above 1/4 is refused with cudaErrorInvalidValue, u untouched") {
  const int nx = 16, ny = 16;
  const std::vector<float> u0 = cudalab::random_floats(size_t(nx) * ny, t.seed(1), 0.0f, 1.0f);
  for (const float alpha : {0.3f, -0.1f}) {
    std::vector<float> got;
    float* device_u = nullptr;
    cudaError_t returned = cudaSuccess;
    simulate(t, u0, {.nx = nx, .ny = ny, .alpha = alpha, .steps = 3, .stage = 1}, got, &device_u,
             &returned);
    cudaFree(device_u);
    if (returned != cudaErrorInvalidValue)
      t.fail() << "heat_simulate with alpha = " << alpha << " returned "
               << cudaGetErrorName(returned)
               << "; above 1/4 (or below 0) the update makes errors grow every step, so it must "
                  "refuse: return cudaErrorInvalidValue.\n";
    else if (std::memcmp(got.data(), u0.data(), u0.size() * sizeof(float)) != 0)
      t.fail() << "heat_simulate refused alpha = " << alpha
               << " but changed u anyway: check alpha before the first step.\n";
    cudaGetLastError();
  }
}
CUDALAB_GRADED_TEST(SharedOneStep, 1, "stage 2, shared memory: one step on 64 x 64") {
  against_cpu(t, {.nx = 64, .ny = 64, .alpha = 0.2f, .steps = 1, .stage = 2}, t.seed(1));
}
CUDALAB_GRADED_TEST(SharedOddSize, 1, "stage 2: 100 x 37 (blocks that stick out of the grid)") {
  against_cpu(t, {.nx = 100, .ny = 37, .alpha = 0.15f, .steps = 3, .stage = 2}, t.seed(1));
}
CUDALAB_GRADED_TEST(SharedSineMode, 1, "stage 2: the sine mode") {
  sine_mode(t, {.nx = 33, .ny = 17, .alpha = 0.25f, .steps = 80, .stage = 2});
}

CUDALAB_GRADED_TEST(ColumnsOneStep, 1, "stage 3 (advanced), columns: one step on 64 x 64") {
  against_cpu(t, {.nx = 64, .ny = 64, .alpha = 0.2f, .steps = 1, .stage = 3}, t.seed(1));
}
CUDALAB_GRADED_TEST(ColumnsOddSize, 1,
                    "stage 3 (advanced): 100 x 37 (columns that end inside a block)") {
  against_cpu(t, {.nx = 100, .ny = 37, .alpha = 0.15f, .steps = 5, .stage = 3}, t.seed(1));
}
CUDALAB_GRADED_TEST(ColumnsSineMode, 1, "stage 3 (advanced): the sine mode") {
  sine_mode(t, {.nx = 33, .ny = 17, .alpha = 0.2f, .steps = 60, .stage = 3});
}

int main(int argc, char** argv) { return cudalab::grading::grader_main(argc, argv); }
