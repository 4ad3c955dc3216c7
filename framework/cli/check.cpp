// cudalab check: grades one file (the student's exercise, the solution, or
// any file) with the lesson's judge and prints each test as it ends, the
// way a student reads it: hidden tests show only their verdict.
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli.h"
#include "cudalab/support/files.h"
#include "cudalab/support/process.h"
#include "one_submission.h"
#include "one_submission_steps.h"

namespace cudalab::cli {
namespace {

std::string indent(const std::string& s) {
  std::string out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out += "    " + line + "\n";
  return out;
}

}  // namespace

bool failed_as_expected(const std::string& expected, const GradeRecord& r,
                        std::string* failed_list) {
  std::vector<std::string> failed, all;
  for (const auto& t : r.tests) {
    all.push_back(t.name);
    if (t.status != "passed") failed.push_back(t.name);
  }
  for (const auto& f : failed) *failed_list += (failed_list->empty() ? "" : ",") + f;
  if (failed_list->empty()) *failed_list = "none";
  // The tests failed because nothing ran: that is not how a known-wrong
  // file (or the exercise) is meant to fail.
  if (r.status != "graded") {
    *failed_list += r.status == "did_not_compile" ? " (the file did not compile)"
                                                  : " (the grading failed: " + r.error + ")";
    return false;
  }
  std::vector<std::string> want;
  if (expected == "all") {
    want = all;
  } else if (expected != "none") {
    std::istringstream in(expected);
    for (std::string name; std::getline(in, name, ',');)
      if (!name.empty()) want.push_back(name);
  }
  std::sort(want.begin(), want.end());
  std::sort(failed.begin(), failed.end());
  return want == failed;
}

bool sandbox_ready(bool unconfined) {
  if (unconfined) {
    std::cerr << "cudalab: --unconfined: submissions run without a sandbox (rlimits only); "
                 "do this only for code you trust\n";
    return true;
  }
  const std::string why = sandbox_problem();
  if (why.empty()) return true;
  std::cerr << "cudalab: " << why
            << ".\nGrading runs every submission in a bubblewrap sandbox. Install bubblewrap "
               "(apt-get install bubblewrap), or, for code you trust, pass --unconfined to run "
               "it without one.\n";
  return false;
}

int check(const CheckOptions& opt) {
  Lesson lesson;
  std::string why;
  if (!find_lesson(opt.lesson, &lesson, &why)) {
    std::cerr << why;
    return 2;
  }
  fs::path student =
      opt.solution ? lesson.dir / lesson.solution_file : lesson.dir / lesson.student_file;
  if (!opt.file.empty()) student = fs::absolute(opt.file);
  if (!fs::exists(student)) {
    std::cerr << "cudalab: " << student.string() << ": no such file"
              << (opt.solution ? " (a student's copy of the course has no solutions)" : "") << "\n";
    return 2;
  }
  if (!sandbox_ready(opt.unconfined)) return 2;
  GradeOptions g;
  g.test_seconds = opt.timeout_s;
  g.seed = opt.seed_given ? opt.seed : random_seed();
  g.confined = !opt.unconfined;
  g.gpu = opt.gpu;
  g.rubrics = !opt.no_rubrics;
  g.sandbox_uid = claim_sandbox_uids();
  if (!lesson_judge(lesson, &g.judge, &why)) {
    std::cerr << why;
    return 1;
  }
  // A picture for PrairieLearn's results (kept only there) or where asked.
  std::optional<support::TempFile> pl_picture;
  std::string trace_path = opt.trace_path;
  if (opt.viz && trace_path.empty()) trace_path = lesson.name + ".check.trace";
  if (!trace_path.empty()) g.trace_path = fs::absolute(trace_path);
  if (!opt.picture_path.empty()) {
    g.picture_path = fs::absolute(opt.picture_path);
  } else if (!opt.prairielearn_path.empty()) {
    pl_picture.emplace(".png");
    g.picture_path = pl_picture->path;
  }
  std::cout << "Checking " << student.string() << " (lesson " << lesson.name << ": " << lesson.title
            << ")\n";
  if (opt.gpu && g.rubrics && !lesson.rubrics.empty())
    std::cout << "  the graded tests on the GPU; the " << lesson.rubrics.size()
              << " method rubrics on the simulator (they read its checks and traces)\n";
  if (student.extension() == ".diff")
    std::cout << "  (the solution with the change in " << student.filename().string() << ")\n";
  std::cout << "  inputs drawn with seed " << g.seed << " (--seed " << g.seed
            << " repeats them)\n  building in the " << (g.confined ? "sandbox" : "open") << " ..."
            << std::endl;
  bool first = true, rubrics_said = false;
  const GradeRecord r = grade_submission(lesson, student, g, [&](const TestRecord& t) {
    if (first) std::cout << "\n";
    first = false;
    if (t.kind == "rubric" && !rubrics_said) {
      std::cout << "\n  how the kernels work (the simulator's checks and metrics):\n";
      rubrics_said = true;
    }
    if (t.verdict == "did not compile") return;
    std::printf("  %-4s %4.1f/%-4.1f %s: %s%s\n", t.status == "passed" ? "pass" : "FAIL", t.score,
                t.max_score, t.name.c_str(),
                t.visibility == "hidden" ? "hidden test" : t.description.c_str(),
                t.extra_credit && t.visibility == "hidden" ? " (extra credit)" : "");
    const std::string out = student_output(t);
    if (!out.empty() && (t.status != "passed" || opt.verbose))
      std::cout << indent(out);
    else if (t.output.find(kDidNotEnd) != std::string::npos)
      std::cout << indent(kDidNotEnd);
    std::cout << std::flush;
  });
  if (!opt.json_path.empty()) {
    support::write_atomically(opt.json_path, gradescope_json(r).dump(2) + "\n");
    std::cout << "results written to " << opt.json_path << "\n";
  }
  if (r.status == "error") {
    std::cerr << "cudalab: " << r.error << "\n";
    return 2;
  }
  if (r.status == "did_not_compile") {
    std::cout << "\nYour file did not compile. The compiler said:\n\n"
              << r.compiler_output
              << "\nFix the first error (its file and line are at the start of the message), "
                 "then run the check again.\n";
  }
  const size_t passed = size_t(std::count_if(
      r.tests.begin(), r.tests.end(), [](const TestRecord& t) { return t.status == "passed"; }));
  std::cout << "\n" << summary_line(r) << "\n";
  std::printf("%zu passed, %zu failed (%.1f s)\n", passed, r.tests.size() - passed, r.seconds);
  if (!opt.classroom_path.empty())
    std::ofstream(opt.classroom_path) << classroom_json(r).dump() << "\n";
  if (!r.picture_test.empty() && !opt.picture_path.empty())
    std::cout << "picture of test " << r.picture_test << " written to " << opt.picture_path
              << (opt.trace_path.empty() ? " (--trace FILE keeps its trace, to explore it)" : "")
              << "\n";
  if (!r.picture_test.empty() && !trace_path.empty())
    std::cout << "trace of test " << r.picture_test << " written to " << trace_path
              << ", its graded tests beside it: look at them with cudalab-viz " << trace_path
              << " (red: out of bounds; yellow: wrong values; --step 0 steps through the "
                 "barriers)\n";
  if (r.picture_test.empty() && !r.picture_note.empty() &&
      (!opt.picture_path.empty() || !trace_path.empty()))
    std::cout << "no " << (opt.picture_path.empty() ? "trace" : "picture") << ": " << r.picture_note
              << "\n";
  if (!opt.prairielearn_path.empty()) {
    support::write_atomically(
        opt.prairielearn_path,
        prairielearn_json(r, r.picture_test.empty() ? "" : g.picture_path.string()).dump(2) + "\n");
    std::cout << "PrairieLearn results written to " << opt.prairielearn_path << "\n";
  }
  if (opt.viz && !r.picture_test.empty())
    open_viewer(trace_path, "open " + trace_path + " with cudalab-viz where there is one");
  if (opt.report_only) return 0;
  if (!opt.expect_failed.empty()) {
    std::string failed;
    const bool as_expected = failed_as_expected(opt.expect_failed, r, &failed);
    std::cout << (as_expected ? "as expected" : "NOT as expected") << ": failed " << failed
              << " (expected " << opt.expect_failed << ")\n";
    return as_expected ? 0 : 1;
  }
  return passed == r.tests.size() ? 0 : 1;
}

}  // namespace cudalab::cli
