// Applying a known-wrong file's unified diff to its solution
// (framework/cli/diff.cpp): hunks that fit, hunks that no longer do, and
// what is not a diff at all.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "cli.h"

using cudalab::cli::apply_to_solution;

namespace {

const std::string kSolution = "a\nb\nc\nd\ne\nf\n";

std::string error_of(const std::string& solution, const std::string& diff) {
  try {
    apply_to_solution(solution, diff);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(applied)";
}

TEST(ApplyDiff, ChangesAddsAndRemovesLinesInTwoHunks) {
  const std::string diff =
      "// expect-failed: X\n--- solution.cu\n+++ mine.cu\n"
      "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
      "@@ -4,3 +4,4 @@\n d\n+d2\n e\n f\n";
  EXPECT_EQ(apply_to_solution(kSolution, diff), "a\nB\nc\nd\nd2\ne\nf\n");
}

TEST(ApplyDiff, AHunkThatAddsOnlyGoesAfterItsLine) {
  EXPECT_EQ(apply_to_solution(kSolution, "@@ -2,0 +3,1 @@\n+new\n"), "a\nb\nnew\nc\nd\ne\nf\n");
}

TEST(ApplyDiff, AHunkThatNoLongerFitsSaysWhichAndWhatToDo) {
  const std::string e = error_of(kSolution, "@@ -2,2 +2,2 @@\n x\n-c\n+C\n");
  EXPECT_NE(e.find("the hunk at @@ -2,2 +2,2 @@ no longer fits the solution"), std::string::npos)
      << e;
  EXPECT_NE(e.find("remake the file with diff -u"), std::string::npos) << e;
}

TEST(ApplyDiff, NoHunkOrAStrangeLineIsAnError) {
  EXPECT_NE(error_of(kSolution, "just some text\n").find("no @@ hunk"), std::string::npos);
  EXPECT_NE(error_of(kSolution, "@@ -1,1 +1,1 @@\n*a\n").find("is not a line of a unified diff"),
            std::string::npos);
}

// Found by tests/fuzz: a line number past long's range overflowed.
TEST(ApplyDiff, LineNumbersOutOfRangeAreAnErrorNotAnOverflow) {
  for (const char* head : {"@@ -9223372036854775807,1 +1,1 @@", "@@ -9223372036854775808,1 +1,1 @@",
                           "@@ --9223372036854775808,1 +1,1 @@", "@@ -99999999999,1 +1,1 @@"}) {
    const std::string e = error_of(kSolution, std::string(head) + "\n-a\n+b\n");
    EXPECT_NE(e.find("no longer fits the solution"), std::string::npos) << head << ": " << e;
  }
}

}  // namespace
