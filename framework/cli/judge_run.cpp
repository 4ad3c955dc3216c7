// One graded test: the lesson's judge against a fresh process of the
// submission's program in its sandbox, within the submission's time budget,
// and the test's record made from what the judge said.
#include <algorithm>
#include <cstring>
#include <random>

#include "cudalab/support/files.h"
#include "cudalab/support/process.h"
#include "cudalab_cli_config.h"
#include "one_submission_steps.h"

namespace cudalab::cli {

using json = nlohmann::json;

namespace {

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

}  // namespace

// The simulator's watchdog stopped a launch before the judge's deadline: the
// program says so, with the line a thread was at. Believing it can only cost
// the submission (a timed-out test fails, and shortens the next tests' time).
bool launch_stopped(const Judged& j) {
  return j.result.is_object() &&
         j.result.value("printed", "").find("ran until the test's time was nearly out") !=
             std::string::npos;
}

Session::Session(const Lesson& lesson, const GradeOptions& o, const Sandbox& sandbox,
                 std::string program, const Session* same_program)
    : lesson_(lesson),
      o_(o),
      sandbox_(sandbox),
      program_(std::move(program)),
      ends_(same_program ? same_program->ends_ : std::make_shared<Ends>()) {
  std::random_device random;
  for (auto& byte : key_) byte = uint8_t(random());
}

const char* const kDidNotEnd =
    "Your program did not end after it answered: it was stopped. Something in it never "
    "finishes once its work is done (an exit handler, a destructor or a thread still "
    "running?). Later tests wait only briefly for it to end.\n";

// The seconds that all the runs after a program did not end share to wait
// for theirs (at most a second each, at least a tenth once they are spent):
// the file's hang costs one limit and these, not a limit or a second per run.
constexpr double kLaterExitSeconds = 2.0;

fs::path Session::judge() const {
  return o_.judge.empty() ? fs::path(CUDALAB_BIN_DIR) / (lesson_.name + "_judge") : o_.judge;
}

Judged Session::run(const std::string& test, double limit, const std::vector<std::string>& env,
                    bool compared) const {
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
                                  std::to_string(o_.output_mib)};
  if (compared) cmd.push_back("--compared");
  // One program that does not end after answering costs one limit, not one
  // per test: later tests share kLaterExitSeconds to wait for theirs.
  if (ends_->did_not_end)
    cmd.insert(cmd.end(),
               {"--exit-limit", std::to_string(std::clamp(ends_->later_left, 0.1, 1.0))});
  cmd.push_back("--");
  // (The judge sends the program the test's deadline with each call,
  // judge_side.cpp: the simulator stops a launch a little before it.)
  std::vector<std::string> passed = env;
  // One worker: the blocks of a launch run one after the other, in order, so
  // a result that depends on a race (between blocks, warps or threads) is
  // the same on every run, with any -j and on any machine. A grade depends
  // on the file only.
  passed.push_back("CUDALAB_WORKERS=1");
  // The key the program's runtime signs its report of the checks with (it
  // takes it out of the environment before any of the student's code runs).
  passed.push_back("CUDALAB_REPORT_KEY=" + trace::report_key_text(key_));
  if (const char* v = std::getenv("CUDALAB_DEVICE"); v && *v)
    passed.push_back(std::string("CUDALAB_DEVICE=") + v);
  for (const auto& a : sandbox_.wrap({sandbox_.inside(program_)}, passed, l)) cmd.push_back(a);
  // The judge stops the program at `limit`; this is its own backstop.
  // (with the comparisons, up to 64K wrong elements of each, as text)
  support::ProcessResult p =
      support::run_process(cmd, limit * 2 + 60, compared ? size_t(64) << 20 : size_t(1) << 20);
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
                "): " + last_chars(p.output, 2000);
  }
  if (j.result.is_object()) {
    const double waited = j.result.value("exit_seconds", 0.0);
    if (ends_->did_not_end) {
      ends_->later_left -= waited;
      if (!j.result.value("exited", true)) ends_->seconds += waited;
    } else if (!j.result.value("exited", true)) {
      ends_->did_not_end = true;
      ends_->seconds += waited;
      ends_->later_left = kLaterExitSeconds;
    }
  }
  return j;
}

double TimeBudget::next() const {
  return std::max(0.0, std::min(overrun_ ? pool_ : per_test_, total_));
}

void TimeBudget::spent(double limit, double seconds, bool timed_out) {
  const double used = std::min(seconds, limit);
  if (overrun_) pool_ -= used;
  total_ -= used;
  if (timed_out) overrun_ = true;
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
  if (!j.result.value("exited", true)) t->output += kDidNotEnd;
  std::string printed = printed_of(j);
  // The student's file by its name, not the sandbox's folder.
  for (size_t at; (at = printed.find("/submission/")) != std::string::npos;)
    printed.erase(at, std::strlen("/submission/"));
  if (!printed.empty() && t->status != "passed")
    t->output += "What your program printed (lines start with |):\n" +
                 quoted_lines(safe_text(printed, 3000));
}

}  // namespace cudalab::cli
