// A failing test explained: run again under the simulator's checks, with
// what they found first, at the student's lines; a passing test whose
// results a race can spoil run again under racecheck; and a picture of the
// first failing test, traced and drawn by cudalab-viz.
#include <algorithm>
#include <fstream>
#include <sstream>

#include "cudalab/support/files.h"
#include "cudalab/support/process.h"
#include "cudalab/trace/finding.h"
#include "cudalab/trace/test_results.h"
#include "cudalab/trace/trace.h"
#include "cudalab_cli_config.h"
#include "one_submission_steps.h"

namespace cudalab::cli {

using json = nlohmann::json;

namespace {

// Test `test` again under CUDALAB_CHECK=`checks`, within what is left of
// the submission's time: the rerun's record in *rerun and the report's
// findings in *findings; false when no time was left or no readable report
// came back.
bool rerun_with_checks(const Session& session, const GradeOptions& o, TimeBudget* budget,
                       const std::string& test, const std::string& checks, TestRecord* rerun,
                       json* findings) {
  const double limit = std::min(budget->next(), o.test_seconds);
  if (limit < 0.5) return false;
  const Sandbox& sandbox = session.sandbox();
  const std::string name = "rerun-findings.json";
  std::error_code ec;
  fs::remove(sandbox.scratch() / name, ec);
  const Judged j = session.run(
      test, limit, {"CUDALAB_CHECK=" + checks, "CUDALAB_CHECK_JSON=" + sandbox.inside(name)});
  fill_from_judge(rerun, j);
  budget->spent(limit, rerun->seconds, timed_out(j));
  std::string why;
  return read_findings(sandbox.scratch() / name, session, checks, findings, &why);
}

}  // namespace

// Whether a failed test is worth running again under the checks: it ran to
// an end (a timeout would only time out again).
bool worth_diagnosing(const TestRecord& t) {
  return t.kind == "test" && t.visibility == "visible" && t.status != "passed" &&
         (t.verdict == "wrong results" || t.verdict == "crashed" ||
          t.verdict == "ended the program early");
}

// A passing test whose results a race can spoil runs again under racecheck:
// a race on global memory (two threads adding to one place without an
// atomic) loses updates on a GPU in some runs and not others, so it fails
// the test in every run here. Only makes a passing test fail, never the
// other way: a report the submission's process withholds gains nothing.
// Returns the verdict without the list of lines, for when the checks' full
// report is shown above it (empty: the test still passes).
std::string check_for_lost_updates(const Session& session, const GradeOptions& o,
                                   TimeBudget* budget, TestRecord* t) {
  TestRecord rerun;
  json findings;
  if (!rerun_with_checks(session, o, budget, t->name, "racecheck", &rerun, &findings)) return "";
  const Sandbox& sandbox = session.sandbox();
  std::string lines;
  for (const auto& object : findings) {
    trace::FindingFields f;
    if (!trace::finding_fields(object, &f) || f.tool != "racecheck" || f.space != "__global__")
      continue;
    const std::string kind = f.kind.empty() ? "race" : f.kind;
    if (t->findings.size() < 20) t->findings.push_back("racecheck " + kind);
    lines += "  " + student_paths(f.where.empty() ? "?" : f.where, sandbox.scratch()) +
             " against " +
             student_paths(f.where_other.empty() ? "?" : f.where_other, sandbox.scratch()) + ": " +
             kind + "\n";
  }
  if (lines.empty()) return "";
  t->status = "failed";
  t->score = 0;
  t->verdict = "wrong results";
  const std::string lead =
      "The results were right this time, but threads update the same place in global memory "
      "with no atomic and nothing ordering them: on a GPU some of those updates are lost, in "
      "some runs and not in others.";
  const std::string fix =
      "Add with atomicAdd, or add each block's total in shared memory first and let one "
      "thread of the block add it with one atomicAdd.\n";
  t->output = lead + " racecheck found (at your lines):\n" + safe_text(lines, 2000) + fix;
  return lead + "\n" + fix;
}

// Runs test `t` again under every check of the simulator (memcheck,
// racecheck, synccheck, initcheck) and puts what they found first in its
// output, at the student's lines: the cause before the numbers. Returns how
// many problems they found (-1: no report came back).
int diagnose(const Session& session, const GradeOptions& o, TimeBudget* budget, TestRecord* t) {
  TestRecord rerun;
  json findings;
  if (!rerun_with_checks(session, o, budget, t->name, "all", &rerun, &findings)) return -1;
  const Sandbox& sandbox = session.sandbox();
  const std::string checks = "memcheck, racecheck, synccheck and initcheck";
  if (findings.empty()) {
    // The rerun's own verdict says more: its build tracks which thread
    // wrote each element (the tests' plain build does not).
    const std::string verdict =
        rerun.status != "passed" && !rerun.output.empty() ? rerun.output : t->output;
    // A block whose threads wait for each other for ever (a barrier or a
    // warp operation some of them never reach) is no mistake of arithmetic:
    // the lines where they wait come with the verdict.
    if (verdict.find("can never finish") != std::string::npos) {
      t->output =
          "The kernel never finished: its threads wait at a barrier or a warp operation that "
          "others they wait for never reach (a GPU hangs there). Look at the lines below where "
          "they wait, and at the branch before them that sent some threads another way.\n" +
          verdict;
      return 0;
    }
    t->output = "The simulator's checks (" + checks +
                ") found no bad memory access and no barrier or race problem when this test "
                "ran again: the mistake is in what your code computes (the kernel's indices "
                "or arithmetic, or the host code around the launches).\n" +
                verdict;
    return 0;
  }
  std::string said = "The simulator's checks found " + std::to_string(findings.size()) +
                     (findings.size() == 1 ? " problem" : " problems") +
                     " when this test ran again under them (" + checks + "):\n";
  // A race across loop iterations first: it explains the races beside it.
  std::stable_sort(findings.begin(), findings.end(), [](const json& a, const json& b) {
    auto across = [](const json& object) {
      trace::FindingFields f;
      return trace::finding_fields(object, &f) &&
             f.advice.find("iterations of a loop") != std::string::npos;
    };
    return across(a) && !across(b);
  });
  t->finding_objects = json::array();
  for (const auto& f : findings)
    if (f.is_object() && t->finding_objects.size() < 50) t->finding_objects.push_back(f);
  size_t shown = 0;
  for (const auto& object : findings) {
    trace::FindingFields f;
    if (!trace::finding_fields(object, &f)) continue;
    const std::string tool = f.tool.empty() ? "check" : f.tool,
                      kind = f.kind.empty() ? "finding" : f.kind;
    if (t->findings.size() < 20) t->findings.push_back(safe_text(trace::finding_label(f), 80));
    if (shown++ >= 6) continue;
    std::string line =
        "  " + student_paths(f.where.empty() ? "(unknown line)" : f.where, sandbox.scratch()) +
        ": " + tool + ", " + kind;
    if (f.thread) line += ", thread " + trace::triple_text(*f.thread);
    if (f.block) line += (f.thread ? " of block " : ", block ") + trace::triple_text(*f.block);
    if (!f.where_other.empty())
      line += ", against " + student_paths(f.where_other, sandbox.scratch());
    said += safe_text(line, 400) + "\n";
    if (!f.message.empty())
      said += "    " + safe_text(student_paths(f.message, sandbox.scratch()), 600) + "\n";
    if (!f.advice.empty())
      said += "    " + safe_text(student_paths(f.advice, sandbox.scratch()), 600) + "\n";
  }
  if (shown > 6) said += "  ... and " + std::to_string(shown - 6) + " more\n";
  said += "The test's own verdict, from the first run:\n";
  t->output = said + t->output;
  return int(findings.size());
}

namespace {

// The time of a picture's run of a test whose kernel never ended: the
// simulator stops the kernel a little before it is out, with the trace
// whole.
constexpr double kNeverEndedPictureSeconds = 3.0;

// The graded tests beside the kept trace (trace/test_results.h), for
// cudalab-viz: every test as the student may read it, and the comparisons
// of the traced run `j` of test `run` (the judge's, not the program's).
bool write_test_results(const Lesson& lesson, const Judged& j, const GradeRecord& rec,
                        const std::string& shown, const std::string& run,
                        const fs::path& trace_path, const Sandbox& sandbox, std::string* why) {
  const fs::path& scratch = sandbox.scratch();
  auto inside = [&](const std::string& name) { return sandbox.inside(name); };
  trace::TestResults r;
  r.lesson = lesson.name;
  r.file = fs::path(rec.file).filename().string();
  r.traced_test = run;
  r.shown = shown;
  std::error_code ec;
  r.trace_bytes = fs::file_size(trace_path, ec);
  r.trace_fingerprint = trace::file_fingerprint(trace_path.string());
  for (const TestRecord& t : rec.tests) {
    r.tests.push_back({t.name, t.description, t.kind, t.visibility, t.status, t.verdict,
                       student_output(t), t.score, t.max_score});
    // The checks' findings of the traced test (its run under them): the
    // viewer puts them on the launches of their kernels.
    if (t.name == run && t.visibility == "visible")
      for (const json& f : t.finding_objects) r.findings.push_back(f.dump());
  }
  // The program's sources as the trace names them (in the sandbox, and its
  // folder on this machine when unconfined): the scratch folder goes.
  std::error_code listed;
  for (const auto& e : fs::directory_iterator(scratch, listed)) {
    const std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || (ext != ".cu" && ext != ".cuh" && ext != ".h") ||
        e.file_size() > (1u << 20) || r.sources.size() >= 16)
      continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    r.sources[inside(e.path().filename().string())] = text.str();
    r.sources[e.path().string()] = text.str();
  }
  if (j.result.is_object() && j.result.contains("compared")) {
    try {
      r.compared = trace::comparisons_from_json(j.result["compared"].dump());
    } catch (const trace::TraceError& e) {
      *why = e.what();
      return false;
    }
  }
  return trace::write_test_results(trace::test_results_path(trace_path.string()), r, why);
}

}  // namespace

