// Every CUDALAB_* environment variable the runtime reads: parsed here, once
// each, the first time it is needed; a bad value ends the program with one
// message naming the variable, its value and what it accepts, and exit
// status kBadSettingExit. Unset and empty mean the same: the default. The
// parse_* functions only parse (the unit test calls them); the accessors
// read the environment.
#include "runtime/settings.h"

#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <sstream>
#include <thread>

#include "cudalab/trace/refused_calls.h"

namespace cudalab::rt {

namespace {

bool empty(const char* text) { return !text || !*text; }

template <class T>
Parsed<T> bad(std::string problem, std::string accepted) {
  Parsed<T> p;
  p.problem = std::move(problem);
  p.accepted = std::move(accepted);
  return p;
}

template <class T>
Parsed<T> good(T value) {
  Parsed<T> p;
  p.value = std::move(value);
  return p;
}

// A path (CUDALAB_CHECK_JSON, CUDALAB_TRACE): any text; "" when unset.
std::string path_setting(const char* name) {
  const char* text = std::getenv(name);
  return text ? text : "";
}

}  // namespace

std::string bad_setting_message(const char* name, const char* text, const std::string& problem,
                                const std::string& accepted) {
  return std::string("cudalab: ") + name + "=" + (text ? text : "") + " " + problem + ": " +
         accepted;
}

void exit_bad_setting(const char* name, const char* text, const std::string& problem,
                      const std::string& accepted) {
  std::fprintf(stderr, "%s\n", bad_setting_message(name, text, problem, accepted).c_str());
  std::exit(kBadSettingExit);
}

// ---- the checks ----------------------------------------------------------------------

Parsed<CheckFlags> parse_checks(const char* text) {
  CheckFlags c{false, false, false, false};
  if (empty(text)) return good(c);
  std::stringstream ss(text);
  for (std::string tool; std::getline(ss, tool, ',');) {
    const bool all = tool == "all";
    if (all || tool == "memcheck") c.memcheck = true;
    if (all || tool == "racecheck") c.racecheck = true;
    if (all || tool == "synccheck") c.synccheck = true;
    if (all || tool == "initcheck") c.initcheck = true;
    if (!all && tool != "memcheck" && tool != "racecheck" && tool != "synccheck" &&
        tool != "initcheck")
      return bad<CheckFlags>(
          "names '" + tool + "', which is not a check",
          "use memcheck, racecheck, synccheck, initcheck or all (several with commas)");
  }
  return good(c);
}

Parsed<std::optional<int>> parse_check_exit_code(const char* text) {
  if (empty(text)) return good(std::optional<int>());
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (errno || end == text || *end || v < 0 || v > 255 ||
      !std::isdigit(static_cast<unsigned char>(*text)))
    return bad<std::optional<int>>("is not an exit status", "give a whole number from 0 to 255");
  return good(std::optional<int>(int(v)));
}

Parsed<bool> parse_check_leaks(const char* text) { return good(!empty(text) && *text != '0'); }

const CheckSettings& check_settings() {
  static const CheckSettings settings = [] {
    CheckSettings s;
    s.requested = !empty(std::getenv("CUDALAB_CHECK"));
    if (!s.requested) return s;
    s.flags = read_setting("CUDALAB_CHECK", parse_checks);
    s.any = s.flags.memcheck || s.flags.racecheck || s.flags.synccheck || s.flags.initcheck;
    s.exit_code = read_setting("CUDALAB_CHECK_EXITCODE", parse_check_exit_code);
    s.json_path = path_setting("CUDALAB_CHECK_JSON");
    s.text = std::getenv("CUDALAB_CHECK");
    s.leaks = read_setting("CUDALAB_CHECK_LEAKS", parse_check_leaks);
    return s;
  }();
  return settings;
}

// ---- the device ----------------------------------------------------------------------

Parsed<DeviceModel> parse_device(const char* text) {
  std::string name = empty(text) ? "h100" : text;
  for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (name == "h100") return good(DeviceModel::kH100);
  if (name == "h200") return good(DeviceModel::kH200);
  if (name == "a100") return good(DeviceModel::kA100);
  return bad<DeviceModel>("is not a GPU the simulator knows",
                          "choose h100 (the default), h200 or a100");
}

DeviceModel device_setting() {
  static const DeviceModel model = read_setting("CUDALAB_DEVICE", parse_device);
  return model;
}

// ---- the schedule --------------------------------------------------------------------

Parsed<Schedule> parse_schedule(const char* text) {
  Schedule r;
  if (empty(text) || std::strcmp(text, "in-order") == 0) return good(r);
  const std::string v = text;
  const char* accepted = "use in-order (the default), reverse, random or random:SEED";
  if (v == "reverse") {
    r.kind = Schedule::kReverse;
  } else if (v == "random") {
    r.kind = Schedule::kRandom;
    r.seed = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) % 1000000;
  } else if (v.rfind("random:", 0) == 0) {
    r.kind = Schedule::kRandom;
    char* end = nullptr;
    errno = 0;
    r.seed = std::strtoull(v.c_str() + 7, &end, 10);
    if (errno || !end || *end || v.size() == 7)
      return bad<Schedule>("has a seed after 'random:' that is not a whole number",
                           std::string(accepted) + ", with SEED a whole number as in random:42");
  } else {
    return bad<Schedule>("is not a schedule", accepted);
  }
  return good(r);
}

