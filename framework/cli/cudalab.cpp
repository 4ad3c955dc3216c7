// cudalab: the course's command.
//
//   cudalab list                       the lessons, in course order
//   cudalab check LESSON               grade your exercise.cu on the simulator
//   cudalab run LESSON [--check] [--viz] [-- ARGS]   the lesson's program with your file
//   cudalab check LESSON --solution    grade the reference solution
//   cudalab check LESSON --file F.cu --json results.json
//   cudalab check LESSON --file F.cu --prairielearn results.json [--picture F.png]
//   cudalab stats TRACE [--json]       a trace's metrics, as Nsight Compute counts them
//   cudalab predict TRACE | -- PROGRAM ARGS   each launch's time on a GPU, predicted
//   cudalab grade LESSON SUBMISSIONS... -o OUT [-j N] [--slurm]   grade a class
//   cudalab release OUT                the student's copy of the course
//   cudalab gradescope LESSON -o ZIP   Gradescope's autograder bundle
//   cudalab classroom LESSON -o DIR    a GitHub Classroom workflow
//   cudalab exercise LESSON [--check]  make a lesson's exercise from its solution
//   cudalab new NAME [--title T]       a new lesson from the lesson kit
//   cudalab verify LESSON              what CI checks of a lesson
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli.h"
#include "cudalab/predict/predict.h"

using namespace cudalab::cli;

