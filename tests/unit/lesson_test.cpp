// A lesson's files as the cudalab command reads them (framework/cli/lesson.cpp):
// lesson.json and what is wrong with a bad one, and the exercise made from
// the solution's BEGIN/END SOLUTION markers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "cli.h"
#include "temp_dir.h"

namespace {

namespace fs = std::filesystem;
using cudalab::cli::exercise_from_solution;
using cudalab::cli::Lesson;

std::string exercise_error(const std::string& solution) {
  try {
    exercise_from_solution(solution);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(made)";
}

TEST(Exercise, TheSolutionBetweenMarkersBecomesItsExerciseText) {
  const std::string solution =
      "__global__ void add(float* c) {\n"
      "  // BEGIN SOLUTION\n"
      "  // EXERCISE: // TODO: one element per thread\n"
      "  int i = threadIdx.x;\n"
      "  c[i] = 1;\n"
      "  // EXERCISE:\n"
      "  // END SOLUTION\n"
      "}\n";
  EXPECT_EQ(exercise_from_solution(solution),
            "__global__ void add(float* c) {\n"
            "  // TODO: one element per thread\n"
            "\n"
            "}\n");
  // Nothing marked: the file as it is.
  EXPECT_EQ(exercise_from_solution("int x;\n"), "int x;\n");
}

TEST(Exercise, MarkersThatDoNotPairNameTheirLine) {
  EXPECT_EQ(exercise_error("a\n// BEGIN SOLUTION\nb\n"),
            "line 2: BEGIN SOLUTION is never ended (END SOLUTION)");
  EXPECT_EQ(exercise_error("a\n  // END SOLUTION\n"),
            "line 2: END SOLUTION without a BEGIN SOLUTION");
  EXPECT_EQ(exercise_error("// BEGIN SOLUTION\nx\n// BEGIN SOLUTION\n"),
            "line 3: BEGIN SOLUTION inside the one of line 1");
}

class LessonJson : public ::testing::Test {
 protected:
  // Loads lesson.json with `text`; the reason when it is refused.
  std::string load(const std::string& text, Lesson* l) {
    std::ofstream(dir_ / "lesson.json") << text;
    std::string why;
    return cudalab::cli::load_lesson(dir_, l, &why) ? "" : why;
  }
  cudalab::testing::TempDir temp_;
  const fs::path dir_ = temp_.path();
};

constexpr const char* kGood = R"({
  "name": "vector_add", "title": "Vector add", "summary": "c = a + b", "order": 1,
  "grader": ["grade.cu", "hidden.cu"],
  "rubrics": [
    {"name": "NoRaces", "description": "no race", "test": "Small", "points": 1,
     "checks": "racecheck"},
    {"name": "Coalesced", "description": "coalesced", "test": "Large", "points": 2,
     "kernel": "add", "metric": "global_loads.sectors_per_request", "at_most": 4}
  ],
  "race_checked": ["Large"]
})";

TEST_F(LessonJson, AGoodOneIsReadWhole) {
  Lesson l;
  ASSERT_EQ(load(kGood, &l), "");
  EXPECT_EQ(l.name, "vector_add");
  EXPECT_EQ(l.order, 1);
  EXPECT_EQ(l.student_file, "exercise.cu");  // the default
  EXPECT_EQ(l.grader_sources, (std::vector<std::string>{"grade.cu", "hidden.cu"}));
  ASSERT_EQ(l.rubrics.size(), 2u);
  EXPECT_EQ(l.rubrics[0].checks, "racecheck");
  EXPECT_EQ(l.rubrics[1].at_most, 4);
  EXPECT_LT(l.rubrics[1].at_least, -1e299);  // no lower bound
  EXPECT_EQ(l.race_checked, std::vector<std::string>{"Large"});
}

TEST_F(LessonJson, ABadOneIsRefusedWithTheFileAndTheReason) {
  Lesson l;
  std::string why;
  EXPECT_FALSE(cudalab::cli::load_lesson(dir_, &l, &why));
  EXPECT_NE(why.find("lesson.json is missing"), std::string::npos) << why;

  why = load("{ \"name\": ", &l);
  EXPECT_NE(why.find((dir_ / "lesson.json").string() + ": "), std::string::npos) << why;
  EXPECT_NE(why.find("parse error"), std::string::npos) << why;

  why = load(R"({"name": "x", "title": "t", "summary": "s", "order": 1})", &l);
  EXPECT_NE(why.find("grader"), std::string::npos) << why;  // the key that is missing

  why = load(R"({"name": "x", "title": "t", "summary": "s", "order": "first", "grader": []})", &l);
  EXPECT_NE(why.find("number"), std::string::npos) << why;  // the type it should have

  why = load(R"({"name": "x", "title": "t", "summary": "s", "order": 1, "grader": [],
                 "rubrics": [{"name": "R", "description": "d", "test": "T", "points": 1}]})",
             &l);
  EXPECT_NE(why.find("rubric R needs either \"checks\" or \"kernel\" and \"metric\""),
            std::string::npos)
      << why;
}

// A build of a lesson's program depends on every header of its folder: a
// change to reference.h rebuilds it as surely as one to lesson.h.
TEST_F(LessonJson, EveryHeaderOfTheLessonIsPartOfWhatABuildDependsOn) {
  Lesson l;
  ASSERT_EQ(load(kGood, &l), "");
  std::ofstream(dir_ / "lesson.h") << "void f();\n";
  std::ofstream(dir_ / "reference.h") << "inline int g() { return 1; }\n";
  std::ofstream(dir_ / "kernels.cuh") << "__global__ void k();\n";
  std::ofstream(dir_ / "driver.cu") << "int main() {}\n";
  const std::string before = cudalab::cli::lesson_headers_text(l);
  EXPECT_NE(before.find("reference.h\ninline int g() { return 1; }"), std::string::npos) << before;
  EXPECT_NE(before.find("kernels.cuh"), std::string::npos) << before;
  EXPECT_EQ(before.find("driver.cu"), std::string::npos) << before;  // a source, given apart
  std::ofstream(dir_ / "reference.h") << "inline int g() { return 2; }\n";
  EXPECT_NE(cudalab::cli::lesson_headers_text(l), before);
}

}  // namespace
