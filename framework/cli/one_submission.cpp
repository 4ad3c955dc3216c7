// Grading one submission (see one_submission.h), its steps put together: the file
// read, the judge's tests listed, the program built in the sandbox, each test
// judged (judge_run.cpp) and a failing one diagnosed (diagnosis.cpp), then
// the method rubrics (rubrics.cpp). The trusted side is this process and the
// lesson's judge; the submission's code runs only in the sandbox, built
// there from its file and a generated main that serves the judge (compiled
// once per lesson: build_cache.cpp).
#include "one_submission.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "cudalab/support/files.h"
#include "cudalab/support/process.h"
#include "cudalab_cli_config.h"
#include "one_submission_steps.h"

namespace cudalab::cli {
namespace {

using json = nlohmann::json;

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

}  // namespace

uint64_t random_seed() {
  std::random_device rd;
  return (uint64_t(rd()) << 32) ^ rd();
}

std::string student_output(const TestRecord& t) {
  if (t.visibility == "hidden")
    return t.status == "passed" ? "" : "Hidden test: " + t.verdict + ".\n";
  return t.output;
}

namespace {

// The student's file copied into the scratch folder (a .diff applied to the
// solution first), with lesson.h beside it; `*source_name` is the name it
// builds under. "" when it went well, else what was wrong with the file.
std::string take_submission(const Lesson& lesson, const fs::path& file, const fs::path& scratch,
                            std::string* source_name) {
  *source_name = file.filename().string();
  try {
    if (!fs::is_regular_file(file)) throw std::runtime_error("not a file");
    if (fs::file_size(file) > (1 << 20)) throw std::runtime_error("larger than 1 MiB");
    std::string text = support::read_file(file);
    if (file.extension() == ".diff") {
      text = apply_to_solution(support::read_file(lesson.dir / lesson.solution_file), text);
      *source_name = file.stem().string() + ".cu";
    }
    if (*source_name == "cudalab_main.cu" || *source_name == "lesson.h")
      *source_name = "student.cu";
    std::ofstream(scratch / *source_name) << text;
    fs::copy_file(lesson.dir / "lesson.h", scratch / "lesson.h");
  } catch (const std::exception& e) {
    return file.string() + ": " + e.what();
  }
  return "";
}

// The judge's tests (and, with rubrics on, the lesson's method rubrics after
// them) into rec->tests, and the functions of the student's file they call
// into *calls. "" when it went well, else why the lesson cannot be graded.
std::string list_tests(const Lesson& lesson, const GradeOptions& o, const Session& session,
                       GradeRecord* rec, std::vector<std::string>* calls) {
  support::ProcessResult list = support::run_process({session.judge().string(), "--list"}, 60);
  std::istringstream in(list.output);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] != '{') continue;
    try {
      json j = json::parse(line);
      if (j.contains("calls")) {
        *calls = j["calls"].get<std::vector<std::string>>();
        continue;
      }
      TestRecord t;
      t.name = j.at("name").get<std::string>();
      t.description = j.value("description", "");
      t.visibility = j.value("visibility", "visible");
      t.max_score = j.at("points").get<double>();
      t.extra_credit = j.value("extra_credit", false);
      rec->tests.push_back(t);
    } catch (const std::exception&) {
    }
  }
  if (list.exit_code != 0 || rec->tests.empty() || calls->empty())
    return "the judge " + session.judge().string() +
           " did not list its tests: " + last_chars(list.output, 2000);
  auto has_test = [&](const std::string& name, bool rubrics_too) {
    return std::any_of(rec->tests.begin(), rec->tests.end(), [&](const TestRecord& t) {
      return t.name == name && (rubrics_too || t.kind != "rubric");
    });
  };
  for (const Rubric& r : lesson.rubrics) {
    if (!has_test(r.test, true))
      return "lesson " + lesson.name + ": rubric " + r.name + " names test " + r.test +
             ", which the judge does not have";
    if (!o.rubrics) continue;
    TestRecord t;
    t.name = r.name;
    t.description = r.description;
    t.kind = "rubric";
    t.max_score = r.points;
    rec->tests.push_back(t);
  }
  for (const std::string& name : lesson.race_checked)
    if (!has_test(name, false))
      return "lesson " + lesson.name + ": race_checked names test " + name +
             ", which the judge does not have";
  return "";
}

