// `cudalab check --expect-failed` (framework/cli/check.cpp), which CI runs
// over the exercise and the known-wrong files: exactly the named tests fail,
// in a grading that ran.
#include <gtest/gtest.h>

#include <string>

#include "one_submission.h"

namespace {

using cudalab::cli::failed_as_expected;
using cudalab::cli::GradeRecord;

GradeRecord with(std::initializer_list<std::pair<const char*, bool>> tests) {
  GradeRecord r;
  for (const auto& [name, passed] : tests) {
    cudalab::cli::TestRecord t;
    t.name = name;
    t.status = passed ? "passed" : "failed";
    r.tests.push_back(t);
  }
  return r;
}

TEST(ExpectFailed, NoneAllOrNamesMustBeExactlyWhatFailed) {
  std::string failed;
  EXPECT_TRUE(failed_as_expected("none", with({{"A", true}, {"B", true}}), &failed));
  EXPECT_EQ(failed, "none");
  failed.clear();
  EXPECT_TRUE(failed_as_expected("all", with({{"A", false}, {"B", false}}), &failed));
  EXPECT_EQ(failed, "A,B");
  failed.clear();
  EXPECT_FALSE(failed_as_expected("all", with({{"A", false}, {"B", true}}), &failed));
  failed.clear();
  EXPECT_TRUE(failed_as_expected("C,A", with({{"A", false}, {"B", true}, {"C", false}}), &failed));
  failed.clear();
  EXPECT_FALSE(failed_as_expected("A", with({{"A", false}, {"B", false}}), &failed));  // B too
  failed.clear();
  EXPECT_FALSE(failed_as_expected("A,B", with({{"A", false}, {"B", true}}), &failed));  // not B
}

TEST(ExpectFailed, AFileThatDidNotCompileOrCouldNotBeGradedIsNeverAsExpected) {
  // Every test failed, but only because nothing ran.
  GradeRecord r = with({{"A", false}, {"B", false}});
  r.status = "did_not_compile";
  std::string failed;
  EXPECT_FALSE(failed_as_expected("all", r, &failed));
  EXPECT_EQ(failed, "A,B (the file did not compile)");
  r.status = "error";
  r.error = "no judge";
  failed.clear();
  EXPECT_FALSE(failed_as_expected("all", r, &failed));
  EXPECT_EQ(failed, "A,B (the grading failed: no judge)");
}

}  // namespace