const Schedule& schedule() {
  static const Schedule s = [] {
    const Schedule r = read_setting("CUDALAB_SCHEDULE", parse_schedule);
    if (r.kind == Schedule::kRandom)
      std::fprintf(
          stderr,
          "cudalab: threads run in a random order, seed %llu (CUDALAB_SCHEDULE=random:%llu "
          "runs this order again)\n",
          (unsigned long long)r.seed, (unsigned long long)r.seed);
    return r;
  }();
  return s;
}

// ---- lock-step warps -----------------------------------------------------------------

namespace {

// An on/off value in any case: on, 1, yes, true or off, 0, no, false
// (nullopt: none of them). `text` is the variable's text, `unset` its default.
std::optional<bool> on_or_off(const char* text, const char* unset, std::string* lowered) {
  std::string v = empty(text) ? unset : text;
  for (char& c : v) c = char(std::tolower(static_cast<unsigned char>(c)));
  *lowered = v;
  if (v == "on" || v == "1" || v == "yes" || v == "true") return true;
  if (v == "off" || v == "0" || v == "no" || v == "false") return false;
  return std::nullopt;
}

}  // namespace

Parsed<Lockstep> parse_lockstep(const char* text) {
  std::string v;
  const std::optional<bool> on = on_or_off(text, "auto", &v);
  if (on) return good(*on ? Lockstep::kOn : Lockstep::kOff);
  if (v == "auto") return good(Lockstep::kAuto);
  return bad<Lockstep>("is not a lock-step mode",
                       "use auto (the default: on for warp-synchronous code), on or off");
}

Lockstep lockstep_setting() {
  static const Lockstep mode = read_setting("CUDALAB_LOCKSTEP", parse_lockstep);
  return mode;
}

// ---- block loops ---------------------------------------------------------------------

Parsed<BlockLoops> parse_block_loops(const char* text) {
  std::string v;
  if (const std::optional<bool> on = on_or_off(text, "on", &v))
    return good(*on ? BlockLoops::kOn : BlockLoops::kOff);
  if (v == "narrow") return good(BlockLoops::kNarrow);
  return bad<BlockLoops>("is not on, off or narrow",
                         "use on (the default: a block's threads as loops where the kernel "
                         "allows), off (a fiber per thread) or narrow (loops without the "
                         "processor's wide vector instructions)");
}

