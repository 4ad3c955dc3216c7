// `cudalab verify LESSON`: what CI checks of a lesson, run on it where it
// is (a lesson in the course, or in a folder of its own made with `cudalab
// new --dir`): the exercise is what the solution makes, lesson.json gives
// the graded tests' points, the solution scores full points, the exercise
// none, and each known-wrong change in wrong/ fails exactly the tests its
// `// expect-failed:` line names. One line per check as it ends, the
// reason under a failing one.
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.h"
#include "cudalab/support/files.h"
#include "cudalab/support/process.h"
#include "one_submission.h"

namespace cudalab::cli {
namespace {

using json = nlohmann::json;

struct Verdict {
  bool ok = false;
  std::string why;  // under a failing check
};

// The last non-empty lines of `text`, indented.
std::string last_lines(const std::string& text, size_t count) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) lines.push_back(l);
  std::string out;
  for (size_t i = lines.size() > count ? lines.size() - count : 0; i < lines.size(); ++i)
    out += "      | " + lines[i] + "\n";
  return out;
}

Verdict exercise_made(const Lesson& l) {
  const fs::path solution = l.dir / l.solution_file, student = l.dir / l.student_file;
  try {
    const std::string made = exercise_from_solution(support::read_file(solution));
    if (fs::exists(student) && support::read_file(student) == made) return {true, ""};
    return {false, l.student_file + " is not what " + l.solution_file +
                       " makes: run `cudalab exercise " + l.name + "`"};
  } catch (const std::exception& e) {
    return {false, solution.string() + ": " + e.what()};
  }
}

// The judge's tests' points against lesson.json's test_points and
// extra_credit_points.
Verdict points_match(const Lesson& l) {
  fs::path judge;
  std::string why;
  if (!lesson_judge(l, &judge, &why)) return {false, why};
  const support::ProcessResult listed = support::run_process({judge.string(), "--list"}, 120);
  if (listed.exit_code != 0) return {false, judge.string() + " --list failed"};
  double tests = 0, extra = 0;
  std::istringstream in(listed.output);
  for (std::string line; std::getline(in, line);) {
    const json t = json::parse(line, nullptr, false);
    if (!t.is_object() || !t.contains("name") || !t.contains("points")) continue;
    (t.value("extra_credit", false) ? extra : tests) += t["points"].get<double>();
  }
  json meta;
  try {
    meta = json::parse(support::read_file(l.dir / "lesson.json"));
  } catch (const std::exception& e) {
    return {false, std::string("lesson.json: ") + e.what()};
  }
  const double want_tests = meta.value("test_points", -1.0),
               want_extra = meta.value("extra_credit_points", 0.0);
  if (tests == want_tests && extra == want_extra) return {true, ""};
  std::ostringstream s;
  s << "the graded tests give " << tests << " points and " << extra
    << " of extra credit, but lesson.json says test_points "
    << (want_tests < 0 ? std::string("(missing)") : std::to_string(int(want_tests)))
    << " and extra_credit_points " << want_extra << ": correct lesson.json";
  return {false, s.str()};
}

// `cudalab check` in another process, as CI runs it (seed 1, one worker).
Verdict checked(const Lesson& l, const std::vector<std::string>& args) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  std::vector<std::string> cmd = {
      "env", "CUDALAB_WORKERS=1", self.string(), "check", l.name, "--seed", "1"};
  cmd.insert(cmd.end(), args.begin(), args.end());
  const support::ProcessResult r = support::run_process(cmd, 900);
  if (r.exit_code == 0) return {true, ""};
  std::string command = "cudalab check " + l.name + " --seed 1";
  for (const auto& a : args) command += " " + a;
  return {false, command + " said:\n" + last_lines(r.output, 6)};
}

}  // namespace

int verify(const std::string& name) {
  Lesson l;
  std::string why;
  if (!find_lesson(name, &l, &why)) {
    std::cerr << why;
    return 2;
  }
  if (!fs::exists(l.dir / l.solution_file)) {
    std::cerr << "cudalab: " << (l.dir / l.solution_file).string()
              << " is missing: verify checks a lesson with its solution (not a student's copy)\n";
    return 2;
  }
  std::cout << "Verifying lesson " << l.name << " (" << l.dir.string()
            << ") as CI checks it; each check grades with seed 1\n"
            << std::flush;
  int passed = 0, run = 0;
  auto report = [&](const std::string& what, const Verdict& v) {
    ++run;
    passed += v.ok;
    std::cout << (v.ok ? "  ok    " : "  FAIL  ") << what << "\n";
    if (!v.ok) {
      std::string text = v.why;
      if (!text.empty() && text.back() != '\n') text += "\n";
      std::cout << (text.rfind("      |", 0) == 0 ? "" : "      ") << text;
    }
    std::cout << std::flush;
  };
  report(l.student_file + " is what " + l.solution_file + " makes", exercise_made(l));
  report("lesson.json gives the graded tests' points", points_match(l));
  report("the solution scores full points", checked(l, {"--solution", "--expect-failed", "none"}));
  report("the exercise scores nothing", checked(l, {"--expect-failed", "all"}));
  std::vector<fs::path> wrong;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(l.dir / "wrong", ec))
    if (e.path().extension() == ".diff") wrong.push_back(e.path());
  std::sort(wrong.begin(), wrong.end());
  for (const auto& w : wrong) {
    const std::string text = support::read_file(w);
    const std::string marker = "// expect-failed: ";
    const size_t at = text.find(marker);
    const std::string what = "wrong/" + w.filename().string() + " fails exactly what it names";
    if (at == std::string::npos) {
      report(what, {false, "it has no `// expect-failed: TEST,TEST` line above its `---` line"});
      continue;
    }
    const size_t end = text.find('\n', at);
    const std::string expect = text.substr(at + marker.size(), end - at - marker.size());
    report(what, checked(l, {"--file", w.string(), "--expect-failed", expect}));
  }
  if (wrong.empty())
    std::cout << "  (no known-wrong changes in wrong/: docs/authoring.md says how to add them)\n";
  std::cout << "verify " << l.name << ": " << passed << " of " << run << " checks passed\n";
  return passed == run ? 0 : 1;
}

}  // namespace cudalab::cli
