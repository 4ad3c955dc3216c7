// cudalab: the course's command.
//
//   cudalab list                       the lessons, in course order
//   cudalab check LESSON               grade your exercise.cu on the simulator
//   cudalab check LESSON --solution    grade the reference solution
//   cudalab check LESSON --file F.cu --json results.json
//   cudalab stats TRACE [--json]       a trace's metrics, as Nsight Compute counts them
//   cudalab exercise LESSON [--check]  make a lesson's exercise from its solution
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "cli.h"

using namespace cudalab::cli;

int main(int argc, char** argv) {
  CLI::App app{"cudalab: a CUDA C++ course whose kernels run on a GPU or on the CPU simulator"};
  app.require_subcommand(1);
  auto* list = app.add_subcommand("list", "list the lessons in course order");
  auto* chk = app.add_subcommand("check", "build a lesson's exercise and run its graded tests");
  CheckOptions o;
  chk->add_option("lesson", o.lesson, "the lesson, e.g. vector_add (see cudalab list)")->required();
  chk->add_flag("--solution", o.solution, "grade the lesson's reference solution instead");
  chk->add_option("--file", o.file, "grade this file instead of the lesson's exercise.cu")
      ->check(CLI::ExistingFile);
  chk->add_option("--json", o.json_path, "also write Gradescope's results.json here");
  chk->add_option("--timeout", o.timeout_s,
                  "seconds each graded test may run (default 20; a submission that hangs gets "
                  "one such limit in all, and a half more)")
      ->check(CLI::PositiveNumber);
  chk->add_option("--seed", o.seed, "draw the tests' inputs with this seed (default: a new one)")
      ->each([&](const std::string&) { o.seed_given = true; });
  chk->add_flag("--unconfined", o.unconfined,
                "run the submission without the bubblewrap sandbox (rlimits only): for code you "
                "trust, where bubblewrap cannot run");
  chk->add_flag("--gpu", o.gpu, "build the submission with nvcc and run it on this machine's GPU");
  chk->add_flag("--report-only", o.report_only,
                "exit 0 whenever the grading ran, whatever the score (for a student's copy's CI)");
  chk->add_flag("-v,--verbose", o.verbose, "show every test's output, also when it passes");
  chk->add_option("--expect-failed", o.expect_failed,
                  "exit 0 only if exactly these tests fail: none, all, or names with commas "
                  "(for checking a lesson's solution, exercise and known-wrong files)");
  auto* ex = app.add_subcommand(
      "exercise", "make a lesson's exercise.cu from its solution (BEGIN/END SOLUTION markers)");
  std::string exercise_lesson;
  bool exercise_check = false;
  ex->add_option("lesson", exercise_lesson, "the lesson")->required();
  ex->add_flag("--check", exercise_check,
               "only check that exercise.cu is what the solution makes (exit 1 if not)");
  auto* st = app.add_subcommand(
      "stats",
      "memory metrics of a trace (CUDALAB_TRACE=FILE ./program), as Nsight Compute counts them");
  std::string trace_path;
  bool stats_json = false;
  st->add_option("trace", trace_path, "the trace file")->required()->check(CLI::ExistingFile);
  st->add_flag("--json", stats_json, "print JSON instead of a table");
  CLI11_PARSE(app, argc, argv);

  if (*list) {
    auto lessons = all_lessons();
    if (lessons.empty()) {
      std::cerr << "cudalab: no lessons found in " << lessons_root().string() << "\n";
      return 1;
    }
    for (const auto& l : lessons)
      std::printf("%2d. %-12s %s\n    %s\n", l.order, l.name.c_str(), l.title.c_str(),
                  l.summary.c_str());
    return 0;
  }
  if (*chk) {
    if (o.solution && !o.file.empty()) {
      std::cerr << "cudalab: --solution and --file cannot go together\n";
      return 2;
    }
    return check(o);
  }
  if (*ex) return exercise(exercise_lesson, exercise_check);
  if (*st) return stats(trace_path, stats_json);
  return 2;
}
