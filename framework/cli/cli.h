// The pieces of the `cudalab` command, one file each: the lessons
// (lesson.cpp), grading a submission (check.cpp), a trace's metrics
// (stats.cpp).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cudalab/support/files.h"

namespace cudalab::trace {
struct Trace;
}

namespace cudalab::cli {

namespace fs = std::filesystem;

// A method rubric of lesson.json: points for how a kernel computes, checked
// on a graded test's run: under the simulator's checks ("checks":
// "memcheck,racecheck"), or a figure of `cudalab stats` for one kernel
// ("kernel", "metric": "global_loads.sectors_per_request", "at_most" and/or
// "at_least").
struct Rubric {
  std::string name, description, test, hint;
  double points = 0;
  std::string checks;
  std::string kernel, metric;
  double at_least = -1e300, at_most = 1e300;
  // A predicted-time rubric (metric "predicted_us": the kernel's own time
  // predicted on `gpu`, in microseconds; "predicted_speedup": how many times
  // faster than `faster_than` in the same run, both predicted on `gpu`).
  std::string gpu, faster_than;
  bool predicted() const { return metric.rfind("predicted_", 0) == 0; }
};

struct Lesson {
  std::string name, title, summary;
  int order = 0;
  fs::path dir;
  std::string student_file = "exercise.cu", solution_file = "solution.cu";
  std::vector<std::string> grader_sources;
  std::vector<Rubric> rubrics;
  // Graded tests whose results a race on global memory can spoil now and
  // then (updates lost when two threads add without an atomic): passing
  // needs right results and no such race under racecheck ("race_checked").
  std::vector<std::string> race_checked;
};

fs::path lessons_root();
// Reads lesson.json; returns false with a reason when it is missing or bad.
bool load_lesson(const fs::path& dir, Lesson* l, std::string* why);
// The lesson's headers (every .h and .cuh of its folder, by name), each as
// its name and text: what a build of its program or grader depends on
// beside the sources it is given (lesson.h, reference.h, stages.h, ...).
std::string lesson_headers_text(const Lesson& l);
// Every lesson, in course order.
std::vector<Lesson> all_lessons();
// The lessons as `cudalab list --json` gives them to scripts: in course
// order, each with its name, title, summary, order and folder.
nlohmann::json lessons_json(const std::vector<Lesson>& lessons);
// The lesson called `name`, or an error message naming the lessons there are.
bool find_lesson(const std::string& name, Lesson* l, std::string* why);

struct CheckOptions {
  std::string lesson, file, json_path;
  bool solution = false, verbose = false;
  double timeout_s = 20;
  uint64_t seed = 0;
  bool seed_given = false;
  bool unconfined = false, gpu = false;
  bool no_rubrics = false;        // the graded tests alone
  bool report_only = false;       // exit 0 whenever the grading ran (a student's copy's CI)
  std::string classroom_path;     // GitHub Classroom's reporter's JSON
  std::string prairielearn_path;  // PrairieLearn's results.json
  std::string picture_path;       // the first failing visible test, drawn
  std::string trace_path;         // ... and its trace, kept for cudalab-viz
  bool viz = false;               // ... opened in cudalab-viz
  // When set: exit 0 only if exactly these tests fail ("none", "all" or
  // names with commas), for CI runs over known-wrong files.
  std::string expect_failed;
};
int check(const CheckOptions& o);
// cudalab-viz in a window on `trace`; false (said on stderr, with
// `otherwise`: what to do instead) when it is not built or there is no display.
bool open_viewer(const std::string& trace, const std::string& otherwise);
// Whether submissions can be run: in the sandbox, or unconfined when asked
// (says so on stderr either way when it matters).
bool sandbox_ready(bool unconfined);

// `cudalab run LESSON`: the lesson's program with the student's current
// file, rebuilt when it changed, with checks, a trace, the visualizer.
struct RunOptions {
  std::string lesson, file;
  bool solution = false;
  std::string checks;             // CUDALAB_CHECK's value ("" none)
  std::string trace;              // where to write the trace ("" none)
  bool viz = false;               // open the trace in cudalab-viz
  std::string picture;            // draw the trace to this PNG
  std::string predict;            // predict each launch on this GPU ("" no)
  std::vector<std::string> args;  // the program's own
};
int run_lesson(const RunOptions& o);

// `cudalab grade`: a whole class (class_grading.cpp).
struct GradeClassOptions {
  std::string lesson, output;
  std::vector<std::string> inputs;  // folders, files, LMS zips
  int jobs = 1;
  double timeout_s = 20;
  uint64_t seed = 0;
  bool seed_given = false;
  bool unconfined = false, gpu = false;
  bool pictures = false;    // draw each first failing visible test
  bool no_rubrics = false;  // the graded tests alone
  // A share of the class (a Slurm task): submissions i with i % count == index.
  int chunk_index = 0, chunk_count = 0;
  bool gather = false;  // grade nothing: the gradebook from the records there are
  bool slurm = false, slurm_wait = false;
  int slurm_tasks = 32;
  std::string slurm_args;
};
int grade_class(const GradeClassOptions& o);

// `cudalab release OUT`: the student's copy of the course (release.cpp);
// `cudalab gradescope LESSON -o ZIP`: Gradescope's autograder bundle;
// `cudalab classroom LESSON -o DIR`: a GitHub Classroom workflow.
int release(const std::string& out, bool force);
int gradescope_bundle(const std::string& lesson, const std::string& zip);
int classroom_workflow(const std::string& lesson, const std::string& out);

int stats(const std::string& path, bool as_json);
// `cudalab predict` (predict.cpp): each launch of a trace predicted on GPU
// `gpu` (a calibration file's name), or of a program run with `sample`
// blocks of each launch traced. With a `lesson` (cudalab run LESSON
// --predict), the lesson's kernels measured on that GPU are shown beside.
int predict_trace(const std::string& path, const std::string& gpu, bool as_json,
                  const std::string& lesson = "");
// The program is stopped, with no prediction, past `time_limit` seconds
// (0: none) or when its trace passes 4 GiB.
int predict_program(const std::vector<std::string>& argv, const std::string& gpu, uint64_t sample,
                    bool as_json, const std::string& lesson = "", double time_limit = 600);
// What `cudalab stats --json` prints for a trace.
nlohmann::json stats_json(const trace::Trace& t, const std::string& path);

// `cudalab exercise LESSON [--check]`: writes (or checks) the exercise made
// from the solution's BEGIN/END SOLUTION markers.
int exercise(const std::string& lesson, bool check_only);
// `cudalab new NAME`: a lesson folder from the lesson kit (new_lesson.cpp),
// in `dir` (default: the course's lessons folder).
struct NewLessonOptions {
  std::string name, title, summary, dir;
};
int new_lesson(const NewLessonOptions& o);
// `cudalab verify LESSON`: what CI checks of a lesson, on it where it is
// (verify.cpp).
int verify(const std::string& lesson);

// The exercise text made from a solution's text; throws std::runtime_error
// naming the line of a marker that does not pair.
std::string exercise_from_solution(const std::string& solution);

// A known-wrong submission kept as a change to the solution: `diff` is a
// unified diff (`diff -u solution.cu mine.cu`; lines before its `---` are
// free text, like the `// expect-failed:` line). Returns the solution with
// the change made; throws std::runtime_error naming the hunk that no longer
// fits the solution.
std::string apply_to_solution(const std::string& solution, const std::string& diff);

}  // namespace cudalab::cli
