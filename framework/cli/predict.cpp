// cudalab predict: each launch's time on a GPU, predicted from a trace of a
// run on the simulator (predict/README.md has the model). Given a program
// instead of a trace, it runs the program with a sample of each launch's
// blocks traced (CUDALAB_TRACE_SAMPLE), so that GPU-sized launches take
// seconds, then predicts from that trace.
#include "cudalab/predict/predict.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>

#include "cli.h"
#include "cudalab/support/files.h"
#include "cudalab/support/process.h"

namespace cudalab::cli {
namespace {

// While a program runs under a prediction, and its trace is read: if this
// process is ended by a signal, its program's process group is killed and
// the trace removed (destructors do not run then). Signals that were
// ignored stay ignored.
char g_trace_path[4096];
volatile sig_atomic_t g_program_group = 0;
void stop_and_remove_trace(int sig) {
  if (g_program_group > 0) kill(-g_program_group, SIGKILL);
  unlink(g_trace_path);
  signal(sig, SIG_DFL);
  raise(sig);
}
class SignalCleanup {
 public:
  explicit SignalCleanup(const std::string& trace) {
    std::snprintf(g_trace_path, sizeof(g_trace_path), "%s", trace.c_str());
    struct sigaction a = {};
    a.sa_handler = stop_and_remove_trace;
    sigemptyset(&a.sa_mask);
    for (size_t i = 0; i < std::size(kSignals); ++i) {
      sigaction(kSignals[i], nullptr, &old_[i]);
      if (old_[i].sa_handler != SIG_IGN) sigaction(kSignals[i], &a, nullptr);
    }
  }
  ~SignalCleanup() {
    for (size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &old_[i], nullptr);
    g_program_group = 0;
  }
  SignalCleanup(const SignalCleanup&) = delete;
  SignalCleanup& operator=(const SignalCleanup&) = delete;