namespace {

// The commands for those who write lessons: exercise, new, verify.
struct AuthorCommands {
  CLI::App* exercise = nullptr;
  CLI::App* new_lesson = nullptr;
  CLI::App* verify = nullptr;
  std::string exercise_lesson, verify_lesson;
  bool exercise_check = false;
  NewLessonOptions new_options;
};

// `cudalab predict`: a trace, or a program after --.
struct PredictCommand {
  CLI::App* command = nullptr;
  std::string trace, gpu = cudalab::predict::chosen_gpu();
  uint64_t sample = 64;
  double time_limit = 600;
  bool json = false;
};

void add_predict_command(CLI::App& app, PredictCommand& c) {
  c.command = app.add_subcommand(
      "predict",
      "each launch's time on a GPU, predicted from a trace, or from a program run after --");
  c.command->add_option("trace", c.trace, "a trace (CUDALAB_TRACE=FILE ./program)")
      ->check(CLI::ExistingFile);
  c.command->add_option("--gpu", c.gpu,
                        "the GPU: a name with calibration data in predict/calibration (default: "
                        "CUDALAB_DEVICE, else h200)");
  c.command
      ->add_option("--sample", c.sample,
                   "with a program: blocks of each launch to run and count (0: all; default 64)")
      ->check(CLI::Range(uint64_t(0), uint64_t(1) << 20));
  c.command
      ->add_option("--time-limit", c.time_limit,
                   "with a program: seconds it may run before it is stopped, with no "
                   "prediction (0: no limit; default 600)")
      ->check(CLI::Range(0.0, 1e6));
  c.command->add_flag("--json", c.json, "print JSON instead of a table");
  c.command->footer(
      "A program goes after --: cudalab predict -- ./build/bin/vector_add --bench. It runs with "
      "a sample of each launch's blocks (the others do nothing, so its results are not "
      "computed), traced, and each launch is predicted from what the sample did.");
}

int run_predict_command(const PredictCommand& c, const std::vector<std::string>& program) {
  if (!c.trace.empty() && !program.empty()) {
    std::cerr << "cudalab predict: a trace or a program after --, not both\n";
    return 2;
  }
  if (c.trace.empty()) return predict_program(program, c.gpu, c.sample, c.json, "", c.time_limit);
  return predict_trace(c.trace, c.gpu, c.json);
}

// (The options write into `c`'s fields: it must outlive the parse.)
void add_author_commands(CLI::App& app, AuthorCommands& c) {
  c.exercise = app.add_subcommand(
      "exercise", "make a lesson's exercise.cu from its solution (BEGIN/END SOLUTION markers)");
  c.exercise->add_option("lesson", c.exercise_lesson, "the lesson")->required();
  c.exercise->add_flag("--check", c.exercise_check,
                       "only check that exercise.cu is what the solution makes (exit 1 if not)");
  c.new_lesson = app.add_subcommand(
      "new", "start a lesson: a folder that builds, checks and grades as it stands, to make yours");
  c.new_lesson
      ->add_option("name", c.new_options.name, "the lesson's name: its folder, e.g. prefix_sum")
      ->required();
  c.new_lesson->add_option("--title", c.new_options.title,
                           "its title in `cudalab list` (default: from the name)");
  c.new_lesson->add_option("--summary", c.new_options.summary, "one line on what it teaches");
  c.new_lesson->add_option(
      "--dir", c.new_options.dir,
      "the lessons folder to write it in (default: the course's; another one is "
      "used with CUDALAB_LESSONS_DIR=DIR)");
  c.new_lesson->footer(
      "docs/authoring.md walks from the folder it writes to a lesson of your own.");
  c.verify = app.add_subcommand(
      "verify",
      "check a lesson as CI does: its exercise, its points, the solution (full points), the "
      "exercise (none), each known-wrong change (exactly the tests it names)");
  c.verify->add_option("lesson", c.verify_lesson, "the lesson")->required();
}

// The exit status of the author's command given, or -1 when none was.
int run_author_command(const AuthorCommands& c) {
  if (*c.exercise) return exercise(c.exercise_lesson, c.exercise_check);
  if (*c.new_lesson) return new_lesson(c.new_options);
  if (*c.verify) return verify(c.verify_lesson);
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cudalab: a CUDA C++ course whose kernels run on a GPU or on the CPU simulator"};
  app.require_subcommand(1);
  auto* list = app.add_subcommand("list", "list the lessons in course order");
  bool list_json = false;
  list->add_flag("--json", list_json,
                 "as JSON, for scripts: each lesson's name, title, summary, order and folder");
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
  chk->add_flag("--gpu", o.gpu,
                "build the submission with nvcc and run its tests on this machine's GPU (the "
                "method rubrics run on the simulator)");
  chk->add_flag("--no-rubrics", o.no_rubrics,
                "the graded tests alone, without the method rubrics (which need the simulator's "
                "compiler, also with --gpu)");
  chk->add_option("--classroom", o.classroom_path,
                  "also write GitHub Classroom's autograding result (JSON) here");
  chk->add_option("--prairielearn", o.prairielearn_path,
                  "also write PrairieLearn's external-grader results.json here, with a picture "
                  "of the first failing test when cudalab-viz and xvfb-run are there");
  chk->add_option("--picture", o.picture_path,
                  "draw the first failing visible test's memory accesses (cudalab-viz under "
                  "xvfb-run) into this PNG");
  chk->add_option("--trace", o.trace_path,
                  "keep the trace of the first failing visible test here, to look at with "
                  "cudalab-viz");
  chk->add_flag("--viz", o.viz,
                "keep the first failing visible test's trace (in LESSON.check.trace, or --trace "
                "FILE) and open it in cudalab-viz with the graded tests beside it");
  chk->add_flag("--report-only", o.report_only,
                "exit 0 whenever the grading ran, whatever the score (for a student's copy's CI)");
  chk->add_flag("-v,--verbose", o.verbose, "show every test's output, also when it passes");
  chk->add_option("--expect-failed", o.expect_failed,
                  "exit 0 only if exactly these tests fail: none, all, or names with commas "
                  "(for checking a lesson's solution, exercise and known-wrong files)");
  auto* rn = app.add_subcommand(
      "run", "run a lesson's program with your exercise.cu, rebuilt when it changed");
  RunOptions ro;
  rn->add_option("lesson", ro.lesson, "the lesson, e.g. matmul")->required();
  rn->add_option("--file", ro.file, "run this file instead of the lesson's exercise.cu")
      ->check(CLI::ExistingFile);
  rn->add_flag("--solution", ro.solution, "run the lesson's reference solution instead");
  rn->add_option("--check", ro.checks,
                 "run under the simulator's checks: all, or memcheck, racecheck, synccheck, "
                 "initcheck (several with commas)")
      ->expected(0, 1)
      ->default_str("all");
  rn->add_option("--trace", ro.trace, "record every memory access into this trace file");
  rn->add_flag("--viz", ro.viz, "record a trace and open it in cudalab-viz");
  rn->add_option("--picture", ro.picture,
                 "record a trace and draw it (cudalab-viz under xvfb-run) into this PNG");
  rn->footer(
      "The program's own arguments go after --: cudalab run vector_add -- 1000 --threads 128");
  AuthorCommands authors;
  add_author_commands(app, authors);
  auto* st = app.add_subcommand(
      "stats",
      "memory metrics of a trace (CUDALAB_TRACE=FILE ./program), as Nsight Compute counts them");
  std::string trace_path;
  bool stats_json = false;
  st->add_option("trace", trace_path, "the trace file")->required()->check(CLI::ExistingFile);
  st->add_flag("--json", stats_json, "print JSON instead of a table");
  PredictCommand predict;
  add_predict_command(app, predict);
  rn->add_option("--predict", ro.predict,
                 "predict each launch's time on this GPU (h200, ...; without a name the GPU "
                 "CUDALAB_DEVICE names, else h200): the program runs with a sample of each "
                 "launch's blocks, so its results are not computed")
      ->expected(0, 1);
  auto* gr = app.add_subcommand(
      "grade", "grade a whole class: a gradebook, feedback, LMS reports and a class summary");
  GradeClassOptions go;
  std::string chunk;
  gr->add_option("lesson", go.lesson, "the lesson, e.g. vector_add")->required();
  gr->add_option("submissions", go.inputs,
                 "folders (one file or folder per student), files, or the zip Gradescope or "
                 "Canvas exports")
      ->required();
  gr->add_option("-o,--output", go.output, "the folder for the gradebook and reports")->required();
  gr->add_option("-j,--jobs", go.jobs, "submissions graded at a time (default 1)")
      ->check(CLI::Range(1, 256));
  gr->add_option("--timeout", go.timeout_s, "seconds each graded test may run (default 20)")
      ->check(CLI::PositiveNumber);
  gr->add_option("--seed", go.seed, "the run's seed (default: a new one, kept in OUT)")
      ->each([&](const std::string&) { go.seed_given = true; });
  gr->add_flag("--unconfined", go.unconfined,
               "grade without the bubblewrap sandbox (rlimits only): only where it cannot run");
  gr->add_flag("--gpu", go.gpu,
               "build with nvcc and run the tests on the GPU (the method rubrics run on the "
               "simulator)");
  gr->add_flag("--no-rubrics", go.no_rubrics,
               "the graded tests alone, without the method rubrics (for a GPU node without the "
               "simulator's compiler)");
  gr->add_flag("--pictures", go.pictures,
               "draw each student's first failing visible test (cudalab-viz under xvfb-run) "
               "into pictures/ and the PrairieLearn files (a few seconds a failing student)");
  gr->add_option("--chunk", chunk, "grade only share I of N (I/N), as a Slurm task does");
  gr->add_flag("--gather", go.gather, "grade nothing: write the gradebook from the records");
  gr->add_flag("--slurm", go.slurm, "submit the grading to Slurm as a job array and a gather job");
  gr->add_flag("--slurm-wait", go.slurm_wait, "with --slurm: wait for the gradebook");
  gr->add_option("--slurm-tasks", go.slurm_tasks, "with --slurm: tasks in the array (default 32)")
      ->check(CLI::Range(1, 10000));
  gr->add_option("--slurm-args", go.slurm_args,
                 "with --slurm: more sbatch options, e.g. \"--partition=gpu --time=30\"");
  auto* rel =
      app.add_subcommand("release",
                         "write the student's copy of the course (no solutions, hidden tests or "
                         "known-wrong files)");
  std::string release_dir;
  bool release_force = false;
  rel->add_option("folder", release_dir, "where to write it (a new folder)")->required();
  rel->add_flag("--force", release_force, "replace an earlier release in that folder");
  auto* gs = app.add_subcommand("gradescope", "write a lesson's Gradescope autograder zip");
  std::string gs_lesson, gs_zip;
  gs->add_option("lesson", gs_lesson, "the lesson")->required();
  gs->add_option("-o,--output", gs_zip, "the zip to write")->required();
  auto* cl = app.add_subcommand("classroom", "write a GitHub Classroom autograding workflow");
  std::string cl_lesson, cl_dir;
  cl->add_option("lesson", cl_lesson, "the lesson, or all")->required();
  cl->add_option("-o,--output", cl_dir, "the student repository's folder")->required();
  // `cudalab run LESSON ... -- ARGS`: what follows -- is the program's own.
  std::vector<std::string> program_args;
  if (argc > 1 && (std::string(argv[1]) == "run" || std::string(argv[1]) == "predict"))
    for (int i = 2; i < argc; ++i)
      if (std::string(argv[i]) == "--") {
        program_args.assign(argv + i + 1, argv + argc);
        argc = i;
        break;
      }
  CLI11_PARSE(app, argc, argv);

  if (*gr) {
    if (!chunk.empty()) {
      unsigned i = 0, n = 0;
      char rest = 0;
      if (std::sscanf(chunk.c_str(), "%u/%u%c", &i, &n, &rest) != 2 || n == 0 || i >= n) {
        std::cerr << "cudalab: --chunk takes I/N with 0 <= I < N, e.g. 3/16\n";
        return 2;
      }
      go.chunk_index = int(i);
      go.chunk_count = int(n);
    }
    return grade_class(go);
  }
  if (const int status = run_author_command(authors); status >= 0) return status;
  if (*rel) return release(release_dir, release_force);
  if (*gs) return gradescope_bundle(gs_lesson, gs_zip);
  if (*cl) return classroom_workflow(cl_lesson, cl_dir);

  if (*list) {
    auto lessons = all_lessons();
    if (lessons.empty()) {
      std::cerr << "cudalab: no lessons found in " << lessons_root().string() << "\n";
      return 1;
    }
    if (list_json) {
      std::cout << lessons_json(lessons).dump(2) << "\n";
      return 0;
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
  if (*rn) {
    if (ro.solution && !ro.file.empty()) {
      std::cerr << "cudalab: --solution and --file cannot go together\n";
      return 2;
    }
    if (rn->count("--check") && ro.checks.empty()) ro.checks = "all";
    if (rn->count("--predict") && ro.predict.empty()) ro.predict = cudalab::predict::chosen_gpu();
    ro.args = program_args;
    return run_lesson(ro);
  }
  if (*st) return stats(trace_path, stats_json);
  if (*predict.command) return run_predict_command(predict, program_args);
  return 2;
}
