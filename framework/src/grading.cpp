// The grader program's side of graded tests: registration, listing, running
// one case for `cudalab check`, or all of them when run by hand.
#include "cudalab/grading.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cudalab/compare.h"

namespace cudalab::grading {
namespace {
std::vector<GradedTest>& tests() {
  static std::vector<GradedTest> all;
  return all;
}

const char* visibility_name(Visibility v) {
  return v == Visibility::kHidden ? "hidden" : "visible";
}

int usage() {
  std::cerr << "usage: a lesson grader\n"
               "  (no arguments)            run every graded test and print the points\n"
               "  --list                    list the tests, one JSON object a line\n"
               "  --run NAME --result FILE  run one test and write its result to FILE\n";
  return 2;
}
}  // namespace

int register_test(const GradedTest& test) {
  tests().push_back(test);
  return static_cast<int>(tests().size());
}

const std::vector<GradedTest>& registered_tests() { return tests(); }

int grader_main(int argc, char** argv) {
  std::string run, result;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--list")
      list = true;
    else if (a == "--run" && i + 1 < argc)
      run = argv[++i];
    else if (a == "--result" && i + 1 < argc)
      result = argv[++i];
    else
      return usage();
  }
  if (std::string why; !device_available(&why)) {
    std::printf("no CUDA device (%s): skipping the graded tests\n", why.c_str());
    return 77;  // CTest's "skipped"
  }
  if (list) {
    for (const auto& t : tests()) {
      nlohmann::json j = {{"name", t.name},
                          {"points", t.points},
                          {"visibility", visibility_name(t.visibility)},
                          {"description", t.description}};
      std::cout << j.dump() << "\n";
    }
    return 0;
  }
  if (!run.empty()) {
    for (const auto& t : tests()) {
      if (t.name != run) continue;
      TestContext ctx;
      t.run(ctx);
      nlohmann::json j = {{"name", t.name},
                          {"score", ctx.failed() ? 0.0 : t.points},
                          {"max_score", t.points},
                          {"status", ctx.failed() ? "failed" : "passed"},
                          {"output", ctx.output()}};
      if (result.empty()) {
        std::cout << j.dump(2) << "\n";
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
  double score = 0, max = 0;
  int failed = 0;
  for (const auto& t : tests()) {
    TestContext ctx;
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