BlockLoops block_loops_setting() {
  static const BlockLoops mode = read_setting("CUDALAB_BLOCK_LOOPS", parse_block_loops);
  return mode;
}

// ---- the time limit ------------------------------------------------------------------

Parsed<double> parse_timeout(const char* text) {
  if (empty(text)) return good(0.0);
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (!end || *end || v <= 0)
    return bad<double>("is not a positive number of seconds",
                       "give the seconds a launch may run, as in 10 or 0.5 (unset: no time limit)");
  return good(v);
}

const TimeoutSetting& timeout_setting() {
  static const TimeoutSetting t = [] {
    TimeoutSetting r;
    r.seconds = read_setting("CUDALAB_TIMEOUT", parse_timeout);
    if (r.seconds > 0) r.text = std::getenv("CUDALAB_TIMEOUT");
    return r;
  }();
  return t;
}

// ---- the trace -----------------------------------------------------------------------

Parsed<uint64_t> parse_trace_max_accesses(const char* text) {
  if (empty(text)) return good(kDefaultTraceMaxAccesses);
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (!end || *end != 0 || v == 0 || !std::isdigit(static_cast<unsigned char>(*text)))
    return bad<uint64_t>("is not a positive number of accesses",
                         "give a whole number above 0 (the default is " +
                             std::to_string(kDefaultTraceMaxAccesses) + ")");
  return good(uint64_t(v));
}

Parsed<uint64_t> parse_trace_sample(const char* text) {
  if (empty(text)) return good(uint64_t(0));
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (!end || *end != 0 || !std::isdigit(static_cast<unsigned char>(*text)) || v > (1u << 20))
    return bad<uint64_t>("is not a number of blocks",
                         "give a whole number of blocks to run of each launch (0: all of them, "
                         "the default; at most 1048576)");
  return good(uint64_t(v));
}

Parsed<std::vector<std::pair<uint32_t, uint32_t>>> parse_trace_blocks(const char* text) {
  using Ranges = std::vector<std::pair<uint32_t, uint32_t>>;
  Ranges blocks;
  if (empty(text)) return good(blocks);
  const auto not_blocks = [] {
    return bad<Ranges>("is not a list of blocks",
                       "give linear block numbers and ranges, as in 0,5,10-12");
  };
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    const size_t dash = item.find('-');
    char* end = nullptr;
    errno = 0;
    const unsigned long first = std::strtoul(item.c_str(), &end, 10);
    if (errno || end == item.c_str() || (dash == std::string::npos ? *end != 0 : *end != '-'))
      return not_blocks();
    unsigned long last = first;
    if (dash != std::string::npos) {
      const char* from = item.c_str() + dash + 1;
      last = std::strtoul(from, &end, 10);
      if (errno || end == from || *end != 0 || last < first) return not_blocks();
    }
    if (last > UINT32_MAX) return not_blocks();
    blocks.emplace_back(uint32_t(first), uint32_t(last));
  }
  if (blocks.empty()) return not_blocks();
  return good(blocks);
}

const TraceSettings& trace_settings() {
  static const TraceSettings t = [] {
    TraceSettings r;
    r.path = path_setting("CUDALAB_TRACE");
    if (r.path.empty()) return r;
    r.max_accesses = read_setting("CUDALAB_TRACE_MAX_ACCESSES", parse_trace_max_accesses);
    r.blocks = read_setting("CUDALAB_TRACE_BLOCKS", parse_trace_blocks);
    if (!r.blocks.empty()) r.blocks_text = std::getenv("CUDALAB_TRACE_BLOCKS");
    r.sample = read_setting("CUDALAB_TRACE_SAMPLE", parse_trace_sample);
    return r;
  }();
  return t;
}

// ---- run-time compilation -----------------------------------------------------------

const RuntimeCompileSettings& runtime_compile_settings() {
  static const RuntimeCompileSettings r{path_setting("CUDALAB_NVRTC_CXX"),
                                        path_setting("CUDALAB_NVRTC_INCLUDE")};
  return r;
}

