// Graded tests: a lesson's grader is a program of CUDALAB_GRADED_TEST cases,
// each worth points. Built as the judge (CUDALAB_JUDGE, no student code in
// it), `cudalab check` runs one case at a time, each against a fresh process
// of the student's program (cudalab/framework/submission.h), and adds up the points;
// built with a solution and run by hand, a grader runs them all.
//
//   CUDALAB_GRADED_TEST(OneElement, 1, "an array of a single element") {
//     const auto data = cudalab::random_floats(n, t.seed(1));
//     ...
//     t.fail() << "c[0] is " << got << ", expected " << want;
//   }
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace cudalab::grading {

enum class Visibility { kVisible, kHidden };

// What a test case writes its findings to. A case passes unless it fails.
class TestContext {
 public:
  TestContext(uint64_t run_seed, std::string test) : run_seed_(run_seed), test_(std::move(test)) {}
  // Seed number k of this test in this grading run: every run draws other
  // inputs (a submission cannot look its outputs up), the same run the same.
  uint64_t seed(uint64_t k) const;
  // Marks the case failed; what is streamed in is the student's explanation.
  std::ostream& fail() {
    failed_ = true;
    return out_;
  }
  // Notes shown whether the case passes or not.
  std::ostream& note() { return out_; }
  bool failed() const { return failed_; }
  std::string output() const { return out_.str(); }

 private:
  uint64_t run_seed_;
  std::string test_;
  bool failed_ = false;
  std::ostringstream out_;
};

struct GradedTest {
  std::string name;
  double points = 0;
  Visibility visibility = Visibility::kVisible;
  std::string description;
  void (*run)(TestContext&) = nullptr;
  bool extra_credit = false;  // its points add to the score, not to the maximum
};

int register_test(const GradedTest& test);
const std::vector<GradedTest>& registered_tests();

// The grader's main: `--list` prints the cases (and the student's functions
// they call) as JSON lines; `--run NAME --seed S -- PROGRAM...` judges one
// case against the student's program and prints its result as JSON; with no
// argument a grader built with a solution runs every case by hand.
int grader_main(int argc, char** argv);

// The student's program's main (made by `cudalab check`): answers the
// judge's calls on file descriptors 3 and 4.
int serve_judge();

}  // namespace cudalab::grading

#define CUDALAB_GRADED_TEST_WITH(id, points, visibility, description, extra)                     \
  static void cudalab_graded_##id(::cudalab::grading::TestContext& t);                           \
  [[maybe_unused]] static const int cudalab_graded_reg_##id = ::cudalab::grading::register_test( \
      {#id, points, visibility, description, cudalab_graded_##id, extra});                       \
  static void cudalab_graded_##id([[maybe_unused]] ::cudalab::grading::TestContext& t)

#define CUDALAB_GRADED_TEST(id, points, description) \
  CUDALAB_GRADED_TEST_WITH(id, points, ::cudalab::grading::Visibility::kVisible, description, false)

// A hidden case: its inputs are seeded and its details are not shown to the
// student before the due date (Gradescope's "after_due_date").
#define CUDALAB_HIDDEN_GRADED_TEST(id, points, description) \
  CUDALAB_GRADED_TEST_WITH(id, points, ::cudalab::grading::Visibility::kHidden, description, false)

// Extra credit (an optional stage): passing adds its points to the score;
// skipping it costs nothing, since they are not part of the maximum.
#define CUDALAB_EXTRA_CREDIT_TEST(id, points, description) \
  CUDALAB_GRADED_TEST_WITH(id, points, ::cudalab::grading::Visibility::kVisible, description, true)
#define CUDALAB_HIDDEN_EXTRA_CREDIT_TEST(id, points, description) \
  CUDALAB_GRADED_TEST_WITH(id, points, ::cudalab::grading::Visibility::kHidden, description, true)
