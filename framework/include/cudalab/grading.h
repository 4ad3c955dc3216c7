// Graded tests: a lesson's grader is a program of CUDALAB_GRADED_TEST cases,
// each worth points. `cudalab check` runs every case in its own process with
// a time limit and adds up the points; run by hand, a grader runs them all.
//
//   CUDALAB_GRADED_TEST(OneElement, 1, "an array of a single element") {
//     ...
//     t.fail() << "c[0] is " << got << ", expected " << want;
//   }
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace cudalab::grading {

enum class Visibility { kVisible, kHidden };

// What a test case writes its findings to. A case passes unless it fails.
class TestContext {
 public:
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
  bool failed_ = false;
  std::ostringstream out_;
};

struct GradedTest {
  std::string name;
  double points = 0;
  Visibility visibility = Visibility::kVisible;
  std::string description;
  void (*run)(TestContext&) = nullptr;
};

int register_test(const GradedTest& test);
const std::vector<GradedTest>& registered_tests();

// The grader's main: `--list` prints the cases as JSON lines, `--run NAME
// --result FILE` runs one and writes its result as JSON, no argument runs
// them all and prints the points.
int grader_main(int argc, char** argv);

}  // namespace cudalab::grading

#define CUDALAB_GRADED_TEST_WITH(id, points, visibility, description)                            \
  static void cudalab_graded_##id(::cudalab::grading::TestContext& t);                           \
  [[maybe_unused]] static const int cudalab_graded_reg_##id = ::cudalab::grading::register_test( \
      {#id, points, visibility, description, cudalab_graded_##id});                              \
  static void cudalab_graded_##id([[maybe_unused]] ::cudalab::grading::TestContext& t)

#define CUDALAB_GRADED_TEST(id, points, description) \
  CUDALAB_GRADED_TEST_WITH(id, points, ::cudalab::grading::Visibility::kVisible, description)

// A hidden case: its inputs are seeded and its details are not shown to the
// student before the due date (Gradescope's "after_due_date").
#define CUDALAB_HIDDEN_GRADED_TEST(id, points, description) \
  CUDALAB_GRADED_TEST_WITH(id, points, ::cudalab::grading::Visibility::kHidden, description)