// The main that serves the judge: it calls these functions of the student's
// file.
std::string judge_main(const std::vector<std::string>& calls) {
  std::string text =
      "// Made by cudalab: the judge calls these functions of the student's file.\n"
      "#include \"cudalab/framework/grading.h\"\n#include "
      "\"cudalab/framework/submission.h\"\n#include "
      "\"lesson.h\"\n";
  for (const auto& c : calls) text += "CUDALAB_SERVE(" + c + ")\n";
  text += "int main() { return cudalab::grading::serve_judge(); }\n";
  return text;
}

// One build of the program, in the sandbox: by nvcc for the GPU or by
// cudalab-cc for the simulator.
struct ProgramBuild {
  const GradeOptions& o;
  const Sandbox& sandbox;    // where the graded program builds and runs
  const Sandbox& simulated;  // the same without the GPU, for the simulator's build
  const Sandbox& linking;    // the simulator's build, seeing the cached main's folder too
  fs::path main_object;      // the judge's main compiled once ("": compiled here)
  std::string source_name;

  support::ProcessResult run(bool gpu, const std::string& program) const {
    if (!gpu && !o.gpu && !main_object.empty()) return run_in_two_steps(program);
    std::vector<std::string> cmd;
    if (gpu)
      cmd = {support::find_program("nvcc", {"/usr/local/cuda/bin"}),
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
    if (!gpu && o.one_compile_at_a_time) cmd.insert(cmd.begin() + 1, "--one-at-a-time");
    cmd.push_back(sandbox.inside("cudalab_main.cu"));
    cmd.push_back(sandbox.inside(source_name));
    cmd.push_back(gpu ? CUDALAB_FRAMEWORK_GPU_LIBRARY : CUDALAB_FRAMEWORK_LIBRARY);
    cmd.insert(cmd.end(), {"-o", sandbox.inside(program)});
    return in_sandbox(cmd, gpu ? sandbox : simulated);
  }

  // The simulator's build with the judge's main compiled already: the
  // student's file compiled alone (its object and instrumented twin, which
  // are kept by what they were compiled from, so that a file graded again
  // is not compiled again: build_cache.cpp), then linked with that main.
  support::ProcessResult run_in_two_steps(const std::string& program) const {
    const std::string object = "cudalab_student.o";
    std::vector<std::string> cc = {CUDALAB_CC_PATH};
    if (o.one_compile_at_a_time) cc.push_back("--one-at-a-time");
    const std::vector<std::string> flags = {"-O2", "-I/submission",
                                            "-I" CUDALAB_FRAMEWORK_INCLUDE_DIR};
    const fs::path scratch = sandbox.scratch();
    // What the compile reads (--one-at-a-time changes only how it runs).
    std::string what = source_name + '\n' + support::read_file(scratch / source_name);
    what += std::string(1, '\0') + support::read_file(scratch / "lesson.h");
    for (const auto& f : flags) what += std::string(1, '\0') + f;
    const KeptObjects kept(what);
    if (!kept.take(scratch / object)) {
      std::vector<std::string> compile = cc;
      compile.insert(compile.end(), flags.begin(), flags.end());
      compile.insert(compile.end(),
                     {"-c", sandbox.inside(source_name), "-o", sandbox.inside(object)});
      support::ProcessResult b = in_sandbox(compile, simulated);
      if (b.exit_code != 0 || b.timed_out) return b;
      if (!fs::exists(scratch / object) || !fs::exists(scratch / (object + ".instrumented"))) {
        // Not the file's fault, but said rather than left blank.
        b.exit_code = 1;
        b.output += "cudalab-cc ended without error but did not write " + object +
                    " and its instrumented twin\n";
        return b;
      }
      // Kept before any of the submission's code runs (the program could
      // otherwise change them in its folder).
      kept.keep(scratch / object);
    }
    std::vector<std::string> link = cc;
    link.insert(link.end(), {"-O2", main_object.string(), sandbox.inside(object),
                             CUDALAB_FRAMEWORK_LIBRARY, "-o", sandbox.inside(program)});
    return in_sandbox(link, linking);
  }

  // `cmd` run in `where`, with the build's limits.
  support::ProcessResult in_sandbox(const std::vector<std::string>& cmd,
                                    const Sandbox& where) const {
    SandboxLimits limits = o.limits;
    limits.cpu_seconds = o.build_seconds;
    limits.memory_mib = o.build_memory_mib;
    support::ProcessResult b =
        support::run_process(where.wrap(cmd, {}, limits), o.build_seconds + 10, 64 << 10);
    if (b.exit_code != 0 && b.output.rfind("bwrap: ", 0) == 0) {
      // The sandbox itself did not start (the machine, not the file): once more.
      sleep(1);
      b = support::run_process(where.wrap(cmd, {}, limits), o.build_seconds + 10, 64 << 10);
    }
    return b;
  }

  // What the compiler said, for the student.
  std::string compiler_said(const support::ProcessResult& b) const {
    std::string said = safe_text(b.output, 8000);
    if (b.timed_out)
      said += "\n(the compiler ran for more than " + std::to_string(int(o.build_seconds)) +
              " seconds and was stopped: very deep templates or constexpr loops?)\n";
    else if (b.signal || b.exit_code > 128)
      said += "\n(the compiler was stopped: it used more than its " +
              std::to_string(o.build_memory_mib) + " MiB of memory or its time)\n";
    return said;
  }

  // Whether a build failed for the machine's sake, not the file's: the
  // sandbox or the compiler itself could not start ("" when not).
  std::string machine_problem(const support::ProcessResult& b) const {
    if (b.exit_code == 0) return "";
    if (b.output.rfind("bwrap: ", 0) == 0)
      return "the sandbox could not start: " + last_chars(b.output, 500);
    if (const size_t at = b.output.find("cudalab-cc: cannot run "); at != std::string::npos)
      return "the simulator's compiler cannot run on this machine (" +
             b.output.substr(at, b.output.find('\n', at) - at) + "): install it (./setup.sh does)" +
             (o.gpu ? std::string(", or grade on the GPU without the method rubrics, which "
                                  "need it (--no-rubrics)")
                    : std::string());
    return "";
  }
};

// The graded tests, each against a fresh process of the program. A failing
// one runs again under the checks (the first visible one), a race-checked
// one that passed is checked for lost updates. `no_simulator`: why the
// simulator's build is missing ("" when it is there).
void run_graded_tests(const Lesson& lesson, const GradeOptions& o, const Session& session,
                      const Session& on_simulator, const std::string& no_simulator,
                      TimeBudget* budget, GradeRecord* rec, const TestDone& done) {
  bool diagnosis_ran = false;
  std::string diagnosed;  // the test whose rerun under the checks found problems
  for (auto& t : rec->tests) {
    if (t.kind != "test") continue;
    const double limit = budget->next();
    if (limit < 0.5) {
      t.verdict = "not run";
      t.output =
          "Not run: the submission's time ran out (all its tests together get twice "
          "the per-test limit, and one that never ends gets one limit in all, not one "
          "per test).\n";
    } else {
      const Judged j = session.run(t.name, limit, {});
      fill_from_judge(&t, j);
      budget->spent(limit, t.seconds, timed_out(j));
      if (limit < o.test_seconds && t.verdict == "timed out")
        t.output += "(This test had only " + std::to_string(int(limit + 0.5)) +
                    (limit < 1.5 ? " second" : " seconds") + ": an earlier test never ended.)\n";
      std::string lost_updates;
      if (t.status == "passed" && no_simulator.empty() &&
          std::find(lesson.race_checked.begin(), lesson.race_checked.end(), t.name) !=
              lesson.race_checked.end())
        lost_updates = check_for_lost_updates(on_simulator, o, budget, &t);
      // The first visible test that fails runs again under the checks; the
      // others say where to look.
      if (o.diagnose && no_simulator.empty() && worth_diagnosing(t)) {
        if (!diagnosis_ran) {
          diagnosis_ran = true;  // once: the next failing test has the same cause, mostly
          const std::string listed = t.output;
          if (!lost_updates.empty()) t.output = lost_updates;  // the checks list the lines
          if (diagnose(on_simulator, o, budget, &t) > 0)
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
}

// The method rubrics: a passing test again on the simulator, under the
// checks (their findings in a report) or traced and measured.
void run_rubrics(const Lesson& lesson, const Session& on_simulator, const fs::path& scratch,
                 const std::string& no_simulator, TimeBudget* budget, GradeRecord* rec,
                 const TestDone& done) {
  for (auto& t : rec->tests) {
    if (t.kind != "rubric") continue;
    const Rubric& r = *std::find_if(lesson.rubrics.begin(), lesson.rubrics.end(),
                                    [&](const Rubric& x) { return x.name == t.name; });
    const TestRecord& plain = *std::find_if(rec->tests.begin(), rec->tests.end(),
                                            [&](const TestRecord& x) { return x.name == r.test; });
    const double limit = budget->next();
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
      const std::string report = r.name + (r.checks.empty() ? ".trace" : ".findings.json");
      std::error_code ec;
      fs::remove(scratch / report, ec);
      const Sandbox& sandbox = on_simulator.sandbox();
      std::vector<std::string> env =
          r.checks.empty()
              ? std::vector<std::string>{"CUDALAB_TRACE=" + sandbox.inside(report)}
              : std::vector<std::string>{"CUDALAB_CHECK=" + r.checks,
                                         "CUDALAB_CHECK_JSON=" + sandbox.inside(report)};
      // A predicted time needs counts, not results: a sample of each
      // launch's blocks, as cudalab predict runs (the test's own results are
      // then not computed; it passed in its own run).
      if (r.predicted()) env.push_back("CUDALAB_TRACE_SAMPLE=64");
      const Judged j = on_simulator.run(r.test, limit, env);
      TestRecord rerun = t;
      fill_from_judge(&rerun, j);
      budget->spent(limit, rerun.seconds, timed_out(j));
      t.seconds = rerun.seconds;
      if (r.checks.empty())
        judge_metric(r, rerun, scratch / report, &t);
      else
        judge_checks(r, on_simulator, rerun, printed_of(j), scratch / report, &t);
    }
    if (done) done(t);
  }
}

}  // namespace

GradeRecord grade_submission(const Lesson& lesson, const fs::path& file, const GradeOptions& o,
                             const TestDone& done) {
  const double started = support::now_s();
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
    rec.seconds = support::now_s() - started;
    return rec;
  };
  auto error = [&](std::string why) {
    rec.status = "error";
    rec.error = std::move(why);
    return finish();
  };
  Scratch scratch;
  // What a build sees (on a GPU also the simulator's, for the rubrics).
  std::vector<std::string> toolchain = simulator_toolchain();
  if (o.gpu) toolchain.push_back(CUDALAB_FRAMEWORK_GPU_LIBRARY);
  const std::vector<std::string> out_of_sight = {lessons_root().string(), CUDALAB_BIN_DIR};
  const Sandbox sandbox(scratch.path, toolchain, out_of_sight, o.confined, o.gpu, o.sandbox_uid);
  // Where the simulator's build runs: the same, without the GPU.
  const Sandbox simulated(scratch.path, toolchain, out_of_sight, o.confined, false, o.sandbox_uid);

  std::string source_name;
  if (std::string why = take_submission(lesson, file, scratch.path, &source_name); !why.empty())
    return error(why);

  // The tests, and the functions of the student's file they call.
  // The graded tests run the program built for where the grading is (GPU or
  // simulator); the method rubrics and the picture need the simulator's.
  const Session session(lesson, o, sandbox, "program");
  const Session on_simulator(lesson, o, simulated, o.gpu ? "program_sim" : "program.instrumented",
                             &session);
  if (!fs::exists(session.judge()))
    return error("the judge " + session.judge().string() +
                 " is missing: build it with cmake --build --preset default");
  std::vector<std::string> calls;
  if (std::string why = list_tests(lesson, o, session, &rec, &calls); !why.empty())
    return error(why);

  // The program: the student's file and a main that serves the judge.
  const std::string main_text = judge_main(calls);
  std::ofstream(scratch.path / "cudalab_main.cu") << main_text;
  // On the simulator, the main compiled once per lesson; the student's file
  // is then the only compile, plain and instrumented side by side. Its link
  // sees that main's folder of the grade cache (read-only, as the toolchain),
  // and no other: the cache holds other lessons' judges and other files'
  // objects.
  const fs::path main_object = o.gpu ? fs::path() : cached_main_object(lesson, main_text);
  std::vector<std::string> with_main = toolchain;
  if (!main_object.empty()) with_main.push_back(main_object.parent_path().string());
  const Sandbox linking(scratch.path, with_main, out_of_sight, o.confined, false, o.sandbox_uid);
  const ProgramBuild build{o, sandbox, simulated, linking, main_object, source_name};
  sandbox.hand_over();
  if (o.gpu && support::find_program("nvcc", {"/usr/local/cuda/bin"}).empty())
    return error("--gpu needs nvcc, which is on neither PATH nor /usr/local/cuda/bin");
  const support::ProcessResult b = build.run(o.gpu, "program");
  if (const std::string why = build.machine_problem(b); !why.empty()) return error(why);
  if (b.exit_code != 0 || b.timed_out || !fs::exists(scratch.path / "program") ||
      (!o.gpu && !fs::exists(scratch.path / "program.instrumented"))) {
    rec.status = "did_not_compile";
    rec.compiler_output = build.compiler_said(b);
    for (auto& t : rec.tests) {
      t.verdict = "did not compile";
      t.output = "Your file did not compile.\n";
      if (done) done(t);
    }
    return finish();
  }
  // On a GPU, the simulator's build too, for the rubrics and the picture.
  std::string no_simulator;  // why there is none
  if (o.gpu && ((o.rubrics && !lesson.rubrics.empty()) || !o.picture_path.empty() ||
                !o.trace_path.empty() || o.diagnose)) {
    const support::ProcessResult sb = build.run(false, "program_sim");
    if (const std::string why = build.machine_problem(sb); !why.empty()) return error(why);
    if (sb.exit_code != 0 || sb.timed_out || !fs::exists(scratch.path / "program_sim"))
      no_simulator =
          "Your file builds with nvcc but not for the simulator, whose checks and "
          "traces this needs. The simulator's compiler said:\n" +
          build.compiler_said(sb);
  }

  TimeBudget budget(o.test_seconds);
  run_graded_tests(lesson, o, session, on_simulator, no_simulator, &budget, &rec, done);
  run_rubrics(lesson, on_simulator, scratch.path, no_simulator, &budget, &rec, done);
  if (!o.picture_path.empty() || !o.trace_path.empty())
    rec.picture_note = no_simulator.empty() ? take_picture(lesson, on_simulator, o, &budget, &rec)
                                            : "the file does not build for the simulator";
  rec.exit_seconds = session.exit_seconds();
  return finish();
}

// Every field, with its default when a record lacks it.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TestRecord, name, description, visibility, kind,
                                                status, verdict, output, findings, score, max_score,
                                                seconds, extra_credit, predicted_us)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GradeRecord, lesson, file, status, compiler_output,
                                                error, tests, score, max_score, seconds,
                                                exit_seconds, seed, sandbox, picture_test,
                                                picture_note)

json record_json(const GradeRecord& r) { return utf8_json(r); }

GradeRecord record_from_json(const json& j) { return j.get<GradeRecord>(); }

}  // namespace cudalab::cli
