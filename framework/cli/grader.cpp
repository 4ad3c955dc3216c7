// Grading one submission (see grader.h). The trusted side is this process
// and the lesson's judge; the submission's code runs only in the sandbox,
// built there from its file and a generated main that serves the judge.
#include "grader.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "cudalab/trace/metrics.h"
#include "cudalab_cli_config.h"
#include "process.h"

namespace cudalab::cli {
namespace {

using json = nlohmann::json;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string tail(const std::string& s, size_t max_chars) {
  if (s.size() <= max_chars) return s;
  return "[... " + std::to_string(s.size() - max_chars) + " characters cut ...]\n" +
         s.substr(s.size() - max_chars);
}

// Text from the submission, made safe to show: printable, bounded.
std::string clean(const std::string& s, size_t max_chars) {
  std::string out = utf8_text(tail(s, max_chars));
  for (char& c : out)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') || c == 0x7f) c = '?';
  return out;
}

std::string quoted_lines(const std::string& s) {
  std::string out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out += "| " + line + "\n";
  return out;
}

std::string verdict_of(const std::string& status, const std::string& ended) {
  if (status == "passed") return "passed";
  if (ended == "timeout") return "timed out";
  if (ended == "crashed") return "crashed";
  if (ended == "exited") return "ended the program early";
  if (ended == "output") return "printed too much";
  if (ended == "memory") return "ran out of memory";
  if (ended == "protocol") return "broke the grader's channel";
  if (ended == "error") return "could not be run";
  return "wrong results";
}

// A figure of a kernel's metrics by its name in `cudalab stats --json`
// ("global_loads.sectors_per_request"); false when there is no such figure.
bool metric_value(const json& kernel, const std::string& path, double* value) {
  const json* at = &kernel;
  std::istringstream parts(path);
  for (std::string part; std::getline(parts, part, '.');) {
    if (!at->is_object() || !at->contains(part)) return false;
    at = &(*at)[part];
  }
  if (!at->is_number()) return false;
  *value = at->get<double>();
  return true;
}

// A scratch folder, removed with everything in it.
struct Scratch {
  fs::path path;
  Scratch() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/cudalab-grade.XXXXXX";
    if (!mkdtemp(pattern.data()))
      throw std::runtime_error(std::string("cannot make a scratch folder: ") +
                               std::strerror(errno));
    path = pattern;
    fs::permissions(path, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// One run of a graded test: the judge against a fresh process of the program.
struct Judged {
  json result;          // the judge's result, or empty when the judge failed
  std::string problem;  // why there is no result
};

class Session {
 public:
  // `program`: the submission's program in the scratch folder.
  Session(const Lesson& lesson, const GradeOptions& o, const Sandbox& sandbox, std::string program)
      : lesson_(lesson), o_(o), sandbox_(sandbox), program_(std::move(program)) {}
  const Sandbox& sandbox() const { return sandbox_; }

  fs::path judge() const { return fs::path(CUDALAB_BIN_DIR) / (lesson_.name + "_judge"); }

  Judged run(const std::string& test, double limit, const std::vector<std::string>& env) const {
    SandboxLimits l = o_.limits;
    l.cpu_seconds = std::max(l.cpu_seconds, limit * 4);
    std::vector<std::string> cmd = {judge().string(),
                                    "--run",
                                    test,
                                    "--seed",
                                    std::to_string(o_.seed),
                                    "--limit",
                                    std::to_string(limit),
                                    "--output-limit",
                                    std::to_string(o_.output_mib),
                                    "--"};
    std::vector<std::string> passed = env;
    // The simulator's own watchdog stops a launch just before the judge's
    // deadline, and says which thread was at which line of the student's.
    if (limit > 3) passed.push_back("CUDALAB_TIMEOUT=" + std::to_string(limit - 1.5));
    for (const char* keep : {"CUDALAB_WORKERS", "CUDALAB_DEVICE"})
      if (const char* v = std::getenv(keep); v && *v) passed.push_back(std::string(keep) + "=" + v);
    for (const auto& a : sandbox_.wrap({sandbox_.inside(program_)}, passed, l)) cmd.push_back(a);
    // The judge stops the program at `limit`; this is its own backstop.
    ProcessResult p = run_process(cmd, limit * 2 + 60);
    Judged j;
    const size_t at = p.output.rfind("\n{");
    const std::string last = at == std::string::npos ? p.output : p.output.substr(at + 1);
    try {
      j.result = json::parse(last.substr(0, last.find('\n')));
      if (!j.result.is_object()) throw std::runtime_error("not an object");
    } catch (const std::exception&) {
      j.result = json();
      j.problem = "the judge did not give a result (" +
                  (p.timed_out ? std::string("it timed out")
                   : p.signal  ? "signal " + std::to_string(p.signal)
                               : "exit code " + std::to_string(p.exit_code)) +
                  "): " + tail(p.output, 2000);
    }
    return j;
  }

 private:
  const Lesson& lesson_;
  const GradeOptions& o_;
  const Sandbox& sandbox_;
  std::string program_;
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
  double next() const { return std::max(0.0, std::min(overrun_ ? pool_ : per_test_, total_)); }
  void spent(double limit, double seconds, bool timed_out) {
    const double used = std::min(seconds, limit);
    if (overrun_) pool_ -= used;
    total_ -= used;
    if (timed_out) overrun_ = true;
  }
  bool overrun() const { return overrun_; }

 private:
  double per_test_, pool_, total_;
  bool overrun_ = false;
};

// The simulator's watchdog (CUDALAB_TIMEOUT) stopped a launch: the program
// says so, with the line a thread was at. Believing it can only cost the
// submission (a timed-out test fails, and shortens the next tests' time).
bool launch_stopped(const Judged& j) {
  return j.result.is_object() &&
         j.result.value("printed", "").find("ran longer than CUDALAB_TIMEOUT=") !=
             std::string::npos;
}

bool timed_out(const Judged& j) {
  return j.result.is_object() && (j.result.value("ended", "") == "timeout" || launch_stopped(j));
}

std::string printed_of(const Judged& j) {
  return j.result.is_object() ? j.result.value("printed", "") : "";
}

void fill_from_judge(TestRecord* t, const Judged& j) {
  if (!j.result.is_object()) {
    t->status = "failed";
    t->verdict = "could not be run";
    t->output =
        "The grader could not run this test (a problem of the grading machine, not of "
        "your file): " +
        j.problem + "\n";
    return;
  }
  const std::string status = j.result.value("status", "failed");
  const std::string ended = j.result.value("ended", "");
  t->status = status == "passed" ? "passed" : "failed";
  t->score = t->status == "passed" ? t->max_score : 0;  // never more than its points
  t->verdict = verdict_of(t->status, ended);
  t->seconds = j.result.value("seconds", 0.0);
  t->output = j.result.value("output", "");
  if (t->status != "passed" && launch_stopped(j)) {
    t->verdict = "timed out";
    t->output =
        "A kernel ran until the test's time was nearly out and was stopped (a loop that "
        "never ends, or far more work than the test needs?). Where one of its threads "
        "was is in what your program printed, below.\n" +
        t->output;
  }
  std::string printed = printed_of(j);
  // The student's file by its name, not the sandbox's folder.
  for (size_t at; (at = printed.find("/submission/")) != std::string::npos;)
    printed.erase(at, std::strlen("/submission/"));
  if (!printed.empty() && t->status != "passed")
    t->output +=
        "What your program printed (lines start with |):\n" + quoted_lines(clean(printed, 3000));
}

// The findings of a CUDALAB_CHECK_JSON report; false when it is missing,
// too large or not a report (it comes from the submission's process).
bool read_findings(const fs::path& report, json* findings) {
  try {
    if (fs::file_size(report) > (16 << 20)) return false;
    *findings = json::parse(read_file(report)).at("findings");
    return findings->is_array();
  } catch (const std::exception&) {
    return false;
  }
}

// A checks rubric: passed when the rerun passed and its report lists no
// finding. The report comes from the submission's own process: a missing or
// unreadable one earns nothing.
void judge_checks(const Rubric& r, const TestRecord& rerun, const std::string& printed,
                  const fs::path& report, TestRecord* t) {
  json findings;
  if (!read_findings(report, &findings)) {
    t->verdict = rerun.status == "passed" ? "no report" : rerun.verdict;
    t->output = "Test " + r.test + " run under CUDALAB_CHECK=" + r.checks +
                " did not finish with a report of the checks (" + rerun.verdict + ").\n" +
                rerun.output;
    return;
  }
  for (const auto& f : findings) {
    if (!f.is_object() || t->findings.size() >= 20) continue;
    t->findings.push_back(clean(f.value("tool", "check") + " " + f.value("kind", "finding"), 80));
  }
  if (findings.empty() && rerun.status == "passed") {
    t->status = "passed";
    t->score = t->max_score;
    t->verdict = "passed";
    return;
  }
  t->verdict = findings.empty() ? rerun.verdict : "checks found problems";
  t->output = "Test " + r.test + " run under CUDALAB_CHECK=" + r.checks + " found " +
              std::to_string(findings.size()) + " problem" + (findings.size() == 1 ? "" : "s") +
              ". What the checks said:\n" + quoted_lines(clean(printed, 6000));
  if (!r.hint.empty()) t->output += r.hint + "\n";
}

// A metric rubric: passed when the rerun passed and the kernel's figure in
// the trace is within the rubric's bounds; otherwise the figure of each line.
void judge_metric(const Rubric& r, const TestRecord& rerun, const fs::path& trace_path,
                  TestRecord* t) {
  trace::Trace tr;
  try {
    tr = trace::read_trace(trace_path.string());
  } catch (const std::exception& e) {
    t->verdict = "no trace";
    t->output =
        std::string("The trace of the run could not be read: ") + e.what() + "\n" + rerun.output;
    return;
  }
  const json stats = stats_json(tr, trace_path.string());
  const json* kernel = nullptr;
  for (const auto& k : stats["kernels"])
    if (k["kernel"] == r.kernel) kernel = &k;
  double value = 0;
  if (!kernel) {
    t->verdict = "kernel not launched";
    t->output = "Test " + r.test + " did not launch kernel `" + r.kernel +
                "` (its launcher must launch the kernel of that name), so its " + r.metric +
                " could not be measured.\n";
    return;
  }
  if (!metric_value(*kernel, r.metric, &value)) {
    t->verdict = "could not be run";
    t->output = "The lesson's rubric names " + r.metric +
                ", which `cudalab stats --json` does not have: a mistake in lesson.json, not in "
                "your file.\n";
    return;
  }
  char figure[256];
  std::snprintf(figure, sizeof(figure), "%s of %s: %.4g (wanted %s%.4g)", r.metric.c_str(),
                r.kernel.c_str(), value, value > r.at_most ? "at most " : "at least ",
                value > r.at_most ? r.at_most : r.at_least);
  if (value >= r.at_least && value <= r.at_most && rerun.status == "passed") {
    t->status = "passed";
    t->score = t->max_score;
    t->verdict = "passed";
    t->output = std::string("measured ") + figure + "\n";
    return;
  }
  t->verdict = "metric out of bounds";
  t->output = std::string("Measured in a trace of test ") + r.test + ": " + figure + ".\n";
  // The kernel's lines, so the student sees which access it is.
  const std::string group = r.metric.substr(0, r.metric.find('.'));
  for (const auto& line : (*kernel)["lines"]) {
    double v = 0;
    if (line.contains(group) && metric_value(line, r.metric, &v) &&
        line[group].value("requests", 1.0) > 0)
      t->output += "  " + line["where"].get<std::string>() + ": " + std::to_string(v) + "\n";
  }
  if (!r.hint.empty()) t->output += r.hint + "\n";
}

// What a student reads of a path: their file's name, not the sandbox's
// folder ("/submission/mine.cu:28" -> "mine.cu:28").
std::string student_paths(std::string s, const fs::path& scratch) {
  for (const std::string& dir : {std::string("/submission/"), scratch.string() + "/"})
    for (size_t at; (at = s.find(dir)) != std::string::npos;) s.erase(at, dir.size());
  return s;
}

std::string triple(const json& v) {
  if (!v.is_array() || v.size() != 3) return "?";
  return "(" + v[0].dump() + "," + v[1].dump() + "," + v[2].dump() + ")";
}

// Whether a failed test is worth running again under the checks: it ran to
// an end (a timeout would only time out again).
bool worth_diagnosing(const TestRecord& t) {
  return t.kind == "test" && t.visibility == "visible" && t.status != "passed" &&
         (t.verdict == "wrong results" || t.verdict == "crashed" ||
          t.verdict == "ended the program early");
}

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
  return read_findings(sandbox.scratch() / name, findings);
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
  for (const auto& f : findings) {
    if (!f.is_object() || f.value("tool", "") != "racecheck" ||
        f.value("space", "") != "__global__")
      continue;
    if (t->findings.size() < 20) t->findings.push_back("racecheck " + f.value("kind", "race"));
    lines += "  " + student_paths(f.value("where", "?"), sandbox.scratch()) + " against " +
             student_paths(f.value("where_other", "?"), sandbox.scratch()) + ": " +
             f.value("kind", "race") + "\n";
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
  t->output = lead + " racecheck found (at your lines):\n" + clean(lines, 2000) + fix;
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
    t->output = "The simulator's checks (" + checks +
                ") found no bad memory access and no barrier or race problem when this test "
                "ran again: the mistake is in what the kernel computes (its indices or its "
                "arithmetic).\n" +
                verdict;
    return 0;
  }
  std::string said = "The simulator's checks found " + std::to_string(findings.size()) +
                     (findings.size() == 1 ? " problem" : " problems") +
                     " when this test ran again under them (" + checks + "):\n";
  // A race across loop iterations first: it explains the races beside it.
  std::stable_sort(findings.begin(), findings.end(), [](const json& a, const json& b) {
    auto across = [](const json& f) {
      return f.is_object() &&
             f.value("advice", "").find("iterations of a loop") != std::string::npos;
    };
    return across(a) && !across(b);
  });
  size_t shown = 0;
  for (const auto& f : findings) {
    if (!f.is_object()) continue;
    const std::string tool = f.value("tool", "check"), kind = f.value("kind", "finding");
    if (t->findings.size() < 20) t->findings.push_back(clean(tool + " " + kind, 80));
    if (shown++ >= 6) continue;
    std::string line = "  " + student_paths(f.value("where", "(unknown line)"), sandbox.scratch()) +
                       ": " + tool + ", " + kind;
    if (f.contains("thread")) line += ", thread " + triple(f["thread"]);
    if (f.contains("block"))
      line += (f.contains("thread") ? " of block " : ", block ") + triple(f["block"]);
    if (f.contains("where_other"))
      line += ", against " + student_paths(f.value("where_other", "?"), sandbox.scratch());
    said += clean(line, 400) + "\n";
    if (const std::string m = f.value("message", ""); !m.empty())
      said += "    " + clean(student_paths(m, sandbox.scratch()), 600) + "\n";
    if (const std::string a = f.value("advice", ""); !a.empty())
      said += "    " + clean(student_paths(a, sandbox.scratch()), 600) + "\n";
  }
  if (shown > 6) said += "  ... and " + std::to_string(shown - 6) + " more\n";
  said += "The test's own verdict, from the first run:\n";
  t->output = said + t->output;
  return int(findings.size());
}

// A picture of the first visible test that failed once it had run to its
// end (else of the test under the first method rubric that failed): the
// test again with its memory accesses traced, drawn by cudalab-viz under
// Xvfb. Both run in the sandbox (the trace is the submission's own file);
// the rerun gets what is left of the submission's time, so a picture never
// lets a submission run longer in all. Returns why there is none, or "" with
// rec->picture_test set (the test or rubric the picture goes with).
std::string take_picture(const Lesson& lesson, const Session& session, const GradeOptions& o,
                         TimeBudget* budget, GradeRecord* rec) {
  const Sandbox& sandbox = session.sandbox();
  std::string shown, run;  // the record's test the picture goes with, the test to run
  for (const auto& t : rec->tests)
    if (shown.empty() && t.kind == "test" && t.visibility == "visible" && t.status != "passed" &&
        (t.verdict == "wrong results" || t.verdict == "crashed"))
      shown = run = t.name;
  for (const auto& t : rec->tests)
    for (const Rubric& r : lesson.rubrics)
      if (shown.empty() && t.kind == "rubric" && t.name == r.name && t.status != "passed" &&
          (t.verdict == "checks found problems" || t.verdict == "metric out of bounds"))
        shown = t.name, run = r.test;
  if (shown.empty()) return "no visible test or rubric failed in a way a picture shows";
  if (!fs::exists(CUDALAB_VIZ_PATH))
    return "cudalab-viz is not built (cmake --build --preset default --target cudalab-viz)";
  if (find_program("xvfb-run").empty()) return "xvfb-run is not installed (apt-get install xvfb)";
  const double limit = std::min(budget->next(), o.test_seconds);
  if (limit < 0.5) return "the submission's time ran out before the picture";
  const fs::path trace = sandbox.scratch() / "picture.trace";
  const fs::path png = sandbox.scratch() / "picture.png";
  std::error_code ec;
  fs::remove(trace, ec);
  fs::remove(png, ec);
  const Judged j = session.run(run, limit, {"CUDALAB_TRACE=" + sandbox.inside("picture.trace")});
  TestRecord rerun;
  fill_from_judge(&rerun, j);
  budget->spent(limit, rerun.seconds, timed_out(j));
  if (!fs::is_regular_file(trace) || fs::file_size(trace, ec) == 0)
    return "test " + run + " left no trace when run again (" + rerun.verdict + ")";
  if (fs::file_size(trace, ec) > (64u << 20)) return "the trace is larger than 64 MiB";
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
  const ProcessResult r = run_process(drawing.wrap(draw, {}, l), 60);
  if (r.exit_code != 0 || !fs::is_regular_file(png))
    return "cudalab-viz could not draw the trace: " + tail(r.output, 300);
  fs::copy_file(png, o.picture_path, fs::copy_options::overwrite_existing, ec);
  if (ec) return "cannot write " + o.picture_path.string() + ": " + ec.message();
  rec->picture_test = shown;
  return "";
}

// Where the compiled main of a lesson's programs is kept: every submission
// of a lesson links the same one, so it is compiled once (outside the
// sandbox: it is the course's code, not the student's).
fs::path main_cache_root() { return fs::path(CUDALAB_BIN_DIR).parent_path() / "grade-cache"; }

// The object (and its instrumented twin, `.instrumented` beside it) of the
// main that serves the judge `calls`; "" when it cannot be made (the
// caller then compiles the main with the student's file).
fs::path cached_main_object(const Lesson& lesson, const std::string& main_text) {
  const std::string key = build_key({main_text, lesson_headers_text(lesson)});
  const fs::path dir = main_cache_root() / (lesson.name + "-" + key);
  const fs::path object = dir / "main.o";
  if (fs::exists(object) && fs::exists(object.string() + ".instrumented")) return object;
  std::error_code ec;
  fs::create_directories(main_cache_root(), ec);
  std::string pattern = (main_cache_root() / ("new." + lesson.name + ".XXXXXX")).string();
  if (ec || !mkdtemp(pattern.data())) return "";
  const fs::path fresh = pattern;
  std::ofstream(fresh / "main.cu") << main_text;
  const ProcessResult r = run_process(
      {CUDALAB_CC_PATH, "-c", "-O2", "-I" + lesson.dir.string(), "-I" CUDALAB_FRAMEWORK_INCLUDE_DIR,
       (fresh / "main.cu").string(), "-o", (fresh / "main.o").string()},
      120);
  // Readable by the sandbox's user; the first of two gradings to finish wins.
  fs::permissions(fresh,
                  fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                      fs::perms::others_read | fs::perms::others_exec,
                  ec);
  if (r.exit_code != 0 || !fs::exists(fresh / "main.o.instrumented") ||
      (rename(fresh.c_str(), dir.c_str()) != 0 && !fs::exists(object))) {
    fs::remove_all(fresh, ec);
    return fs::exists(object) ? object : fs::path();
  }
  fs::remove_all(fresh, ec);  // left when another grading's was first
  return fs::exists(object) ? object : fs::path();
}

}  // namespace

std::string build_key(const std::vector<std::string>& sources) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  };
  for (const auto& s : sources) mix(s);
  for (const char* tool : {CUDALAB_CC_PATH, CUDALAB_FRAMEWORK_LIBRARY, CUDALAB_SIM_LIBRARY}) {
    struct stat st {};
    stat(tool, &st);
    mix(std::string(tool) + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtime));
  }
  char key[17];
  std::snprintf(key, sizeof(key), "%016llx", static_cast<unsigned long long>(h));
  return key;
}

