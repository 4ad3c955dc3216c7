// cudalab: the course's command.
//
//   cudalab list                       the lessons, in course order
//   cudalab check LESSON               grade your exercise.cu on the simulator
//   cudalab check LESSON --solution    grade the reference solution
//   cudalab check LESSON --file F.cu --json results.json
//
// A check builds the student's file with the lesson's grader (cudalab-cc,
// instrumented, so wrong elements can name the thread that wrote them), then
// runs each graded test in its own process with a time limit: a crash or a
// hang costs that test's points, never the others'.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cudalab_cli_config.h"
#include "metrics.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct Lesson {
  std::string name, title, summary;
  int order = 0;
  fs::path dir;
  std::string student_file = "exercise.cu", solution_file = "solution.cu";
  std::vector<std::string> grader_sources;
};

fs::path lessons_root() {
  if (const char* env = std::getenv("CUDALAB_LESSONS_DIR"); env && *env) return env;
  return CUDALAB_LESSONS_DIR;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Reads lesson.json; returns false with a reason when it is missing or bad.
bool load_lesson(const fs::path& dir, Lesson* l, std::string* why) {
  const fs::path meta = dir / "lesson.json";
  if (!fs::exists(meta)) {
    *why = meta.string() + " is missing";
    return false;
  }
  try {
    json j = json::parse(read_file(meta));
    l->dir = dir;
    l->name = j.at("name").get<std::string>();
    l->title = j.at("title").get<std::string>();
    l->summary = j.at("summary").get<std::string>();
    l->order = j.at("order").get<int>();
    l->student_file = j.value("student_file", l->student_file);
    l->solution_file = j.value("solution_file", l->solution_file);
    l->grader_sources = j.at("grader").get<std::vector<std::string>>();
  } catch (const std::exception& e) {
    *why = meta.string() + ": " + e.what();
    return false;
  }
  return true;
}

std::vector<Lesson> all_lessons() {
  std::vector<Lesson> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(lessons_root(), ec)) {
    if (!entry.is_directory() || !fs::exists(entry.path() / "lesson.json")) continue;
    Lesson l;
    std::string why;
    if (load_lesson(entry.path(), &l, &why))
      out.push_back(l);
    else
      std::cerr << "cudalab: skipping a lesson: " << why << "\n";
  }
  std::sort(out.begin(), out.end(), [](const Lesson& a, const Lesson& b) {
    return a.order != b.order ? a.order < b.order : a.name < b.name;
  });
  return out;
}

struct ProcessResult {
  int exit_code = -1;
  int signal = 0;
  bool timed_out = false;
  std::string output;  // stdout and stderr together
};

