// The grader program's side of graded tests: registration, listing, judging
// one case against the student's program for `cudalab check`, or running all
// of them by hand in a grader built with a solution.
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "channel.h"
#include "cudalab/framework/compare.h"
#include "cudalab/framework/grading.h"

namespace cudalab::grading {
namespace {
std::vector<GradedTest>& tests() {
  static std::vector<GradedTest> all;
  return all;
}

const char* visibility_name(Visibility v) {
  return v == Visibility::kHidden ? "hidden" : "visible";
}

int usage(const std::string& why) {
  std::cerr << "grader: " << why << "\n"
            << "usage: a lesson grader\n"
               "  (no arguments) [--seed S]     run every graded test (a grader built with a\n"
               "                                solution) and print the points\n"
               "  --list                        the tests and the functions they call, as JSON\n"
               "  --run NAME [--seed S] [--limit SECONDS] [--output-limit MIB]\n"
               "        [--exit-limit SECONDS] [--result FILE] [--compared] -- PROGRAM [ARGS...]\n"
               "                                judge one test against the student's program\n"
               "                                (what cudalab check does); --compared adds\n"
               "                                the wrong elements of each comparison;\n"
               "                                --exit-limit: how long it may take to end\n"
               "                                after its last answer (default: the time left)\n";
  return 2;
}

uint64_t mix(uint64_t x) {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

bool parse_number(const std::string& s, double* v) {
  char* end = nullptr;
  *v = std::strtod(s.c_str(), &end);
  return !s.empty() && end && *end == '\0' && *v > 0;
}

bool parse_seed(const std::string& s, uint64_t* v) {
  char* end = nullptr;
  errno = 0;
  *v = std::strtoull(s.c_str(), &end, 10);
  return !s.empty() && end && *end == '\0' && errno == 0;
}

// One case, judged against the submission's program: the result as JSON.
nlohmann::json judge(const GradedTest& t, uint64_t seed, const std::vector<std::string>& program,
                     const Limits& limits) {
  TestContext ctx(seed, t.name);
  std::string ended, error;
  try {
    start_submission(program, limits);
    t.run(ctx);
    finish_submission();
  } catch (const SubmissionLost& e) {
    ended = e.kind();
    ctx.fail() << e.what() << "\n";
  } catch (const std::exception& e) {
    error = e.what();
  }
  const bool passed = !ctx.failed() && error.empty();
  nlohmann::json j = {{"name", t.name},
                      {"score", passed ? t.points : 0.0},
                      {"max_score", t.points},
                      {"status", passed ? "passed" : "failed"},
                      {"output", ctx.output()},
                      {"ended", ended},
                      {"printed", submission_output()},
                      {"seconds", submission_seconds()},
                      {"exited", submission_exited()},
                      {"exit_seconds", submission_exit_seconds()}};
  if (keeping_comparisons()) j["compared"] = take_comparisons();
  if (!error.empty()) {
    j["ended"] = "error";
    j["output"] = ctx.output() +
                  "The test itself went wrong (a mistake in the lesson, not in "
                  "your file): " +
                  error + "\n";
  }
  return j;
}
}  // namespace

uint64_t TestContext::seed(uint64_t k) const {
  uint64_t h = 1469598103934665603ull;  // FNV-1a of the test's name
  for (const char c : test_) h = (h ^ uint8_t(c)) * 1099511628211ull;
  return mix(mix(run_seed_ ^ h) + k);
}

int register_test(const GradedTest& test) {
  tests().push_back(test);
  return static_cast<int>(tests().size());
}

const std::vector<GradedTest>& registered_tests() { return tests(); }

int serve_judge() { return answer_calls(); }

int grader_main(int argc, char** argv) {
  std::string run, result;
  bool list = false;
  uint64_t seed = 0;
  Limits limits;
  std::vector<std::string> program;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    double v = 0;
    if (a == "--list") {
      list = true;
    } else if (a == "--run" && has_value) {
      run = argv[++i];
    } else if (a == "--compared") {
      keep_comparisons();
    } else if (a == "--result" && has_value) {
      result = argv[++i];
    } else if (a == "--seed" && has_value) {
      if (!parse_seed(argv[++i], &seed)) return usage("--seed takes a whole number");
    } else if (a == "--limit" && has_value) {
      if (!parse_number(argv[++i], &limits.seconds)) return usage("--limit takes seconds > 0");
    } else if (a == "--exit-limit" && has_value) {
      if (!parse_number(argv[++i], &limits.exit_seconds))
        return usage("--exit-limit takes seconds > 0");
    } else if (a == "--output-limit" && has_value) {
      if (!parse_number(argv[++i], &v)) return usage("--output-limit takes MiB > 0");
      limits.output_bytes = size_t(v * (1 << 20));
    } else if (a == "--") {
      program.assign(argv + i + 1, argv + argc);
      break;
    } else {
      return usage("unknown argument " + a);
    }
  }
  if (list) {
    for (const auto& t : tests()) {
      nlohmann::json j = {{"name", t.name},
                          {"points", t.points},
                          {"visibility", visibility_name(t.visibility)},
                          {"description", t.description},
                          {"extra_credit", t.extra_credit}};
      std::cout << j.dump() << "\n";
    }
    std::cout << nlohmann::json{{"calls", called_functions()}}.dump() << "\n";
    return 0;
  }
  // A judge (built with CUDALAB_JUDGE) calls the student's functions in
  // another process; a grader built with a solution calls them directly.
  const bool is_judge = !called_functions().empty();
  if (is_judge && program.empty())
    return usage(
        "this is a lesson's judge: it has no student code in it and grades a student's "
        "program given after --. Use `cudalab check LESSON` to grade a file.");
  if (!is_judge && !program.empty())
    return usage("only a judge (built with CUDALAB_JUDGE) takes a program");
  if (!run.empty()) {
    for (const auto& t : tests()) {
      if (t.name != run) continue;
      nlohmann::json j;
      if (!program.empty()) {
        signal(SIGPIPE, SIG_IGN);  // a program that ends early must not end the judge
        j = judge(t, seed, program, limits);
      } else {
        if (std::string why; !device_available(&why)) {
          std::printf("no CUDA device (%s): skipping the graded tests\n", why.c_str());
          return 77;  // CTest's "skipped"
        }
        TestContext ctx(seed, t.name);
        t.run(ctx);
        j = {{"name", t.name},
             {"score", ctx.failed() ? 0.0 : t.points},
             {"max_score", t.points},
             {"status", ctx.failed() ? "failed" : "passed"},
             {"output", ctx.output()}};
      }
      if (result.empty()) {
        std::cout << j.dump() << "\n";
      } else {
        std::ofstream out(result);
        out << j.dump() << "\n";
        if (!out) {
          std::cerr << "grader: cannot write " << result << "\n";
          return 1;
        }
      }
      return 0;
    }
    std::cerr << "grader: no graded test named " << run << "\n";
    return 2;
  }
  if (std::string why; !device_available(&why)) {
    std::printf("no CUDA device (%s): skipping the graded tests\n", why.c_str());
    return 77;
  }
  double score = 0, max = 0;
  int failed = 0;
  for (const auto& t : tests()) {
    TestContext ctx(seed, t.name);
    t.run(ctx);
    max += t.points;
    if (!ctx.failed())
      score += t.points;
    else
      ++failed;
    std::printf("%-6s %4.1f/%-4.1f %s: %s\n", ctx.failed() ? "FAIL" : "pass",
                ctx.failed() ? 0.0 : t.points, t.points, t.name.c_str(), t.description.c_str());
    if (!ctx.output().empty()) std::printf("%s\n", ctx.output().c_str());
  }
  std::printf("total: %.1f / %.1f points\n", score, max);
  std::printf("%zu passed, %d failed\n", tests().size() - failed, failed);
  return failed ? 1 : 0;
}

}  // namespace cudalab::grading