// A picture of the first visible test that failed once it had run to its
// end (else of the test under the first checks rubric that failed, else
// under the first metric rubric that failed, else of the first test whose
// kernel never ended): the
// test again with its memory accesses traced, drawn by cudalab-viz under
// Xvfb. Both run in the sandbox (the trace is the submission's own file);
// the rerun gets what is left of the submission's time, so a picture never
// lets a submission run longer in all, but for a kernel that never ended:
// its rerun gets kNeverEndedPictureSeconds more. Returns why there is none, or "" with
// rec->picture_test set (the test or rubric the picture goes with).
std::string take_picture(const Lesson& lesson, const Session& session, const GradeOptions& o,
                         TimeBudget* budget, GradeRecord* rec) {
  const Sandbox& sandbox = session.sandbox();
  std::string shown, run;  // the record's test the picture goes with, the test to run
  for (const auto& t : rec->tests)
    if (shown.empty() && t.kind == "test" && t.visibility == "visible" && t.status != "passed" &&
        (t.verdict == "wrong results" || t.verdict == "crashed"))
      shown = run = t.name;
  // Else a rubric's: one whose checks found a problem (a race, a barrier
  // reached by part of a block) before one whose metric is out of bounds,
  // whatever their order: a bug before a slow kernel.
  std::string checks;  // a checks rubric's checks: its findings are the picture's point
  for (const char* verdict : {"checks found problems", "metric out of bounds"})
    for (const auto& t : rec->tests)
      for (const Rubric& r : lesson.rubrics)
        if (shown.empty() && t.kind == "rubric" && t.name == r.name && t.status != "passed" &&
            t.verdict == verdict)
          shown = t.name, run = r.test, checks = r.checks;
  // Else a test whose kernel never ended: the submission's time is spent
  // by then, so it runs again on a short time of its own, and the
  // simulator stops the kernel when that is nearly out: the trace holds
  // what the threads did until then and the line where one of them was.
  bool never_ended = false;
  for (const auto& t : rec->tests)
    if (shown.empty() && t.kind == "test" && t.visibility == "visible" && t.verdict == "timed out")
      shown = run = t.name, never_ended = true;
  if (shown.empty()) return "no visible test or rubric failed in a way a picture shows";
  const bool drawn = !o.picture_path.empty();
  if (drawn && !fs::exists(CUDALAB_VIZ_PATH))
    return "cudalab-viz is not built (cmake --build --preset default --target cudalab-viz)";
  if (drawn && support::find_program("xvfb-run").empty())
    return "xvfb-run is not installed (apt-get install xvfb)";
  const double limit = never_ended ? std::min(kNeverEndedPictureSeconds, o.test_seconds)
                                   : std::min(budget->next(), o.test_seconds);
  if (limit < 0.5) return "the submission's time ran out before the picture";
  const fs::path trace = sandbox.scratch() / "picture.trace";
  const fs::path png = sandbox.scratch() / "picture.png";
  std::error_code ec;
  fs::remove(trace, ec);
  fs::remove(png, ec);
  std::vector<std::string> env = {"CUDALAB_TRACE=" + sandbox.inside("picture.trace")};
  if (!checks.empty()) env.push_back("CUDALAB_CHECK=" + checks);
  // A kernel that never ends would record accesses until it is stopped: a
  // few of its rounds are enough to show what it repeats.
  if (never_ended) env.push_back("CUDALAB_TRACE_MAX_ACCESSES=100000");
  // The comparison's wrong elements too: the viewer frames them and opens
  // on the buffer that holds them.
  const Judged j = session.run(run, limit, env, /*compared=*/true);
  TestRecord rerun;
  fill_from_judge(&rerun, j);
  budget->spent(limit, rerun.seconds, timed_out(j));
  if (!fs::is_regular_file(trace) || fs::file_size(trace, ec) == 0)
    return "test " + run + " left no trace when run again (" + rerun.verdict + ")";
  // A program that never ends on the host has no stopped kernel to draw.
  if (never_ended && !launch_stopped(j))
    return "test " + run + " never ended, but not in a kernel (the host code's loop?)";
  if (fs::file_size(trace, ec) > (64u << 20)) return "the trace is larger than 64 MiB";
  // The graded tests beside the trace (picture.trace.tests.json): what the
  // viewer needs to open on what the test is about and to say it in words.
  if (std::string why; !write_test_results(lesson, j, *rec, shown, run, trace, sandbox, &why))
    return why;
  if (!o.trace_path.empty()) {
    // Copies, not the sandbox's files: the scratch folder goes with the grading.
    fs::copy_file(trace, o.trace_path, fs::copy_options::overwrite_existing, ec);
    if (!ec)
      fs::copy_file(trace::test_results_path(trace.string()),
                    trace::test_results_path(o.trace_path.string()),
                    fs::copy_options::overwrite_existing, ec);
    if (ec) return "cannot write " + o.trace_path.string() + ": " + ec.message();
    if (!drawn) {
      rec->picture_test = shown;
      return "";
    }
  }
  // The drawing: cudalab-viz alone is seen besides /usr.
  const Sandbox drawing(sandbox.scratch(), {CUDALAB_VIZ_PATH}, {}, sandbox.confined(), false,
                        o.sandbox_uid);
  SandboxLimits l = o.limits;
  l.cpu_seconds = 60;
  std::vector<std::string> draw = {"xvfb-run",
                                   "-a",
                                   "-s",
                                   "-screen 0 1280x800x24",
                                   CUDALAB_VIZ_PATH,
                                   sandbox.inside("picture.trace"),
                                   "--screenshot",
                                   sandbox.inside("picture.png"),
                                   "--size",
                                   "1024x640"};
  const support::ProcessResult r = support::run_process(drawing.wrap(draw, {}, l), 60);
  if (r.exit_code != 0 || !fs::is_regular_file(png))
    return "cudalab-viz could not draw the trace: " + last_chars(r.output, 300);
  fs::copy_file(png, o.picture_path, fs::copy_options::overwrite_existing, ec);
  if (ec) return "cannot write " + o.picture_path.string() + ": " + ec.message();
  rec->picture_test = shown;
  return "";
}

}  // namespace cudalab::cli
