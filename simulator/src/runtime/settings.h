// The CUDALAB_* environment variables the runtime reads (settings.cpp), each
// parsed once, the first time it is needed. docs/simulator.md lists them.
// A bad value stops the program the same way for every variable: one line
// on stderr naming the variable, its value and what it accepts, and exit
// status kBadSettingExit. Not a public header.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/trace/report_key.h"

namespace cudalab::rt {

// The exit status of a program started with a bad CUDALAB_* value.
constexpr int kBadSettingExit = 2;

// A variable's value parsed from its text, or what is wrong with the text.
template <class T>
struct Parsed {
  T value{};
  std::string problem;   // "is not a schedule" ("": the text is good)
  std::string accepted;  // "use in-order (the default), reverse, random or random:SEED"
  bool ok() const { return problem.empty(); }
};

// "cudalab: NAME=TEXT PROBLEM: ACCEPTED"
std::string bad_setting_message(const char* name, const char* text, const std::string& problem,
                                const std::string& accepted);
// Prints bad_setting_message and exits with kBadSettingExit.
[[noreturn]] void exit_bad_setting(const char* name, const char* text, const std::string& problem,
                                   const std::string& accepted);

// Variable `name` parsed by `parse` (which gets nullptr when it is unset);
// a bad value ends the program.
template <class T>
T read_setting(const char* name, Parsed<T> (*parse)(const char*)) {
  const char* text = std::getenv(name);
  Parsed<T> p = parse(text);
  if (!p.ok()) exit_bad_setting(name, text, p.problem, p.accepted);
  return std::move(p.value);
}

// ---- CUDALAB_CHECK, CUDALAB_CHECK_EXITCODE, CUDALAB_CHECK_JSON, CUDALAB_CHECK_LEAKS ----
struct CheckFlags {
  bool memcheck, racecheck, synccheck, initcheck;
};
struct CheckSettings {
  bool requested = false;  // CUDALAB_CHECK is set and not empty (the instrumented twin runs)
  CheckFlags flags{false, false, false, false};
  bool any = false;              // some check is on
  std::optional<int> exit_code;  // for a run with errors
  std::string json_path;         // "": no JSON report
  bool leaks = false;            // report buffers never freed
  std::string text;              // CUDALAB_CHECK as given (the JSON report says it)
};
// Read together, before main.
const CheckSettings& check_settings();
// "memcheck,racecheck", "all": the checks named.
Parsed<CheckFlags> parse_checks(const char* text);
// A whole number from 0 to 255; unset or empty: none.
Parsed<std::optional<int>> parse_check_exit_code(const char* text);
// Unset, empty or starting with '0': off; anything else: on.
Parsed<bool> parse_check_leaks(const char* text);

// ---- CUDALAB_DEVICE ----------------------------------------------------------------
enum class DeviceModel : uint8_t { kH100, kH200, kA100 };
DeviceModel device_setting();
// h100 (the default), h200 or a100, in any case.
Parsed<DeviceModel> parse_device(const char* text);

// ---- CUDALAB_SCHEDULE --------------------------------------------------------------
// Threads in order (the default), in reverse, or shuffled with a seed
// (printed, so that a finding can be replayed).
struct Schedule {
  enum Kind { kInOrder, kReverse, kRandom } kind = kInOrder;
  uint64_t seed = 0;
};
// The first call of a random schedule prints its seed.
const Schedule& schedule();
// in-order, reverse, random (a seed from the clock) or random:SEED.
Parsed<Schedule> parse_schedule(const char* text);

// ---- CUDALAB_LOCKSTEP --------------------------------------------------------------
// Lock-step warps: the lanes of a warp advance together from one shared or
// global memory access to the next, as legacy warp-synchronous code expects
// (docs/simulator.md, "Warps"). auto (the default): on for a program whose
// source the rewriter marked as warp-synchronous.
enum class Lockstep : uint8_t { kAuto, kOn, kOff };
Lockstep lockstep_setting();
// auto, on or off (also 1/0, yes/no, true/false), in any case.
Parsed<Lockstep> parse_lockstep(const char* text);

// ---- CUDALAB_BLOCK_LOOPS -----------------------------------------------------------
// Whether the plain build may run a block's threads as loops on one stack
// where its kernel allows (simulator/passes/): on (the default), off (every
// thread on its own fiber, for comparison) or narrow (loops, but not the
// copies that use the processor's wide vector instructions, AVX2, where it
// has them: for comparison and for testing the other copies).
enum class BlockLoops { kOff, kOn, kNarrow };
BlockLoops block_loops_setting();
// on, off (also 1/0, yes/no, true/false) or narrow, in any case; unset: on.
Parsed<BlockLoops> parse_block_loops(const char* text);

// ---- CUDALAB_NVRTC_CXX, CUDALAB_NVRTC_INCLUDE ------------------------------------------
// The host compiler and the simulator's headers for kernels compiled while a
// program runs (NVRTC); "" (unset): the ones cudalab was built with.
struct RuntimeCompileSettings {
  std::string cxx, include_dir;
};
const RuntimeCompileSettings& runtime_compile_settings();

// ---- CUDALAB_TIMEOUT ---------------------------------------------------------------
struct TimeoutSetting {
  double seconds = 0;  // 0: no time limit
  std::string text;    // as given, for reports
};
const TimeoutSetting& timeout_setting();
// Seconds above 0; unset or empty: no limit.
Parsed<double> parse_timeout(const char* text);

// ---- CUDALAB_TRACE, CUDALAB_TRACE_BLOCKS, CUDALAB_TRACE_MAX_ACCESSES -------------------
constexpr uint64_t kDefaultTraceMaxAccesses = 20'000'000;
struct TraceSettings {
  std::string path;  // "": no trace
  // Only read when there is a trace.
  uint64_t max_accesses = kDefaultTraceMaxAccesses;
  std::vector<std::pair<uint32_t, uint32_t>> blocks;  // inclusive ranges; empty: all
  std::string blocks_text;                            // as given, for the trace's note
  // CUDALAB_TRACE_SAMPLE: run (and record) only this many blocks of each
  // launch, chosen across its grid (sample_blocks); 0: every block.
  uint64_t sample = 0;
};
const TraceSettings& trace_settings();
// A whole number above 0; unset: the default.
Parsed<uint64_t> parse_trace_max_accesses(const char* text);
// A number of blocks, 0 or unset: every block.
Parsed<uint64_t> parse_trace_sample(const char* text);
// Linear block numbers and ranges, "0,5,10-12"; unset or empty: all blocks.
Parsed<std::vector<std::pair<uint32_t, uint32_t>>> parse_trace_blocks(const char* text);

// ---- CUDALAB_WORKERS ---------------------------------------------------------------
unsigned workers_setting();
// 1 to 1024; unset or empty: one per core.
Parsed<unsigned> parse_workers(const char* text);

// ---- a graded run (CUDALAB_REPORT_KEY) ---------------------------------------------
// The grader gave the run a key. Its settings are read before any of the
// program's own code runs (a static initializer cannot change them), and
// only the runtime keeps the key, to sign its report of the checks with.
// nullptr when not graded.
const trace::ReportKey* report_key();
// The environment the instrumented twin starts with: this one, but with
// the CUDALAB_ variables (and the key) the run started with.
std::vector<std::string> environment_for_twin();

}  // namespace cudalab::rt
