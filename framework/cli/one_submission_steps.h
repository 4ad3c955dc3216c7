// The steps of grading one submission, for one_submission.cpp, which puts them
// together; each file named here does one of them. Not a public header.
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cudalab/trace/report_key.h"
#include "one_submission.h"

namespace cudalab::cli {

// ---- submission_text.cpp: what a submission printed, made fit to show ----

// The last `max_chars` of `s`, saying how much was cut.
std::string last_chars(const std::string& s, size_t max_chars);
// Text from the submission, made safe to show: valid UTF-8, printable, at
// most `max_chars` (its end kept).
std::string safe_text(const std::string& s, size_t max_chars);
// Each line of `s` behind "| ".
std::string quoted_lines(const std::string& s);
// What a student reads of a path: their file's name, not the sandbox's
// folder ("/submission/mine.cu:28" -> "mine.cu:28").
std::string student_paths(std::string s, const std::filesystem::path& scratch);

// ---- judge_run.cpp: one graded test, the judge against a fresh process ----

// One run of a graded test: the judge's result, or why there is none.
struct Judged {
  nlohmann::json result;  // the judge's result, or empty when the judge failed
  std::string problem;    // why there is no result
};

// The judge of a lesson and one build of a submission's program in its
// sandbox: each run() is one test against a fresh process of the program.
class Session {
 public:
  // `program`: the submission's program in the scratch folder. `same_program`:
  // another session of the same submission (its plain build beside this
  // one's instrumented twin): a program of either that did not end after
  // answering makes the later runs of both wait only a second.
  Session(const Lesson& lesson, const GradeOptions& o, const Sandbox& sandbox, std::string program,
          const Session* same_program = nullptr);
  const Sandbox& sandbox() const { return sandbox_; }
  // The key every run of this session gets (CUDALAB_REPORT_KEY), a new
  // random one per session: a report of the checks signed with it was
  // written by the checked run itself.
  const trace::ReportKey& report_key() const { return key_; }
  std::filesystem::path judge() const;
  // Test `test` within `limit` seconds, with `env` set for the program;
  // `compared`: the judge's result lists the wrong elements of its
  // comparisons ("compared"), for the viewer.
  Judged run(const std::string& test, double limit, const std::vector<std::string>& env,
             bool compared = false) const;
  // Seconds its runs (and those of the session it shares the program
  // with) waited for a program that answered but did not end.
  double exit_seconds() const { return ends_->seconds; }

 private:
  const Lesson& lesson_;
  const GradeOptions& o_;
  const Sandbox& sandbox_;
  std::string program_;
  trace::ReportKey key_{};
  // A run's program that answered but did not end makes later runs share
  // kLaterExitSeconds of waiting for theirs; the seconds waited for such
  // programs, in all.
  struct Ends {
    bool did_not_end = false;
    double seconds = 0;
    double later_left = 0;  // of the later runs' shared wait
  };
  std::shared_ptr<Ends> ends_;
};

// Seconds a test may run: the per-test limit until one test has used all of
// it; from then on every test shares what is left of half a limit more, so
// an endless submission costs one limit (and a half), not one per test.
//
// All the tests of a submission together get twice the per-test limit, so
// that one which takes just under the limit in every test costs no more.
class TimeBudget {
 public:
  explicit TimeBudget(double per_test)
      : per_test_(per_test), pool_(per_test / 2), total_(2 * per_test) {}
  double next() const;
  void spent(double limit, double seconds, bool timed_out);
  bool overrun() const { return overrun_; }

 private:
  double per_test_, pool_, total_;
  bool overrun_ = false;
};

// Whether the run timed out (the judge's limit, or the simulator's watchdog).
bool timed_out(const Judged& j);
// Whether the simulator's watchdog stopped a kernel of the run (it never
// ended) before the judge's limit.
bool launch_stopped(const Judged& j);
// What the program printed in that run.
std::string printed_of(const Judged& j);
// The test's status, points, verdict and output from the run.
void fill_from_judge(TestRecord* t, const Judged& j);
// What a test's output says when its program answered but did not end
// (shown even when the test passed).
extern const char* const kDidNotEnd;

// ---- rubrics.cpp: the method rubrics, a passing test run again ----

// The findings of a CUDALAB_CHECK_JSON report of a run of `session` under
// CUDALAB_CHECK=`checks`; false, with why in *why, when it is missing, too
// large, not a report, not signed with the session's key (written or
// changed by something other than the checked run, or cut short) or from a
// run with other checks.
bool read_findings(const std::filesystem::path& report, const Session& session,
                   const std::string& checks, nlohmann::json* findings, std::string* why);
// A checks rubric from its rerun under CUDALAB_CHECK.
void judge_checks(const Rubric& r, const Session& session, const TestRecord& rerun,
                  const std::string& printed, const std::filesystem::path& report, TestRecord* t);
// A metric rubric from its rerun's trace.
void judge_metric(const Rubric& r, const TestRecord& rerun, const std::filesystem::path& trace_path,
                  TestRecord* t);

// ---- diagnosis.cpp: a failing or racing test explained ----

// Whether a failed test is worth running again under the checks.
bool worth_diagnosing(const TestRecord& t);
// A passing test of the lesson's race_checked list again under racecheck:
// fails it when threads update global memory with no atomic. Returns the
// verdict without the list of lines ("": the test still passes).
std::string check_for_lost_updates(const Session& session, const GradeOptions& o,
                                   TimeBudget* budget, TestRecord* t);
// Test `t` again under every check, what they found put first in its
// output; how many problems (-1: no report came back).
int diagnose(const Session& session, const GradeOptions& o, TimeBudget* budget, TestRecord* t);
// The picture of the first visible test (or method rubric) that failed;
// why there is none, or "" with rec->picture_test set.
std::string take_picture(const Lesson& lesson, const Session& session, const GradeOptions& o,
                         TimeBudget* budget, GradeRecord* rec);

// ---- build_cache.cpp: what is compiled once ----

// Where the compiled mains of the lessons' programs are kept.
std::filesystem::path main_cache_root();
// The object (and its instrumented twin) of the main `main_text`; "" when
// it cannot be made (the caller then compiles the main with the file).
std::filesystem::path cached_main_object(const Lesson& lesson, const std::string& main_text);
// A submission's objects, kept by `what` (everything its compile read: the
// file's name and text, the lesson's header beside it, the flags; the
// toolchain is in the key). take() copies `object` and its instrumented
// twin (`object` + ".instrumented") from a compile of the same, true when
// there was one; keep() keeps a fresh compile's (the last 512 are kept).
class KeptObjects {
 public:
  explicit KeptObjects(std::string what);
  bool take(const std::filesystem::path& object) const;
  void keep(const std::filesystem::path& object) const;

 private:
  std::string what_;
  std::filesystem::path dir_;  // where they are kept
};

}  // namespace cudalab::cli
