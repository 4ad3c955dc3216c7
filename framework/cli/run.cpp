// cudalab run: a lesson's program (driver.cu) with the student's current
// file, rebuilt when either changed, run with the simulator's checks or a
// trace when asked, and the trace shown in cudalab-viz (or drawn to a PNG).
// It is the student's own code on their own machine: no sandbox, as when
// they run any program they wrote.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

#include "cli.h"
#include "cudalab/support/files.h"
#include "cudalab/support/process.h"
#include "cudalab_cli_config.h"
#include "one_submission.h"

namespace cudalab::cli {
namespace {

// Runs argv with this terminal (its output as it comes) and `env` added;
// returns its exit status (128 + signal when a signal ended it).
int run_here(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  support::Child child;
  child.argv = argv;
  child.env = env;
  std::string why;
  const pid_t pid = support::start(child, &why);
  if (pid < 0) {
    std::cerr << "cudalab: " << why << "\n";
    return 127;
  }
  return support::wait_for(pid).status();
}

}  // namespace

int run_lesson(const RunOptions& o) {
  Lesson lesson;
  std::string why;
  if (!find_lesson(o.lesson, &lesson, &why)) {
    std::cerr << why;
    return 2;
  }
  fs::path student =
      o.solution ? lesson.dir / lesson.solution_file : lesson.dir / lesson.student_file;
  if (!o.file.empty()) student = fs::absolute(o.file);
  if (!fs::is_regular_file(student)) {
    std::cerr << "cudalab: " << student.string() << ": no such file"
              << (o.solution ? " (a student's copy of the course has no solutions)" : "") << "\n";
    return 2;
  }
  if (!fs::exists(lesson.dir / "driver.cu")) {
    std::cerr << "cudalab: lesson " << lesson.name << " has no driver.cu: nothing to run\n";
    return 2;
  }
  // One folder per file run (the exercise and the solution both stay built).
  const fs::path dir =
      fs::path(CUDALAB_BIN_DIR).parent_path() / "run" / lesson.name / student.stem();
  const fs::path program = dir / lesson.name;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::cerr << "cudalab: cannot make " << dir.string() << ": " << ec.message() << "\n";
    return 2;
  }

  // Build only what changed.
  // What the build depends on: the two sources, the lesson's headers, and
  // the toolchain (a rebuilt simulator rebuilds the program).
  std::string sources = lesson_headers_text(lesson);
  for (const fs::path& p : {lesson.dir / "driver.cu", student})
    sources += p.string() + "\n" + support::read_file(p) + "\n";
  const std::string key = build_key({sources});
  const fs::path key_file = dir / "built-from.key";
  const bool fresh = fs::exists(program) && fs::exists(program.string() + ".instrumented") &&
                     fs::exists(key_file) && support::read_file(key_file) == key;
  if (fresh) {
    std::cerr << "cudalab: " << student.filename().string()
              << " is unchanged since its last build: running it\n";
  } else {
    std::cerr << "cudalab: building " << student.string() << " with lesson " << lesson.name
              << "'s program (driver.cu) ..." << std::endl;
    fs::remove(key_file, ec);
    const std::vector<std::string> build = {CUDALAB_CC_PATH,
                                            "-O2",
                                            "-Wno-unused-parameter",
                                            "-Wno-unused-variable",
                                            "-I" + lesson.dir.string(),
                                            "-I" CUDALAB_FRAMEWORK_INCLUDE_DIR,
                                            (lesson.dir / "driver.cu").string(),
                                            student.string(),
                                            CUDALAB_FRAMEWORK_LIBRARY,
                                            "-o",
                                            program.string()};
    if (run_here(build, {}) != 0) {
      std::cerr << "\ncudalab: " << student.filename().string()
                << " did not build. Fix the first error above (its file and line start the "
                   "message), then run this again.\n";
      return 1;
    }
    support::write_atomically(key_file, key);
  }

  // A prediction: the program with a sample of each launch's blocks traced.
  if (!o.predict.empty()) {
    if (!o.checks.empty() || !o.trace.empty() || o.viz || !o.picture.empty()) {
      std::cerr << "cudalab: --predict runs a sample of each launch's blocks: it does not go "
                   "with --check, --trace, --viz or --picture\n";
      return 2;
    }
    std::vector<std::string> argv = {program.string()};
    argv.insert(argv.end(), o.args.begin(), o.args.end());
    return predict_program(argv, o.predict, 64, false, lesson.name);
  }

  // The run: under the checks, traced, or plain (the plain build, fast).
  std::vector<std::string> env;
  if (!o.checks.empty()) env.push_back("CUDALAB_CHECK=" + o.checks);
  std::string trace = o.trace;
  if (trace.empty() && (o.viz || !o.picture.empty()))
    trace = (dir / (lesson.name + ".trace")).string();
  if (!trace.empty()) {
    trace = fs::absolute(trace).string();
    env.push_back("CUDALAB_TRACE=" + trace);
  }
  std::vector<std::string> argv = {program.string()};
  argv.insert(argv.end(), o.args.begin(), o.args.end());
  std::cerr << "cudalab: running " << program.filename().string();
  for (const auto& a : o.args) std::cerr << " " << a;
  for (const auto& e : env) std::cerr << (&e == &env.front() ? " with " : ", ") << e;
  std::cerr << "\n" << std::endl;
  const int status = run_here(argv, env);
  if (trace.empty()) return status;
  if (!fs::exists(trace)) {
    std::cerr << "cudalab: the run left no trace in " << trace << "\n";
    return status ? status : 1;
  }
  std::cerr << "\ncudalab: trace written to " << trace << " (./build/bin/cudalab stats " << trace
            << " gives its figures)\n";

  // The picture: in a window, or drawn to a PNG without one.
  if (!fs::exists(CUDALAB_VIZ_PATH)) {
    if (o.viz || !o.picture.empty())
      std::cerr << "cudalab: cudalab-viz is not built (cmake --build --preset default)\n";
    return status ? status : (o.viz || !o.picture.empty() ? 1 : 0);
  }
  if (!o.picture.empty()) {
    if (support::find_program("xvfb-run").empty()) {
      std::cerr << "cudalab: --picture draws in a virtual screen: apt-get install xvfb\n";
      return 1;
    }
    const int drawn =
        run_here({"xvfb-run", "-a", "-s", "-screen 0 1400x900x24", CUDALAB_VIZ_PATH, trace,
                  "--screenshot", fs::absolute(o.picture).string(), "--size", "1280x800"},
                 {});
    if (drawn != 0) return drawn;
  }
  if (o.viz && !open_viewer(trace, "use --picture FILE.png to draw it to a file instead"))
    return status ? status : 1;
  return status;
}

bool open_viewer(const std::string& trace, const std::string& otherwise) {
  if (!fs::exists(CUDALAB_VIZ_PATH)) {
    std::cerr << "cudalab: cudalab-viz is not built (cmake --build --preset default)\n";
    return false;
  }
  const char* display = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  if ((!display || !*display) && (!wayland || !*wayland)) {
    std::cerr << "cudalab: no display here for cudalab-viz's window: " << otherwise << "\n";
    return false;
  }
  std::cerr << "cudalab: opening cudalab-viz " << trace << std::endl;
  return run_here({CUDALAB_VIZ_PATH, trace}, {}) == 0;
}

}  // namespace cudalab::cli