// ---- the workers ---------------------------------------------------------------------

Parsed<unsigned> parse_workers(const char* text) {
  if (empty(text)) {
    const unsigned n = std::thread::hardware_concurrency();
    return good(n ? n : 1u);
  }
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (!end || *end != 0 || v < 1 || v > 1024)
    return bad<unsigned>("is not a number from 1 to 1024",
                         "give how many worker threads run blocks (unset: one per core)");
  return good(unsigned(v));
}

unsigned workers_setting() {
  static const unsigned n = read_setting("CUDALAB_WORKERS", parse_workers);
  return n;
}

// ---- a graded run --------------------------------------------------------------------

namespace {

trace::ReportKey g_report_key{};
bool g_graded = false;
std::vector<std::string> g_started_with;  // the CUDALAB_ variables, as the run began

// A system call the sandbox's filter refused (cudalab/trace/refused_calls.h):
// the program is told which, once per call, and the call fails with EPERM.
void refused_call(int, siginfo_t* info, void* context) {
  static std::atomic<bool> told[std::size(trace::kRefusedCalls) + 1];
  const long number = info->si_syscall;
  size_t k = 0;
  while (k < std::size(trace::kRefusedCalls) && trace::kRefusedCalls[k].number != number) ++k;
  const char* name = k < std::size(trace::kRefusedCalls) ? trace::kRefusedCalls[k].name : "clone";
  static std::atomic<bool> told_why{false};
  if (!told[k].exchange(true)) {
    char text[512];
    const int n = std::snprintf(text, sizeof text,
                                "cudalab: the program called %s(), which graded runs refuse: it "
                                "failed with EPERM%s.\n",
                                name, told_why.exchange(true) ? "" : trace::kRefusedCallWhy);
    if (n > 0) (void)!write(2, text, std::min<size_t>(size_t(n), sizeof text - 1));
  }
  auto* uc = static_cast<ucontext_t*>(context);
#if defined(__x86_64__)
  uc->uc_mcontext.gregs[REG_RAX] = -EPERM;
#elif defined(__aarch64__)
  uc->uc_mcontext.regs[0] = uint64_t(-EPERM);
#else
  (void)uc;
#endif
}

// Runs before every constructor, the program's own among them
// (.preinit_array: the executable's, and the runtime is linked into it).
void read_a_graded_runs_settings(int, char**, char** envp) {
  // The C library sets `environ` after this runs: it is this array.
  if (!environ) environ = envp;
  const char* key = std::getenv("CUDALAB_REPORT_KEY");
  if (!key) return;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "CUDALAB_", 8) == 0) g_started_with.emplace_back(*e);
  g_graded = trace::parse_report_key(key, &g_report_key);
  struct sigaction refused {};
  refused.sa_sigaction = refused_call;
  refused.sa_flags = SA_SIGINFO;
  sigaction(SIGSYS, &refused, nullptr);
  (void)check_settings();
  (void)trace_settings();
  (void)timeout_setting();
  (void)workers_setting();
  // The key, out of the environment and out of /proc/self/environ (which
  // shows the bytes the program started with).
  std::memset(const_cast<char*>(key), '0', std::strlen(key));
  unsetenv("CUDALAB_REPORT_KEY");
}

[[gnu::used,
  gnu::section(".preinit_array")]] void (*const g_read_first)(int, char**,
                                                              char**) = read_a_graded_runs_settings;

}  // namespace

const trace::ReportKey* report_key() { return g_graded ? &g_report_key : nullptr; }

std::vector<std::string> environment_for_twin() {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (g_started_with.empty() || std::strncmp(*e, "CUDALAB_", 8) != 0) env.emplace_back(*e);
  env.insert(env.end(), g_started_with.begin(), g_started_with.end());
  return env;
}

}  // namespace cudalab::rt
