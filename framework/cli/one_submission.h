// Grading one submission: its program built in a sandbox, each graded test
// judged by the lesson's judge (which never runs student code) against a
// fresh process of it, then the method rubrics. The result is one grading
// record, from which every report is written (the terminal, feedback files,
// Gradescope, PrairieLearn, JUnit, the gradebook).
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli.h"
#include "sandbox.h"

namespace cudalab::cli {

struct GradeOptions {
  double test_seconds = 20;  // per graded test
  double build_seconds = 120;
  // The compiler's address space: a student's file, even one that uses
  // Thrust or CUB, compiles in well under 500 MiB; a template that grows
  // without end is stopped when it reaches this (in about 20 s).
  size_t build_memory_mib = 2048;
  uint64_t seed = 0;     // the run's seed: the tests' inputs
  bool confined = true;  // false: --unconfined
  bool gpu = false;      // build with nvcc and run on the GPU
  bool rubrics = true;   // false: the graded tests alone (--no-rubrics)
  // The first visible test that fails runs again under the simulator's
  // checks, and what they find comes first in its output.
  bool diagnose = true;
  // The plain and instrumented compiles one after the other (cudalab-cc
  // --one-at-a-time), when the grading already runs a build per core.
  bool one_compile_at_a_time = false;
  SandboxLimits limits;
  size_t output_mib = 4;
  int sandbox_uid = 60000;  // as root: the sandbox's user (one per concurrent grading)
  // When set: a picture of the first visible test that failed (the test
  // again, traced, drawn by cudalab-viz) is written there.
  std::filesystem::path picture_path;
  // When set: the trace of that test (the same run) is kept there, for
  // cudalab-viz; without picture_path, nothing is drawn.
  std::filesystem::path trace_path;
  // The program that runs the lesson's graded tests (lesson_judge); empty:
  // the build's, bin/LESSON_judge.
  std::filesystem::path judge;
};

struct TestRecord {
  std::string name, description, visibility = "visible", kind = "test";  // or "rubric"
  std::string status = "failed";                                         // passed, failed
  std::string verdict;                // a plain word for hidden tests and summaries
  std::string output;                 // what the judge said (and the program printed)
  std::vector<std::string> findings;  // the checks' findings ("racecheck: hazard at file:line")
  double score = 0, max_score = 0, seconds = 0;
  bool extra_credit = false;  // its points add to the score, not to the maximum
  // A predicted-time rubric's kernel, predicted on its GPU (-1: none): what
  // cudalab grade ranks a class by.
  double predicted_us = -1;
  // The checks' findings as their JSON objects, for the viewer (not saved
  // in records).
  nlohmann::json finding_objects;
};

struct GradeRecord {
  std::string lesson, file, status = "graded";  // graded, did_not_compile, error
  // What the compiler said when the file did not compile (empty otherwise),
  // and what went wrong when the grading itself could not be done.
  std::string compiler_output, error;
  std::vector<TestRecord> tests;
  double score = 0, max_score = 0, seconds = 0;  // max_score: without extra credit
  // Of `seconds`, those spent waiting for a program that answered but did
  // not end, over all its runs (one limit, then a second a run).
  double exit_seconds = 0;
  uint64_t seed = 0;
  std::string sandbox;  // "bubblewrap" or "unconfined"
  // The test the picture (or the kept trace) is of ("" when none was asked
  // for or could be made), and why there is none when one was asked for.
  std::string picture_test, picture_note;
};

// Called as each test ends (for progress and for printing as we go).
using TestDone = std::function<void(const TestRecord&)>;

// Grades `file` (a .cu, or a .diff against the lesson's solution).
GradeRecord grade_submission(const Lesson& lesson, const std::filesystem::path& file,
                             const GradeOptions& o, const TestDone& done = {});

nlohmann::json record_json(const GradeRecord& r);
GradeRecord record_from_json(const nlohmann::json& j);

// "total: 12 / 12 points", with the extra credit and a file that did not
// compile said.
std::string summary_line(const GradeRecord& r);

// For CI runs over known-wrong files (`cudalab check --expect-failed`):
// whether exactly the `expected` tests failed ("none", "all" or names with
// commas) in a grading that ran; `failed_list` gets what failed, or why
// nothing ran.
bool failed_as_expected(const std::string& expected, const GradeRecord& r,
                        std::string* failed_list);

// What a student may see of a test: a hidden one shows its name, points and
// a plain verdict only.
std::string student_output(const TestRecord& t);

// `s` with every byte that does not belong to a well-formed UTF-8 sequence
// replaced by '?': what a submission prints can be any bytes, or a
// character cut in two by a length limit, and JSON and XML need UTF-8.
std::string utf8_text(const std::string& s);
// `j` with every string (not its keys) made so.
nlohmann::json utf8_json(nlohmann::json j);

// Points as the reports write them: 12, 0.5, 2.25 (formats.cpp).
std::string points_text(double points);

// The formats (formats.cpp). All of them are valid UTF-8.
nlohmann::json gradescope_json(const GradeRecord& r);
// `picture_png`: the picture of the record's picture_test, attached to that
// test when it fits in PrairieLearn's 1 MB.
nlohmann::json prairielearn_json(const GradeRecord& r, const std::string& picture_png = "");
std::string junit_xml(const std::vector<std::pair<std::string, GradeRecord>>& records);
std::string feedback_text(const GradeRecord& r);
// GitHub Classroom's autograding reporter's JSON for one runner (base64 it
// into the step's `result` output).
nlohmann::json classroom_json(const GradeRecord& r);

// A fresh seed from the system.
uint64_t random_seed();

// What a build for the simulator uses of this installation, the paths that
// exist: cudalab-cc, the simulator's and the framework's headers and
// libraries, the compiler plugins, cuda_runtime.h precompiled, Thrust's and
// CUB's headers as the simulator has them. The sandbox shows a build these;
// build_key changes when one of the files among them does.
std::vector<std::string> simulator_toolchain();

// A key for what a build makes of `sources` (texts) with this toolchain: it
// changes when a source or the simulator's compiler or libraries change.
std::string build_key(const std::vector<std::string>& sources);

// The program that runs a lesson's graded tests: the build's
// (bin/LESSON_judge) when it was built from the lesson's files as they are
// now; otherwise (a lesson just made with `cudalab new`, changed since the
// build, or outside the course's lessons folder) built here with
// cudalab-cc from grade.cu and hidden.cu and kept under a key of their text.
// False, with why, when it cannot be built.
bool lesson_judge(const Lesson& lesson, std::filesystem::path* judge, std::string* why);

}  // namespace cudalab::cli