uint64_t random_seed() {
  std::random_device rd;
  return (uint64_t(rd()) << 32) ^ rd();
}

std::string student_output(const TestRecord& t) {
  if (t.visibility == "hidden")
    return t.status == "passed" ? "" : "Hidden test: " + t.verdict + ".\n";
  return t.output;
}

GradeRecord grade_submission(const Lesson& lesson, const fs::path& file, const GradeOptions& o,
                             const TestDone& done) {
  const double started = now_s();
  GradeRecord rec;
  rec.lesson = lesson.name;
  rec.file = file.string();
  rec.seed = o.seed;
  rec.sandbox = o.confined ? "bubblewrap" : "unconfined";
  auto finish = [&]() -> GradeRecord {
    rec.score = rec.max_score = 0;
    for (const auto& t : rec.tests) {
      rec.score += t.score;
      if (!t.extra_credit) rec.max_score += t.max_score;
    }
    rec.seconds = now_s() - started;
    return rec;
  };
  Scratch scratch;
  // What a build sees (on a GPU also the simulator's, for the rubrics).
  std::vector<std::string> toolchain = {CUDALAB_CC_PATH, CUDALAB_SIM_INCLUDE_DIR,
                                        CUDALAB_SIM_LIBRARY, CUDALAB_FRAMEWORK_INCLUDE_DIR,
                                        CUDALAB_FRAMEWORK_LIBRARY};
  if (o.gpu) toolchain.push_back(CUDALAB_FRAMEWORK_GPU_LIBRARY);
  {
    std::error_code ec;
    fs::create_directories(main_cache_root(), ec);
    if (!ec) toolchain.push_back(main_cache_root().string());
  }
  const std::vector<std::string> out_of_sight = {lessons_root().string(), CUDALAB_BIN_DIR};
  const Sandbox sandbox(scratch.path, toolchain, out_of_sight, o.confined, o.gpu, o.sandbox_uid);
  // Where the simulator's build runs: the same, without the GPU.
  const Sandbox simulated(scratch.path, toolchain, out_of_sight, o.confined, false, o.sandbox_uid);

  // The student's file, and what it may include from the lesson: lesson.h.
  std::string source_name = file.filename().string();
  try {
    if (!fs::is_regular_file(file)) throw std::runtime_error("not a file");
    if (fs::file_size(file) > (1 << 20)) throw std::runtime_error("larger than 1 MiB");
    std::string text = read_file(file);
    if (file.extension() == ".diff") {
      text = apply_to_solution(read_file(lesson.dir / lesson.solution_file), text);
      source_name = file.stem().string() + ".cu";
    }
    if (source_name == "cudalab_main.cu" || source_name == "lesson.h") source_name = "student.cu";
    std::ofstream(scratch.path / source_name) << text;
    fs::copy_file(lesson.dir / "lesson.h", scratch.path / "lesson.h");
  } catch (const std::exception& e) {
    rec.status = "error";
    rec.error = file.string() + ": " + e.what();
    return finish();
  }

  // The tests, and the functions of the student's file they call.
  // The graded tests run the program built for where the grading is (GPU or
  // simulator); the method rubrics and the picture need the simulator's.
  const Session session(lesson, o, sandbox, "program");
  const Session on_simulator(lesson, o, simulated, o.gpu ? "program_sim" : "program.instrumented");
  if (!fs::exists(session.judge())) {
    rec.status = "error";
    rec.error = "the judge " + session.judge().string() +
                " is missing: build it with cmake --build --preset default";
    return finish();
  }
  ProcessResult list = run_process({session.judge().string(), "--list"}, 60);
  std::vector<std::string> calls;
  {
    std::istringstream in(list.output);
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] != '{') continue;
      try {
        json j = json::parse(line);
        if (j.contains("calls")) {
          calls = j["calls"].get<std::vector<std::string>>();
          continue;
        }
        TestRecord t;
        t.name = j.at("name").get<std::string>();
        t.description = j.value("description", "");
        t.visibility = j.value("visibility", "visible");
        t.max_score = j.at("points").get<double>();
        t.extra_credit = j.value("extra_credit", false);
        rec.tests.push_back(t);
      } catch (const std::exception&) {
      }
    }
  }
  if (list.exit_code != 0 || rec.tests.empty() || calls.empty()) {
    rec.status = "error";
    rec.error = "the judge " + session.judge().string() +
                " did not list its tests: " + tail(list.output, 2000);
    return finish();
  }
  for (const Rubric& r : lesson.rubrics) {
    if (std::none_of(rec.tests.begin(), rec.tests.end(),
                     [&](const TestRecord& t) { return t.name == r.test; })) {
      rec.status = "error";
      rec.error = "lesson " + lesson.name + ": rubric " + r.name + " names test " + r.test +
                  ", which the judge does not have";
      return finish();
    }
    if (!o.rubrics) continue;
    TestRecord t;
    t.name = r.name;
    t.description = r.description;
    t.kind = "rubric";
    t.max_score = r.points;
    rec.tests.push_back(t);
  }

  for (const std::string& name : lesson.race_checked)
    if (std::none_of(rec.tests.begin(), rec.tests.end(),
                     [&](const TestRecord& t) { return t.name == name && t.kind != "rubric"; })) {
      rec.status = "error";
      rec.error = "lesson " + lesson.name + ": race_checked names test " + name +
                  ", which the judge does not have";
      return finish();
    }

  // The program: the student's file and a main that serves the judge.
  std::string main_text =
      "// Made by cudalab: the judge calls these functions of the student's file.\n"
      "#include \"cudalab/grading.h\"\n#include \"cudalab/submission.h\"\n#include "
      "\"lesson.h\"\n";
  for (const auto& c : calls) main_text += "CUDALAB_SERVE(" + c + ")\n";
  main_text += "int main() { return cudalab::grading::serve_judge(); }\n";
  std::ofstream(scratch.path / "cudalab_main.cu") << main_text;
  // On the simulator, the main compiled once per lesson; the student's file
  // is then the only compile, plain and instrumented side by side.
  const fs::path main_object = o.gpu ? fs::path() : cached_main_object(lesson, main_text);
  sandbox.hand_over();
  // One build of the program, in the sandbox: by nvcc for the GPU or by
  // cudalab-cc for the simulator.
  auto build = [&](bool gpu, const std::string& program) {
    std::vector<std::string> cmd;
    if (gpu)
      cmd = {find_program("nvcc", {"/usr/local/cuda/bin"}),
             "-O2",
             "-std=c++17",
             "-arch=native",
             "-I/submission",
             "-I" CUDALAB_FRAMEWORK_INCLUDE_DIR};
    else if (o.gpu)  // the simulator's build beside nvcc's: for the rubrics alone
      cmd = {CUDALAB_CC_PATH, "--instrumented", "-O2", "-I/submission",
             "-I" CUDALAB_FRAMEWORK_INCLUDE_DIR};
    else  // the plain program for the tests, its instrumented twin for the rest
      cmd = {CUDALAB_CC_PATH, "-O2", "-I/submission", "-I" CUDALAB_FRAMEWORK_INCLUDE_DIR};
    if (!gpu && !main_object.empty())
      cmd.push_back(main_object.string());
    else
      cmd.push_back(sandbox.inside("cudalab_main.cu"));
    cmd.push_back(sandbox.inside(source_name));
    cmd.push_back(gpu ? CUDALAB_FRAMEWORK_GPU_LIBRARY : CUDALAB_FRAMEWORK_LIBRARY);
    cmd.insert(cmd.end(), {"-o", sandbox.inside(program)});
    SandboxLimits limits = o.limits;
    limits.cpu_seconds = o.build_seconds;
    const Sandbox& where = gpu ? sandbox : simulated;
    ProcessResult b = run_process(where.wrap(cmd, {}, limits), o.build_seconds + 10, 64 << 10);
    if (b.exit_code != 0 && b.output.rfind("bwrap: ", 0) == 0) {
      // The sandbox itself did not start (the machine, not the file): once more.
      sleep(1);
      b = run_process(where.wrap(cmd, {}, limits), o.build_seconds + 10, 64 << 10);
    }
    return b;
  };
  // What the compiler said, for the student.
  auto compiler_said = [&](const ProcessResult& b) {
    std::string said = clean(b.output, 8000);
    if (b.timed_out)
      said += "\n(the compiler ran for more than " + std::to_string(int(o.build_seconds)) +
              " seconds and was stopped: very deep templates or constexpr loops?)\n";
    else if (b.signal || b.exit_code > 128)
      said += "\n(the compiler was stopped: it used more than its " +
              std::to_string(o.limits.memory_mib) + " MiB of memory or its time)\n";
    return said;
  };
  if (o.gpu && find_program("nvcc", {"/usr/local/cuda/bin"}).empty()) {
    rec.status = "error";
    rec.error = "--gpu needs nvcc, which is on neither PATH nor /usr/local/cuda/bin";
    return finish();
  }
  // Whether a build failed for the machine's sake, not the file's: the
  // sandbox or the compiler itself could not start.
  auto machine_problem = [&](const ProcessResult& b) -> std::string {
    if (b.exit_code == 0) return "";
    if (b.output.rfind("bwrap: ", 0) == 0)
      return "the sandbox could not start: " + tail(b.output, 500);
    if (const size_t at = b.output.find("cudalab-cc: cannot run "); at != std::string::npos)
      return "the simulator's compiler cannot run on this machine (" +
             b.output.substr(at, b.output.find('\n', at) - at) + "): install it (./setup.sh does)" +
             (o.gpu ? std::string(", or grade on the GPU without the method rubrics, which "
                                  "need it (--no-rubrics)")
                    : std::string());
    return "";
  };
  const ProcessResult b = build(o.gpu, "program");
  if (const std::string why = machine_problem(b); !why.empty()) {
    rec.status = "error";
    rec.error = why;
    return finish();
  }
  if (b.exit_code != 0 || b.timed_out || !fs::exists(scratch.path / "program") ||
      (!o.gpu && !fs::exists(scratch.path / "program.instrumented"))) {
    rec.status = "did_not_compile";
    rec.compiler_output = compiler_said(b);
    for (auto& t : rec.tests) {
      t.verdict = "did not compile";
      t.output = "Your file did not compile.\n";
      if (done) done(t);
    }
    return finish();
  }
  // On a GPU, the simulator's build too, for the rubrics and the picture.
  std::string no_simulator;  // why there is none
  if (o.gpu && ((o.rubrics && !lesson.rubrics.empty()) || !o.picture_path.empty() || o.diagnose)) {
    const ProcessResult sb = build(false, "program_sim");
    if (const std::string why = machine_problem(sb); !why.empty()) {
      rec.status = "error";
      rec.error = why;
      return finish();
    }
    if (sb.exit_code != 0 || sb.timed_out || !fs::exists(scratch.path / "program_sim"))
      no_simulator =
          "Your file builds with nvcc but not for the simulator, whose checks and "
          "traces this needs. The simulator's compiler said:\n" +
          compiler_said(sb);
  }

  // The graded tests, each against a fresh process of the program.
  TimeBudget budget(o.test_seconds);
  bool diagnosis_ran = false;
  std::string diagnosed;  // the test whose rerun under the checks found problems
  for (auto& t : rec.tests) {
    if (t.kind != "test") continue;
    const double limit = budget.next();
    if (limit < 0.5) {
      t.verdict = "not run";
      t.output =
          "Not run: the submission's time ran out (all its tests together get twice "
          "the per-test limit, and one that never ends gets one limit in all, not one "
          "per test).\n";
    } else {
      const Judged j = session.run(t.name, limit, {});
      fill_from_judge(&t, j);
      budget.spent(limit, t.seconds, timed_out(j));
      if (limit < o.test_seconds && t.verdict == "timed out")
        t.output += "(This test had only " + std::to_string(int(limit + 0.5)) +
                    (limit < 1.5 ? " second" : " seconds") + ": an earlier test never ended.)\n";
      std::string lost_updates;
      if (t.status == "passed" && no_simulator.empty() &&
          std::find(lesson.race_checked.begin(), lesson.race_checked.end(), t.name) !=
              lesson.race_checked.end())
        lost_updates = check_for_lost_updates(on_simulator, o, &budget, &t);
      // The first visible test that fails runs again under the checks; the
      // others say where to look.
      if (o.diagnose && no_simulator.empty() && worth_diagnosing(t)) {
        if (!diagnosis_ran) {
          diagnosis_ran = true;  // once: the next failing test has the same cause, mostly
          const std::string listed = t.output;
          if (!lost_updates.empty()) t.output = lost_updates;  // the checks list the lines
          if (diagnose(on_simulator, o, &budget, &t) > 0)
            diagnosed = t.name;
          else if (!lost_updates.empty())
            t.output = listed;
        } else if (!diagnosed.empty()) {
          t.output = "(The simulator's checks found problems in test " + diagnosed +
                     ": they are listed there.)\n" + t.output;
        }
      }
    }
    if (done) done(t);
  }

  // The method rubrics: a passing test again, under the checks or traced.
  for (auto& t : rec.tests) {
    if (t.kind != "rubric") continue;
    const Rubric& r = *std::find_if(lesson.rubrics.begin(), lesson.rubrics.end(),
                                    [&](const Rubric& x) { return x.name == t.name; });
    const TestRecord& plain = *std::find_if(rec.tests.begin(), rec.tests.end(),
                                            [&](const TestRecord& x) { return x.name == r.test; });
    const double limit = budget.next();
    if (plain.status != "passed") {
      t.verdict = "needs " + r.test;
      t.output = "This rubric looks at how test " + r.test +
                 " computes its result; that test must pass first.\n";
    } else if (limit < 0.5) {
      t.verdict = "not run";
      t.output = "Not run: an earlier test never ended.\n";
    } else if (!no_simulator.empty()) {
      t.verdict = "could not be run";
      t.output = no_simulator;
    } else {
      // A rerun under the checks (their findings in a report) or traced, on
      // the simulator.
      const std::string report = r.name + (r.checks.empty() ? ".trace" : ".findings.json");
      std::error_code ec;
      fs::remove(scratch.path / report, ec);
      const Judged j = on_simulator.run(
          r.test, limit,
          r.checks.empty()
              ? std::vector<std::string>{"CUDALAB_TRACE=" + sandbox.inside(report)}
              : std::vector<std::string>{"CUDALAB_CHECK=" + r.checks,
                                         "CUDALAB_CHECK_JSON=" + sandbox.inside(report)});
      TestRecord rerun = t;
      fill_from_judge(&rerun, j);
      budget.spent(limit, rerun.seconds, timed_out(j));
      t.seconds = rerun.seconds;
      if (r.checks.empty())
        judge_metric(r, rerun, scratch.path / report, &t);
      else
        judge_checks(r, rerun, printed_of(j), scratch.path / report, &t);
    }
    if (done) done(t);
  }
  if (!o.picture_path.empty())
    rec.picture_note = no_simulator.empty() ? take_picture(lesson, on_simulator, o, &budget, &rec)
                                            : "the file does not build for the simulator";
  return finish();
}

// Every field, with its default when a record lacks it.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TestRecord, name, description, visibility, kind,
                                                status, verdict, output, findings, score, max_score,
                                                seconds, extra_credit)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GradeRecord, lesson, file, status, compiler_output,
                                                error, tests, score, max_score, seconds, seed,
                                                sandbox, picture_test, picture_note)

json record_json(const GradeRecord& r) { return utf8_json(r); }

GradeRecord record_from_json(const json& j) { return j.get<GradeRecord>(); }

}  // namespace cudalab::cli
