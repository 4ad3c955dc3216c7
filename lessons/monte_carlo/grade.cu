// Monte Carlo: the graded tests. An estimate from N random samples is off
// by about one standard error, sigma / sqrt(N), and almost never by five:
// each test passes when the estimate is within 5 standard errors of the
// exact answer (pi, or the Black-Scholes price of the call), which a right
// kernel misses once in 1.7 million seeds. cuRAND's Philox gives the same
// numbers on the simulator and on a GPU, so a seed's result is the same on
// both.
//
// Run them, from the course's top folder:
//   on the simulator:  ./build/bin/cudalab check monte_carlo
//     (grades your exercise.cu; --solution or --file F.cu grades another file)
//   on a GPU:          ./build/bin/cudalab check monte_carlo --gpu
//     (nvcc builds your file and the tests run on the GPU; the method rubrics
//     still run on the simulator)
//   on a GPU without the cudalab command, the tests and your file as one
//   program that prints each test's points (nvcc all one line, as driver.cu):
//     nvcc -O3 -std=c++17 -arch=sm_90 -I framework/include -I support/include
//       -I trace/include -I lessons/monte_carlo lessons/monte_carlo/grade.cu
//       lessons/monte_carlo/exercise.cu framework/src/*.cpp support/src/*.cpp -o grade_monte_carlo
//     ./grade_monte_carlo
#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>

#include "cases.h"
#include "cudalab/framework/compare.h"
#include "cudalab/framework/grading.h"
#include "cudalab/framework/submission.h"
#include "lesson.h"
#include "reference.h"

namespace {

const auto launch_count_in_circle_of_student = CUDALAB_SUBMISSION(launch_count_in_circle);
const auto launch_call_payoffs_of_student = CUDALAB_SUBMISSION(launch_call_payoffs);

// How far off an estimate is, in standard errors, in a student's words.
std::string off_by(double estimate, double exact, double standard_error) {
  std::ostringstream s;
  s.precision(6);
  s << estimate << " (exact " << exact << ", off by "
    << std::fabs(estimate - exact) / standard_error << " standard errors of " << standard_error
    << ")";
  return s.str();
}

}  // namespace

void pi_case(cudalab::grading::TestContext& t, Draws draws, unsigned long long seed) {
  const int blocks = draws.blocks, samples = draws.samples_per_thread;
  const double n = double(blocks) * kThreads * samples;
  t.note() << blocks << " blocks of " << kThreads << " threads, " << samples
           << " points each: " << n << " points, seed " << seed << "\n";
  unsigned long long* hits = nullptr;
  if (cudaMalloc(&hits, sizeof(*hits)) != cudaSuccess) {
    t.fail() << "could not allocate device memory\n";
    return;
  }
  cudaMemset(hits, 0, sizeof(*hits));
  launch_count_in_circle_of_student(hits, blocks, samples, seed);
  unsigned long long got = 0;
  if (const std::string why = cudalab::launch_problem(); !why.empty())
    t.fail() << why;
  else
    cudaMemcpy(&got, hits, sizeof(got), cudaMemcpyDeviceToHost);
  cudaFree(hits);
  if (t.failed()) return;
  const double se = pi_standard_error(n), estimate = 4 * double(got) / n;
  t.note() << "pi ~ " << off_by(estimate, kPi, se) << "\n";
  if (got == 0) {
    t.fail() << "*hits is 0: no point was counted. Is the kernel still a TODO, or does no thread "
                "add its block's count?\n";
  } else if (double(got) > n) {
    t.fail() << "*hits is " << got << ", more than the " << n
             << " points drawn: some counts were added twice.\n";
  } else if (std::fabs(estimate - kPi) > kTolerance * se) {
    // A block's count kept in 16 bits (an unsigned short) wraps at 65,536:
    // each block then adds only what is left over, which this total shows.
    const double per_block = double(kThreads) * samples * kPi / 4;
    const double wrapped = blocks * std::fmod(per_block, 65536.0);
    if (per_block > 65535 && std::fabs(double(got) - wrapped) < blocks * 2048.0)
      t.fail() << "This total is what 16-bit counts give: each block counts about "
               << std::llround(per_block)
               << " hits, more than an unsigned short holds (65,535), and such a count wraps "
                  "around. Keep the block's count in an int or larger.\n";
    t.fail() << "The estimate is too far from pi to be chance. Common causes: threads that share "
                "a random stream (curand_init with the same subsequence draws the same points), a "
                "block total that is not the sum of all its threads' counts (a missing "
                "__syncthreads() in the reduction), or blocks whose totals are lost (adding to "
                "*hits without atomicAdd).\n";
  }
}