 private:
  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction old_[3] = {};
};

// A trace larger than this stops the predicted run: a program that loops
// (its own loop that waits for a kernel's result, which the sample did not
// compute) would fill the disk.
constexpr uintmax_t kMaxTraceBytes = uintmax_t(4) << 30;

std::string dims(const trace::Dim3& d) {
  std::ostringstream s;
  if (d.y == 1 && d.z == 1)
    s << d.x;
  else
    s << "(" << d.x << "," << d.y << "," << d.z << ")";
  return s.str();
}

// 2 -> "2nd", 3 -> "3rd", 11 -> "11th".
std::string ordinal(int n) {
  const int tens = n % 100, ones = n % 10;
  const char* suffix = (tens >= 11 && tens <= 13) ? "th"
                       : ones == 1                ? "st"
                       : ones == 2                ? "nd"
                       : ones == 3                ? "rd"
                                                  : "th";
  return std::to_string(n) + suffix;
}

}  // namespace

nlohmann::json prediction_json(const predict::Prediction& p) {
  nlohmann::json j;
  j["covered"] = p.covered;
  if (!p.covered) {
    j["not_covered"] = p.not_covered;
    return j;
  }
  j["kernel_us"] = p.kernel_seconds * 1e6;
  j["event_us"] = p.event_seconds * 1e6;
  j["bound"] = p.bound;
  j["blocks_per_multiprocessor"] = p.blocks_per_multiprocessor;
  j["occupancy"] = p.occupancy;
  for (const auto& t : p.terms)
    j["terms"].push_back({{"name", t.name}, {"us", t.seconds * 1e6}, {"figures", t.figures}});
  return j;
}

namespace {

// The lesson's kernels measured on the GPU, beside their predictions: what
// the lesson's README quotes, for the launches of the shapes measured.
struct Predicted {
  const trace::Launch* launch;
  predict::Prediction p;
  int inputs = 1, input_sets = 1;  // its data, of its kernel and shape's
};
void beside_measured(const std::vector<Predicted>& runs, const predict::Gpu& gpu,
                     const std::string& lesson) {
  std::string file;
  const std::vector<predict::Measured> measured =
      predict::measured_lesson_kernels(gpu.key, lesson, &file);
  if (measured.empty()) {
    std::cout << "\nNo time of " << lesson << "'s kernels measured on an " << gpu.name
              << " is kept (" << fs::path(file).filename().string()
              << " in predict/calibration): the predictions above stand alone.\n";
    return;
  }
  std::cout << "\nBeside the " << gpu.name << "'s own times (" << measured.front().how
            << ", on a real " << gpu.name << ": predict/calibration/"
            << fs::path(file).filename().string() << "):\n";
  char line[256];
  std::snprintf(line, sizeof(line), "  %-40s %11s %11s  %s\n", "kernel <<<blocks, threads>>>",
                "predicted", "measured", "predicted / measured");
  std::cout << line;
  for (const auto& [l, p, inputs, input_sets] : runs) {
    const uint64_t blocks = uint64_t(l->grid.x) * l->grid.y * l->grid.z,
                   threads = uint64_t(l->block.x) * l->block.y * l->block.z;
    const std::string shape = l->kernel + " <<<" + std::to_string(blocks) + ", " +
                              std::to_string(threads) + ">>>" +
                              (input_sets > 1 ? ", data " + std::to_string(inputs) : "");
    // The launches measured on the same data when the GPU's were told
    // apart so (lesson_times.sh), else all of that kernel and shape.
    const predict::Measured* m = nullptr;
    for (const auto& x : measured)
      if (x.kernel == l->kernel && x.blocks == blocks && x.threads_per_block == threads &&
          (x.input_sets == 0 || (x.input_sets == input_sets && x.inputs == inputs)) &&
          (!m || m->input_sets == 0))
        m = &x;
    const std::string predicted = p.covered ? predict::time_text(p.kernel_seconds) : "none";
    if (!m) {
      std::snprintf(line, sizeof(line), "  %-40s %11s %11s  (not measured at this shape)\n",
                    shape.c_str(), predicted.c_str(), "");
    } else if (!p.covered) {
      std::snprintf(line, sizeof(line), "  %-40s %11s %11s\n", shape.c_str(), predicted.c_str(),
                    predict::time_text(m->seconds).c_str());
    } else {
      std::snprintf(line, sizeof(line), "  %-40s %11s %11s  %.2f\n", shape.c_str(),
                    predicted.c_str(), predict::time_text(m->seconds).c_str(),
                    p.kernel_seconds / m->seconds);
    }
    std::cout << line;
  }
}

}  // namespace

int predict_trace(const std::string& path, const std::string& gpu_key, bool as_json,
                  const std::string& lesson) {
  std::string why;
  const auto gpu = predict::load_gpu(gpu_key, &why);
  if (!gpu) {
    std::cerr << "cudalab predict: " << why << "\n";
    return 2;
  }
  trace::Trace t;
  try {
    t = trace::read_trace(path);
  } catch (const trace::TraceError& e) {
    std::cerr << "cudalab predict: " << e.what() << "\n";
    return 1;
  }
  if (t.launches.empty()) {
    std::cerr << "cudalab predict: " << path << " has no kernel launch to predict\n";
    return 1;
  }
  // Launches of one kernel with one shape (from one call) are one line: a
  // benchmark repeats them (the first one's figures). A sampled launch of
  // that kernel and shape recorded again (a run of the program traces one
  // anew when the bytes it loads have changed: the same kernel on other
  // inputs) starts a line of its own, its `inputs` the count of such lines
  // so far, unless its figure is the line's. In a trace of whole launches
  // (no sample), the first of each is the line's.
  struct Group {
    const trace::Launch* first = nullptr;
    int count = 0;
    int traced = 1;  // launches recorded (the others repeat one of them)
    int inputs = 1;
    predict::Work work;
    predict::Prediction p;
  };
  std::vector<Group> groups;
  std::map<std::string, size_t> by;  // the latest line of each kernel and shape
  // A call (in a template, or a macro) that launches other kernels (other
  // instantiations, whose name as written is the same): each is a kernel
  // of its own, numbered in the order the call first launched it.
  std::map<std::string, std::vector<uint64_t>> codes_of_call;
  auto call_of = [](const trace::Launch& l) {
    return l.kernel + "@" + l.file + ":" + std::to_string(l.line);
  };
  auto kernel_number = [&](const trace::Launch& l) {
    std::vector<uint64_t>& codes = codes_of_call[call_of(l)];
    auto at = std::find(codes.begin(), codes.end(), l.code);
    if (at == codes.end()) at = codes.insert(codes.end(), l.code);
    return size_t(at - codes.begin()) + 1;
  };
  std::map<const trace::Launch*, size_t> numbers;
  for (const trace::Launch& l : t.launches) numbers[&l] = kernel_number(l);
  // The kernel's name as written, and which of the call's kernels it is
  // where the call launched more than one.
  auto name_of = [&](const trace::Launch& l) {
    if (codes_of_call[call_of(l)].size() < 2) return l.kernel;
    return l.kernel + " (the " + ordinal(int(numbers[&l])) + " kernel its call at line " +
           std::to_string(l.line) + " launches)";
  };
  for (const trace::Launch& l : t.launches) {
    const std::string key =
        call_of(l) + "#" + std::to_string(numbers[&l]) + " " + dims(l.grid) + "/" + dims(l.block);
    // Recorded nothing (like one before), or whole (a repeat is then only
    // told apart by a sample: a small launch, a cooperative one).
    const bool repeat = !l.sampled || l.sample.empty();
    auto it = by.find(key);
    if (it == by.end() || !repeat) {
      Group g;
      g.first = &l;
      g.inputs = it == by.end() ? 1 : groups[it->second].inputs + 1;
      g.p = predict::predict_launch(t, size_t(&l - t.launches.data()), *gpu, &g.work);
      // New inputs that give the same figure (within 2 %, the same bound:
      // a multi-pass kernel's partial sums from sampled blocks, say) add
      // to the line before.
      Group* before = it == by.end() ? nullptr : &groups[it->second];
      const bool same =
          before &&
          (before->p.covered ? g.p.covered && before->p.bound == g.p.bound &&
                                   std::abs(g.p.kernel_seconds - before->p.kernel_seconds) <=
                                       0.02 * before->p.kernel_seconds
                             : !g.p.covered && before->p.not_covered == g.p.not_covered);
      if (same) {
        ++before->traced;
      } else {
        by[key] = groups.size();
        groups.push_back(g);
      }
      it = by.find(key);
    }
    ++groups[it->second].count;
  }
  if (as_json) {
    nlohmann::json j;
    j["gpu"] = gpu->name;
    if (!gpu->derived.empty()) j["gpu_derived"] = gpu->derived;
    for (const Group& g : groups) {
      nlohmann::json x = prediction_json(g.p);
      x["kernel"] = g.first->kernel;
      // Which of its call's kernels (1, 2, ...: instantiations of a
      // template the call launched, in the order it first did).
      x["kernel_of_call"] = numbers[g.first];
      x["launch"] = g.first->id;
      x["launches"] = g.count;
      x["inputs"] = g.inputs;
      x["traced"] = g.traced;
      x["grid"] = {g.first->grid.x, g.first->grid.y, g.first->grid.z};
      x["block"] = {g.first->block.x, g.first->block.y, g.first->block.z};
      x["sampled_blocks"] = g.work.sampled_blocks;
      // The launch's warp instructions as the model estimates them (scaled
      // up from the sample), for a check against a GPU's counts
      // (predict/calibration/instructions.py).
      x["warp_instructions"] = g.work.instructions;
      j["launches"].push_back(x);
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << "Predicted on an " << gpu->name << " (predict/calibration/" << gpu->key
            << ".json), from " << path << "\n";
  if (!gpu->derived.empty()) std::cout << "  its figures: " << gpu->derived << "\n";
  for (const Group& g : groups) {
    const trace::Launch& l = *g.first;
    std::cout << "\n" << l.kernel << "<<<" << dims(l.grid) << ", " << dims(l.block) << ">>>";
    if (name_of(l) != l.kernel) std::cout << name_of(l).substr(l.kernel.size());
    if (g.inputs > 1) std::cout << ", on its " << ordinal(g.inputs) << " set of input data";
    if (g.count > 1) std::cout << " (" << g.count << " launches like it; the first one's figures)";
    std::cout << "\n";
    if (g.work.sampled_blocks < g.work.blocks)
      std::cout << "  counted on " << g.work.sampled_blocks << " of its " << g.work.blocks
                << " blocks, scaled up\n";
    if (!g.p.covered) {
      std::cout << "  no prediction: " << g.p.not_covered << "\n";
      continue;
    }
    std::cout << "  " << predict::time_text(g.p.kernel_seconds) << " on the GPU ("
              << predict::time_text(g.p.event_seconds)
              << " with the launch, as CUDA events around it measure), bound by " << g.p.bound
              << "\n";
    char occ[128];
    std::snprintf(occ, sizeof(occ), "  %d blocks a multiprocessor at most, %.0f %% of its warps\n",
                  g.p.blocks_per_multiprocessor, 100 * g.p.occupancy);
    std::cout << occ;
    for (const auto& term : g.p.terms) {
      char line[128];
      std::snprintf(line, sizeof(line), "    %-34s %10s  ", term.name.c_str(),
                    predict::time_text(term.seconds).c_str());
      std::cout << line << term.figures << "\n";
    }
  }
  std::cout << "\nEach line is the time the launch's work would take at that one limit; the "
               "largest is the prediction. predict/README.md says how each is counted and what "
               "the model leaves out.\n";
  if (!lesson.empty()) {
    // The sets of inputs of each kernel and shape (as measured: whichever
    // call launched it).
    auto shape = [](const trace::Launch& l) {
      return l.kernel + dims(l.grid) + "/" + dims(l.block);
    };
    std::map<std::string, int> sets;
    for (const Group& g : groups) {
      int& n = sets[shape(*g.first)];
      n = std::max(n, g.inputs);
    }
    std::vector<Predicted> runs;
    for (const Group& g : groups) runs.push_back({g.first, g.p, g.inputs, sets[shape(*g.first)]});
    beside_measured(runs, *gpu, lesson);
  }
  return 0;
}

int predict_program(const std::vector<std::string>& argv, const std::string& gpu_key,
                    uint64_t sample, bool as_json, const std::string& lesson, double time_limit) {
  if (argv.empty()) {
    std::cerr << "cudalab predict: give a trace, or a program after --\n";
    return 2;
  }
  std::string why;
  if (!predict::load_gpu(gpu_key, &why)) {
    std::cerr << "cudalab predict: " << why << "\n";
    return 2;
  }
  support::TempFile trace(".trace");
  support::Child child;
  child.argv = argv;
  // Each kernel's first launch of each shape is recorded whole (the
  // sample's every access): the cap is the trace's size, not the sample's.
  child.env = {"CUDALAB_TRACE=" + trace.path.string(),
               "CUDALAB_TRACE_SAMPLE=" + std::to_string(sample),
               "CUDALAB_TRACE_MAX_ACCESSES=1000000000"};
  // With --json the program's own output goes to stderr: stdout is the JSON.
  if (as_json) child.fds = {{1, 2}};
  child.own_group = true;
  child.dies_with_parent = true;
  std::cerr << "cudalab predict: running " << argv[0] << " with " << sample
            << " blocks of each launch traced (what it prints of its own results and times is "
               "of that sample, not of a whole run) ...\n";
  const SignalCleanup cleanup(trace.path.string());
  const pid_t pid = support::start(child, &why);
  if (pid < 0) {
    std::cerr << "cudalab predict: " << why << "\n";
    return 127;
  }
  g_program_group = pid;
  // Waits for its end, but not past the time limit or the trace's size.
  support::Exit exit;
  const double started = support::now_s();
  std::string stopped;
  while (!support::ended(pid, &exit)) {
    std::error_code ec;
    if (time_limit > 0 && support::now_s() - started > time_limit) {
      char b[64];
      std::snprintf(b, sizeof(b), "%g", time_limit);
      stopped = std::string("it ran past the time limit, ") + b + " s (--time-limit)";
    } else if (fs::file_size(trace.path, ec) > kMaxTraceBytes && !ec) {
      stopped = "its trace grew past 4 GiB";
    }
    if (!stopped.empty()) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);  // (had it left the group)
      exit = support::wait_for(pid);
      break;
    }
    usleep(20 * 1000);
  }
  g_program_group = 0;
  if (!stopped.empty()) {
    std::cerr << "cudalab predict: stopped " << argv[0] << ": " << stopped
              << ". Under a prediction only a sample of each large launch's blocks runs, and a "
                 "large launch like one before runs none, so the program's results are not "
                 "computed: a loop that runs until its kernels' results say so (until they "
                 "converge, say) may never end. Predict a run with a fixed number of steps, or "
                 "give it more time.\n";
    return 1;
  }
  const int status = exit.status();
  if (!fs::exists(trace.path) || fs::file_size(trace.path) == 0) {
    std::cerr << "cudalab predict: the program left no trace (exit status " << status << ")\n";
    return status ? status : 1;
  }
  // Only a sample of each launch's blocks ran: the program's own results
  // are not computed, and a check of its own may fail. The prediction
  // stands when the trace is whole.
  if (status != 0)
    std::cerr << "cudalab predict: the program exited with status " << status
              << " (only a sample of each launch's blocks ran, so its results were not "
                 "computed: a check of its own may fail)\n";
  return predict_trace(trace.path.string(), gpu_key, as_json, lesson);
}

}  // namespace cudalab::cli
