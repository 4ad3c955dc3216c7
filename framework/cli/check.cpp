// cudalab check: builds a submission with the lesson's grader (cudalab-cc,
// instrumented, so that a wrong element can name the thread that wrote it),
// then runs each graded test in its own process with a time limit: a crash
// or a hang costs that test's points, never the others'.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli.h"
#include "cudalab_cli_config.h"
#include "metrics.h"

namespace cudalab::cli {
namespace {

using json = nlohmann::json;

struct ProcessResult {
  int exit_code = -1;
  int signal = 0;
  bool timed_out = false;
  std::string output;  // stdout and stderr together
};

// Runs argv with a wall-clock limit, its output going to `log`.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s,
                          const fs::path& log, const std::vector<std::string>& env = {}) {
  ProcessResult r;
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    for (const auto& e : env) putenv(const_cast<char*>(e.c_str()));
    FILE* f = std::fopen(log.c_str(), "w");
    if (f) {
      dup2(fileno(f), 1);
      dup2(fileno(f), 2);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  while (true) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (timeout_s > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
            timeout_s) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.output = read_file(log);
  return r;
}

std::string tail(const std::string& s, size_t max_chars) {
  if (s.size() <= max_chars) return s;
  return "[... " + std::to_string(s.size() - max_chars) + " characters cut ...]\n" +
         s.substr(s.size() - max_chars);
}

std::string indent(const std::string& s) {
  std::string out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out += "    " + line + "\n";
  return out;
}

struct TestOutcome {
  std::string name, description, visibility, status, output;
  std::string printed;  // what the grader printed
  double score = 0, max_score = 0;
};

void write_gradescope(const fs::path& path, const std::vector<TestOutcome>& tests, double seconds,
                      const std::string& summary) {
  json j;
  double score = 0;
  j["tests"] = json::array();
  for (const auto& t : tests) {
    score += t.score;
    j["tests"].push_back({{"name", t.name + ": " + t.description},
                          {"score", t.score},
                          {"max_score", t.max_score},
                          {"status", t.status},
                          {"output", t.output},
                          {"output_format", "text"},
                          {"visibility", t.visibility == "hidden" ? "after_due_date" : "visible"}});
  }
  j["score"] = score;
  j["execution_time"] = seconds;
  j["output"] = summary;
  const fs::path tmp = path.string() + ".partial";
  std::ofstream(tmp) << j.dump(2) << "\n";
  fs::rename(tmp, path);
}

// One test's run: its outcome from the result file, or what went wrong.
TestOutcome run_test(const fs::path& work, const std::string& name, double timeout_s,
                     const std::vector<std::string>& env, const std::string& tag) {
  TestOutcome o;
  const fs::path result = work / (name + tag + ".json");
  ProcessResult r =
      run_process({(work / "grader").string(), "--run", name, "--result", result.string()},
                  timeout_s, work / (name + tag + ".log"), env);
  o.status = "failed";
  if (r.timed_out) {
    o.output = "The test ran for more than " + std::to_string(int(timeout_s)) +
               " seconds and was stopped. A kernel that never ends usually has a loop whose "
               "index does not advance (a grid-stride loop must add the stride).\n";
  } else if (r.exit_code == 0 && fs::exists(result)) {
    try {
      json j = json::parse(read_file(result));
      o.status = j.at("status").get<std::string>();
      o.score = j.at("score").get<double>();
      o.output = j.value("output", "");
    } catch (const std::exception& e) {
      o.output = std::string("The test's result could not be read: ") + e.what() + "\n";
    }
  } else {
    o.output = r.signal ? "The program crashed (signal " + std::to_string(r.signal) + ", " +
                              strsignal(r.signal) + ").\n"
                        : "The program ended with exit code " + std::to_string(r.exit_code) +
                              " before the test finished.\n";
  }
  o.printed = r.output;
  return o;
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

// A method rubric: the test it names must pass, and then pass again under
// the simulator's checks ("checks") or with its kernel's metric within
// bounds ("metric", read from a trace of the run).
TestOutcome run_rubric(const fs::path& work, const Rubric& rubric, const TestOutcome& plain,
                       double timeout_s) {
  TestOutcome o;
  o.name = rubric.name;
  o.description = rubric.description;
  o.visibility = "visible";
  o.max_score = rubric.points;
  o.status = "failed";
  if (plain.status != "passed") {
    o.output = "This rubric looks at how test " + rubric.test +
               " computes its result; that test must pass first.\n";
    return o;
  }
  if (!rubric.checks.empty()) {
    const fs::path report = work / (rubric.name + ".findings.json");
    TestOutcome r =
        run_test(work, rubric.test, timeout_s * 10,
                 {"CUDALAB_CHECK=" + rubric.checks, "CUDALAB_CHECK_JSON=" + report.string()},
                 "." + rubric.name);
    size_t findings = 0;
    try {
      const json j = json::parse(read_file(report));
      findings = j.contains("findings") ? j["findings"].size() : 0;
    } catch (const std::exception&) {
      o.output = "The checks did not finish (" + r.status + "): " + tail(r.output, 2000) +
                 tail(r.printed, 4000);
      return o;
    }
    if (findings == 0 && r.status == "passed") {
      o.status = "passed";
      o.score = o.max_score;
      return o;
    }
    o.output = "Test " + rubric.test + " run under CUDALAB_CHECK=" + rubric.checks + " found " +
               std::to_string(findings) + " problem" + (findings == 1 ? "" : "s") +
               ". What the checks said:\n" + tail(r.printed, 6000);
    if (!rubric.hint.empty()) o.output += "\n" + rubric.hint + "\n";
    return o;
  }
  const fs::path trace_path = work / (rubric.name + ".trace");
  TestOutcome r = run_test(work, rubric.test, timeout_s * 10,
                           {"CUDALAB_TRACE=" + trace_path.string()}, "." + rubric.name);
  trace::Trace t;
  try {
    t = trace::read_trace(trace_path.string());
  } catch (const std::exception& e) {
    o.output = std::string("The trace of the run could not be read: ") + e.what() + "\n" +
               tail(r.printed, 3000);
    return o;
  }
  const json stats = stats_json(t, trace_path.string());
  const json* kernel = nullptr;
  for (const auto& k : stats["kernels"])
    if (k["kernel"] == rubric.kernel) kernel = &k;
  double value = 0;
  if (!kernel) {
    o.output = "Test " + rubric.test + " did not launch kernel `" + rubric.kernel +
               "` (its launcher must launch the kernel of that name), so its " + rubric.metric +
               " could not be measured.\n";
    return o;
  }
  if (!metric_value(*kernel, rubric.metric, &value)) {
    o.output = "The lesson's rubric names " + rubric.metric +
               ", which `cudalab stats --json` does not have: a mistake in lesson.json, not in "
               "your file.\n";
    return o;
  }
  const bool ok = value >= rubric.at_least && value <= rubric.at_most;
  char figure[256];
  std::snprintf(figure, sizeof(figure), "%s of %s: %.4g (wanted %s%.4g)", rubric.metric.c_str(),
                rubric.kernel.c_str(), value, value > rubric.at_most ? "at most " : "at least ",
                value > rubric.at_most ? rubric.at_most : rubric.at_least);
  if (ok) {
    o.status = "passed";
    o.score = o.max_score;
    o.output = std::string("measured ") + figure + "\n";
    return o;
  }
  o.output = std::string("Measured in a trace of test ") + rubric.test + ": " + figure + ".\n";
  // The lines of that kernel, so the student sees which access it is.
  const std::string group = rubric.metric.substr(0, rubric.metric.find('.'));
  for (const auto& line : (*kernel)["lines"]) {
    double v = 0;
    if (line.contains(group) && metric_value(line, rubric.metric, &v) &&
        line[group].value("requests", 1.0) > 0)
      o.output += "  " + line["where"].get<std::string>() + ": " + std::to_string(v) + "\n";
  }
  if (!rubric.hint.empty()) o.output += rubric.hint + "\n";
  return o;
}

void print_outcome(const TestOutcome& o, bool verbose) {
  std::printf("  %-4s %4.1f/%-4.1f %s: %s\n", o.status == "passed" ? "pass" : "FAIL", o.score,
              o.max_score, o.name.c_str(), o.description.c_str());
  if (!o.output.empty() && (o.status != "passed" || verbose)) std::cout << indent(o.output);
  std::cout << std::flush;
}

// "none", "all" or names with commas -> whether the failed set is that.
bool failed_as_expected(const std::string& expected, const std::vector<TestOutcome>& outcomes,
                        std::string* failed_list) {
  std::vector<std::string> failed, all;
  for (const auto& o : outcomes) {
    all.push_back(o.name);
    if (o.status != "passed") failed.push_back(o.name);
  }
  for (const auto& f : failed) *failed_list += (failed_list->empty() ? "" : ",") + f;
  if (failed_list->empty()) *failed_list = "none";
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

}  // namespace

int check(const CheckOptions& opt) {
  const auto started = std::chrono::steady_clock::now();
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
    std::cerr << "cudalab: " << student.string() << ": no such file\n";
    return 2;
  }
  std::cout << "Checking " << student.string() << " (lesson " << lesson.name << ": " << lesson.title
            << ")\n";

  char pattern[] = "/tmp/cudalab-check.XXXXXX";
  const char* d = mkdtemp(pattern);
  if (!d) {
    std::cerr << "cudalab: cannot make a temporary folder: " << std::strerror(errno) << "\n";
    return 1;
  }
  const fs::path work = d;
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup{work};
  // A .diff is a change to the solution (the lessons' known-wrong files):
  // grade the solution with that change made.
  if (student.extension() == ".diff") {
    const fs::path made = work / (student.stem().string() + ".cu");
    try {
      std::ofstream(made) << apply_to_solution(read_file(lesson.dir / lesson.solution_file),
                                               read_file(student));
    } catch (const std::exception& e) {
      std::cerr << "cudalab: " << student.string() << ": " << e.what() << "\n";
      return 2;
    }
    std::cout << "  (the solution with the change in " << student.filename().string() << ")\n";
    student = made;
  }

  // 1. Build.
  std::cout << "  building with cudalab-cc ..." << std::flush;
  std::vector<std::string> build = {CUDALAB_CC_PATH, "--instrumented", "-O2",
                                    "-I" + lesson.dir.string(), "-I" CUDALAB_FRAMEWORK_INCLUDE_DIR};
  for (const auto& g : lesson.grader_sources) build.push_back((lesson.dir / g).string());
  build.push_back(student.string());
  build.push_back(CUDALAB_FRAMEWORK_LIBRARY);
  build.push_back("-o");
  build.push_back((work / "grader").string());
  ProcessResult b = run_process(build, 300, work / "build.log");
  std::vector<TestOutcome> outcomes;
  if (b.exit_code != 0) {
    std::cout << " failed\n\nYour file did not compile. The compiler said:\n\n"
              << tail(b.output, 8000) << "\n";
    std::cout << "Fix the first error (its file and line are at the start of the message), "
                 "then run the check again.\n\ntotal: 0 / ? points (did not compile)\n";
    if (!opt.json_path.empty()) {
      outcomes.push_back({"Compilation", "the submission compiles", "visible", "failed",
                          tail(b.output, 8000), "", 0, 0});
      write_gradescope(opt.json_path, outcomes, 0, "The submission did not compile.");
    }
    return opt.expect_failed == "all" ? 0 : 1;
  }
  std::cout << " done\n";

  // 2. List the graded tests.
  ProcessResult list = run_process({(work / "grader").string(), "--list"}, 30, work / "list.log");
  std::vector<json> tests;
  {
    std::istringstream in(list.output);
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] != '{') continue;
      try {
        tests.push_back(json::parse(line));
      } catch (...) {
      }
    }
  }
  if (list.exit_code != 0 || tests.empty()) {
    std::cout << "cudalab: the grader did not start:\n" << tail(list.output, 4000) << "\n";
    return 1;
  }
  for (const Rubric& r : lesson.rubrics)
    if (std::none_of(tests.begin(), tests.end(),
                     [&](const json& t) { return t["name"] == r.test; })) {
      std::cerr << "cudalab: lesson " << lesson.name << ": rubric " << r.name << " names test "
                << r.test << ", which the grader does not have\n";
      return 2;
    }

  // 3. Run each test in its own process, then the method rubrics.
  double score = 0, max_score = 0;
  std::cout << "\n";
  auto record = [&](TestOutcome o) {
    // What the program printed (kernel printf, simulator reports) helps.
    if (!o.printed.empty() && (o.status != "passed" || opt.verbose))
      o.output += "What the program printed:\n" + tail(o.printed, 3000);
    score += o.score;
    max_score += o.max_score;
    print_outcome(o, opt.verbose);
    outcomes.push_back(o);
    if (!opt.json_path.empty()) {
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      write_gradescope(opt.json_path, outcomes, secs, "");
    }
  };
  for (const auto& t : tests) {
    TestOutcome o = run_test(work, t.at("name").get<std::string>(), opt.timeout_s, {}, "");
    o.name = t.at("name").get<std::string>();
    o.description = t.value("description", "");
    o.visibility = t.value("visibility", "visible");
    o.max_score = t.at("points").get<double>();
    record(o);
  }
  if (!lesson.rubrics.empty())
    std::cout << "\n  how the kernels work (the simulator's checks and metrics):\n";
  for (const Rubric& r : lesson.rubrics) {
    const auto plain = std::find_if(outcomes.begin(), outcomes.end(),
                                    [&](const TestOutcome& o) { return o.name == r.test; });
    TestOutcome o = run_rubric(work, r, *plain, opt.timeout_s);
    o.printed.clear();
    record(o);
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const size_t passed = size_t(std::count_if(
      outcomes.begin(), outcomes.end(), [](const TestOutcome& o) { return o.status == "passed"; }));
  std::ostringstream summary;
  summary << "total: " << score << " / " << max_score << " points";
  std::cout << "\n" << summary.str() << "\n";
  std::cout << passed << " passed, " << (outcomes.size() - passed) << " failed\n";
  if (!opt.json_path.empty()) {
    write_gradescope(opt.json_path, outcomes, secs, summary.str());
    std::cout << "results written to " << opt.json_path << "\n";
  }
  if (!opt.expect_failed.empty()) {
    std::string failed;
    const bool as_expected = failed_as_expected(opt.expect_failed, outcomes, &failed);
    std::cout << (as_expected ? "as expected" : "NOT as expected") << ": failed " << failed
              << " (expected " << opt.expect_failed << ")\n";
    return as_expected ? 0 : 1;
  }
  return passed == outcomes.size() ? 0 : 1;
}

}  // namespace cudalab::cli