void call_case(cudalab::grading::TestContext& t, const Option& o, Draws draws,
               unsigned long long seed, SecondMoment second_moment) {
  const int blocks = draws.blocks, samples = draws.samples_per_thread;
  const double n = double(blocks) * kThreads * samples;
  t.note() << "spot " << o.spot << ", strike " << o.strike << ", rate " << o.rate << ", volatility "
           << o.volatility << ", " << o.years << " years; " << n << " samples, seed " << seed
           << "\n";
  double* sums = nullptr;
  if (cudaMalloc(&sums, 2 * sizeof(double)) != cudaSuccess) {
    t.fail() << "could not allocate device memory\n";
    return;
  }
  cudaMemset(sums, 0, 2 * sizeof(double));
  launch_call_payoffs_of_student(sums, o, blocks, samples, seed);
  double got[2] = {0, 0};
  if (const std::string why = cudalab::launch_problem(); !why.empty())
    t.fail() << why;
  else
    cudaMemcpy(got, sums, sizeof(got), cudaMemcpyDeviceToHost);
  cudaFree(sums);
  if (t.failed()) return;
  const CallExact e = call_exact(o);
  const double discount = discount_factor(o);
  const double se = discount * std::sqrt((e.second_moment - e.mean * e.mean) / n);
  const double price = discount * got[0] / n;
  t.note() << "price ~ " << off_by(price, e.price, se) << "\n";
  if (!std::isfinite(got[0]) || !std::isfinite(got[1])) {
    t.fail() << "the sums are " << got[0] << " and " << got[1] << ": not numbers\n";
    return;
  }
  if (got[0] == 0) {
    t.fail() << "sums[0] is 0: no payoff was added. Is the kernel still a TODO?\n";
    return;
  }
  if (std::fabs(price - e.price) > kTolerance * se)
    t.fail() << "The price is too far from Black-Scholes' to be chance. Check the payoff, "
                "max(S_T - strike, 0) with S_T = spot * exp((rate - volatility^2 / 2) years + "
                "volatility sqrt(years) Z), one stream per thread, and the block sum.\n";
  if (second_moment == SecondMoment::kChecked) {
    const double second = got[1] / n;
    t.note() << "mean squared payoff " << second << " (exact " << e.second_moment << ")\n";
    if (std::fabs(second - e.second_moment) > 0.05 * e.second_moment)
      t.fail() << "sums[1] / N is " << second << ", but the payoffs' squares average "
               << e.second_moment
               << ". Either sums[1] does not add up payoff * payoff the way sums[0] adds the "
                  "payoffs, or the draws are not independent: threads that share one random "
                  "stream (one curand state, or the same seed and sequence) draw the same "
                  "numbers, which moves the squares' average first.\n";
  }
}

CUDALAB_GRADED_TEST(PiSmall, 1, "pi: 2 blocks, 64 points per thread") {
  pi_case(t, {.blocks = 2, .samples_per_thread = 64}, t.seed(1));
}
CUDALAB_GRADED_TEST(PiMillion, 2, "pi: 4 blocks, 1,000 points per thread (1,024,000 points)") {
  pi_case(t, {.blocks = 4, .samples_per_thread = 1000}, t.seed(1));
}
CUDALAB_GRADED_TEST(PiOneSampleEach, 1,
                    "pi: 2,048 blocks, 1 point per thread (each thread its own stream)") {
  pi_case(t, {.blocks = 2048, .samples_per_thread = 1}, t.seed(1));
}
CUDALAB_GRADED_TEST(PiOddBlockCount, 1, "pi: 37 blocks, 100 points per thread") {
  pi_case(t, {.blocks = 37, .samples_per_thread = 100}, t.seed(1));
}
CUDALAB_GRADED_TEST(CallSmall, 1, "call: 2 blocks, 64 samples per thread") {
  call_case(t, kOption, {.blocks = 2, .samples_per_thread = 64}, t.seed(1),
            SecondMoment::kUnchecked);
}
CUDALAB_GRADED_TEST(CallPrice, 2,
                    "call: 32 blocks, 200 samples per thread, against Black-Scholes") {
  call_case(t, kOption, {.blocks = 32, .samples_per_thread = 200}, t.seed(1),
            SecondMoment::kUnchecked);
}
CUDALAB_GRADED_TEST(CallSecondMoment, 1, "call: the sum of squared payoffs (for the error bar)") {
  call_case(t, kOption, {.blocks = 32, .samples_per_thread = 200}, t.seed(1),
            SecondMoment::kChecked);
}

int main(int argc, char** argv) { return cudalab::grading::grader_main(argc, argv); }