// Runs argv with a wall-clock limit, its output going to `log`.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s,
                          const fs::path& log) {
  ProcessResult r;
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
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

int check(const std::string& lesson_name, bool solution, const std::string& file,
          const std::string& json_path, double timeout_s, bool verbose) {
  const auto started = std::chrono::steady_clock::now();
  Lesson lesson;
  std::string why;
  const fs::path dir = lessons_root() / lesson_name;
  if (!fs::is_directory(dir) || !load_lesson(dir, &lesson, &why)) {
    std::cerr << "cudalab: there is no lesson '" << lesson_name << "'";
    if (!why.empty() && fs::is_directory(dir)) std::cerr << " (" << why << ")";
    std::cerr << ". The lessons are:\n";
    for (const auto& l : all_lessons()) std::cerr << "  " << l.name << "\n";
    return 2;
  }
  fs::path student =
      solution ? lesson.dir / lesson.solution_file : lesson.dir / lesson.student_file;
  if (!file.empty()) student = fs::absolute(file);
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
    if (!json_path.empty()) {
      outcomes.push_back({"Compilation", "the submission compiles", "visible", "failed",
                          tail(b.output, 8000), 0, 0});
      write_gradescope(json_path, outcomes, 0, "The submission did not compile.");
    }
    return 1;
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

  // 3. Run each test in its own process.
  double score = 0, max_score = 0;
  int passed = 0;
  std::cout << "\n";
  for (const auto& t : tests) {
    TestOutcome o;
    o.name = t.at("name").get<std::string>();
    o.description = t.value("description", "");
    o.visibility = t.value("visibility", "visible");
    o.max_score = t.at("points").get<double>();
    max_score += o.max_score;
    const fs::path result = work / (o.name + ".json");
    ProcessResult r =
        run_process({(work / "grader").string(), "--run", o.name, "--result", result.string()},
                    timeout_s, work / (o.name + ".log"));
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
    // What the program printed (kernel printf, simulator reports) helps.
    if (!r.output.empty() && (o.status != "passed" || verbose))
      o.output += "What the program printed:\n" + tail(r.output, 3000);
    score += o.score;
    if (o.status == "passed") ++passed;
    std::printf("  %-4s %4.1f/%-4.1f %s: %s\n", o.status == "passed" ? "pass" : "FAIL", o.score,
                o.max_score, o.name.c_str(), o.description.c_str());
    if (!o.output.empty() && (o.status != "passed" || verbose)) std::cout << indent(o.output);
    std::cout << std::flush;
    outcomes.push_back(o);
    if (!json_path.empty()) {
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      write_gradescope(json_path, outcomes, secs, "");
    }
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::ostringstream summary;
  summary << "total: " << score << " / " << max_score << " points";
  std::cout << "\n" << summary.str() << "\n";
  std::cout << passed << " passed, " << (tests.size() - passed) << " failed\n";
  if (!json_path.empty()) {
    write_gradescope(json_path, outcomes, secs, summary.str());
    std::cout << "results written to " << json_path << "\n";
  }
  return passed == static_cast<int>(tests.size()) ? 0 : 1;
}

// cudalab stats TRACE: the memory metrics of a recorded run, each next to
// the Nsight Compute metric it corresponds to.
int stats(const std::string& path, bool as_json) {
  using namespace cudalab::trace;
  Trace t;
  try {
    t = read_trace(path);
  } catch (const TraceError& e) {
    std::cerr << "cudalab: " << e.what() << "\n";
    return 1;
  }
  const auto kernels = memory_metrics(t);
  auto counts_json = [](const GlobalCounts& c) {
    return nlohmann::json{{"requests", c.requests},
                          {"sectors", c.sectors},
                          {"sectors_per_request", c.sectors_per_request()},
                          {"efficiency_percent", c.efficiency()},
                          {"bytes_requested", c.bytes},
                          {"bytes_moved", c.sectors * 32},
                          {"lanes_per_request", c.lanes_per_request()}};
  };
  auto shared_json = [](const SharedCounts& c) {
    return nlohmann::json{{"requests", c.requests},
                          {"wavefronts", c.wavefronts},
                          {"wavefronts_per_request", c.wavefronts_per_request()},
                          {"bank_conflicts", c.conflicts}};
  };
  auto steps_json = [](const StepCounts& c) {
    return nlohmann::json{{"steps", c.steps},
                          {"lanes_per_step", c.lanes_per_step()},
                          {"efficiency_percent", c.efficiency()},
                          {"divergent_branches", c.divergent},
                          {"flops_single", c.flops_single},
                          {"flops_double", c.flops_double}};
  };
  if (as_json) {
    nlohmann::json out = {{"trace", path}, {"kernels", nlohmann::json::array()}};
    for (const auto& k : kernels) {
      nlohmann::json lines = nlohmann::json::array();
      for (const auto& l : k.lines)
        lines.push_back({{"where", l.where},
                         {"global_loads", counts_json(l.loads)},
                         {"global_stores", counts_json(l.stores)},
                         {"shared_loads", shared_json(l.shared_loads)},
                         {"shared_stores", shared_json(l.shared_stores)},
                         {"warp_steps", steps_json(l.steps)}});
      out["kernels"].push_back({{"kernel", k.kernel},
                                {"launches", k.launches},
                                {"global_loads", counts_json(k.loads)},
                                {"global_stores", counts_json(k.stores)},
                                {"shared_loads", shared_json(k.shared_loads)},
                                {"shared_stores", shared_json(k.shared_stores)},
                                {"warp_steps", steps_json(k.steps)},
                                {"flops_counted", k.flops_counted},
                                {"flops", k.steps.flops()},
                                {"arithmetic_intensity", k.arithmetic_intensity()},
                                {"most_by_one_thread",
                                 {{"global_reads", k.most.global_reads},
                                  {"global_writes", k.most.global_writes},
                                  {"shared_reads", k.most.shared_reads},
                                  {"shared_writes", k.most.shared_writes}}},
                                {"lines", lines}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  if (t.accesses_total == 0)
    std::cout << "The trace has no memory accesses (was the program built with --fast? did "
                 "CUDALAB_TRACE_BLOCKS leave every block out?).\n";
  auto row = [](const char* what, const std::string& where, const GlobalCounts& c) {
    if (!c.requests) return;
    std::printf("  %-6s %-28s %10llu %12llu %9.2f %9.1f%%\n", what, where.c_str(),
                (unsigned long long)c.requests, (unsigned long long)c.sectors,
                c.sectors_per_request(), c.efficiency());
  };
  auto shared_row = [](const char* what, const std::string& where, const SharedCounts& c) {
    if (!c.requests) return;
    std::printf("  %-6s %-28s %10llu %12llu %9.2f %10llu\n", what, where.c_str(),
                (unsigned long long)c.requests, (unsigned long long)c.wavefronts,
                c.wavefronts_per_request(), (unsigned long long)c.conflicts);
  };
  for (const auto& k : kernels) {
    std::printf("\nkernel %s (%llu launch%s)\n", k.kernel.c_str(), (unsigned long long)k.launches,
                k.launches == 1 ? "" : "es");
    std::printf("  %-6s %-28s %10s %12s %9s %10s\n", "global", "line", "requests", "sectors",
                "sect/req", "efficiency");
    row("load", "all", k.loads);
    row("store", "all", k.stores);
    if (k.loads.requests || k.stores.requests)
      std::printf(
          "  %-6s %.1f of 32 lanes active per instruction; %llu bytes moved for %llu "
          "asked for\n",
          "",
          double(k.loads.lanes + k.stores.lanes) /
              double(std::max<uint64_t>(1, k.loads.requests + k.stores.requests)),
          (unsigned long long)((k.loads.sectors + k.stores.sectors) * 32),
          (unsigned long long)(k.loads.bytes + k.stores.bytes));
    for (const auto& l : k.lines) {
      row("load", l.where, l.loads);
      row("store", l.where, l.stores);
    }
    if (k.flops_counted)
      std::printf(
          "  %-6s %llu FLOPs (%llu single, %llu double precision): %.3f FLOPs per byte moved\n", "",
          (unsigned long long)k.steps.flops(), (unsigned long long)k.steps.flops_single,
          (unsigned long long)k.steps.flops_double, k.arithmetic_intensity());
    std::printf(
        "  most by one thread: %llu global reads, %llu global writes, %llu shared "
        "reads, %llu shared writes\n",
        (unsigned long long)k.most.global_reads, (unsigned long long)k.most.global_writes,
        (unsigned long long)k.most.shared_reads, (unsigned long long)k.most.shared_writes);
    if (k.steps.steps) {
      std::printf("  %-6s %-28s %10s %12s %9s %10s\n", "warps", "line", "steps", "lanes/step",
                  "efficiency", "divergent");
      auto steps_row = [](const std::string& where, const StepCounts& c) {
        if (!c.steps) return;
        std::printf("  %-6s %-28s %10llu %12.1f %8.1f%% %10llu\n", "", where.c_str(),
                    (unsigned long long)c.steps, c.lanes_per_step(), c.efficiency(),
                    (unsigned long long)c.divergent);
      };
      steps_row("all", k.steps);
      for (const auto& l : k.lines)
        if (!l.simulator_header && (l.steps.divergent || l.steps.lanes_per_step() < 31.95))
          steps_row(l.where, l.steps);
    }
    if (k.shared_loads.requests || k.shared_stores.requests) {
      std::printf("  %-6s %-28s %10s %12s %9s %10s\n", "shared", "line", "requests", "wavefronts",
                  "wave/req", "conflicts");
      shared_row("load", "all", k.shared_loads);
      shared_row("store", "all", k.shared_stores);
      for (const auto& l : k.lines) {
        shared_row("load", l.where, l.shared_loads);
        shared_row("store", l.where, l.shared_stores);
      }
    }
  }
  std::cout
      << "\nNsight Compute names them: requests = l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
         " (_st for stores), sectors = l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,\n"
         "sectors/request = their ratio (4 when a warp reads 32 consecutive floats), "
         "efficiency = bytes the lanes asked for / (sectors x 32).\n"
         "Shared: wavefronts = l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum, "
         "conflicts = l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum (_st for "
         "stores).\n"
         "Warps: a step is a warp running one basic block of the kernel; lanes/step = "
         "smsp__thread_inst_executed_per_inst_executed.ratio\n"
         "(Nsight Compute counts it per GPU instruction), divergent = "
         "smsp__sass_branch_targets_threads_divergent.sum (the GPU compiler turns short\n"
         "branches into predicated instructions, which do not count); lines are listed where "
         "lanes were idle or went different ways.\n"
         "FLOPs = smsp__sass_thread_inst_executed_op_fadd_pred_on.sum + _fmul_ + 2 x _ffma_ "
         "(and _dadd_, _dmul_, _dfma_ for double), counted in the\n"
         "compiled kernel (a division or square root counts 1); FLOPs per byte moved divides "
         "by global sectors x 32 (ncu's roofline divides by dram__bytes.sum,\n"
         "which the caches make smaller).\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cudalab: a CUDA C++ course whose kernels run on a GPU or on the CPU simulator"};
  app.require_subcommand(1);
  auto* list = app.add_subcommand("list", "list the lessons in course order");
  auto* chk = app.add_subcommand("check", "build a lesson's exercise and run its graded tests");
  std::string lesson, file, json_path;
  bool solution = false, verbose = false;
  double timeout = 60;
  chk->add_option("lesson", lesson, "the lesson, e.g. vector_add (see cudalab list)")->required();
  chk->add_flag("--solution", solution, "grade the lesson's reference solution instead");
  chk->add_option("--file", file, "grade this file instead of the lesson's exercise.cu")
      ->check(CLI::ExistingFile);
  chk->add_option("--json", json_path, "also write Gradescope's results.json here");
  chk->add_option("--timeout", timeout, "seconds each graded test may run (default 60)")
      ->check(CLI::PositiveNumber);
  chk->add_flag("-v,--verbose", verbose, "show every test's output, also when it passes");
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
    if (solution && !file.empty()) {
      std::cerr << "cudalab: --solution and --file cannot go together\n";
      return 2;
    }
    return check(lesson, solution, file, json_path, timeout, verbose);
  }
  if (*st) return stats(trace_path, stats_json);
  return 2;
}
