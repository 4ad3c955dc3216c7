// What the tests of the tools share (cc_test, traces_test, faults_test,
// checks_test, stats_test, run_options_test): running a command as a user
// does, the programs under tests/programs, and a fresh folder per test.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cudalab/support/process.h"
#include "temp_dir.h"

namespace cudalab::testing {

// For run(): no limit of its own, CTest's timeout stops a test that hangs.
inline constexpr double kNoTimeLimit = 24 * 3600;

struct Result {
  int status = -1;
  std::string output;  // stdout and stderr together
};

// Runs `cmd` in a shell (through the support library, as the project
// starts every process); the status is -1 when the shell did not exit.
inline Result run(const std::string& cmd) {
  const support::ProcessResult p =
      support::run_process({"/bin/sh", "-c", cmd}, kNoTimeLimit, size_t(1) << 30);
  Result r;
  r.output = p.output;
  r.status = p.signal || p.timed_out ? -1 : p.exit_code;
  return r;
}

inline const std::string kCC = CUDALAB_CC_PATH;
inline const std::string kPrograms = CUDALAB_TEST_PROGRAMS;
// programs/checks/NAME.cu as the build made it (the target checks_NAME),
// its instrumented twin beside it.
inline std::string checks_program(const std::string& name) {
  return CUDALAB_CHECKS_PROGRAMS + name;
}

// Whether a program's output contains `want`; the output is shown when not.
inline ::testing::AssertionResult Says(const std::string& output, const std::string& want) {
  if (output.find(want) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected \"" << want << "\" in:\n" << output;
}

class ToolTest : public ::testing::Test {
 protected:
  // programs/access_patterns.cu (as the build made it) traced into p.trace,
  // and what `cudalab stats --json` says of it.
  nlohmann::json access_pattern_stats() {
    EXPECT_EQ(run("CUDALAB_TRACE=" + path("p.trace") + " " CUDALAB_CMAKE_ACCESS_PATTERNS).status,
              0);
    const Result r = run(std::string(CUDALAB_CLI_PATH) + " stats --json " + path("p.trace"));
    EXPECT_EQ(r.status, 0) << r.output;
    return nlohmann::json::parse(r.output, nullptr, false);
  }
  std::string path(const std::string& name) const { return (dir() / name).string(); }
  const std::filesystem::path& dir() const { return temp_.path(); }

 private:
  TempDir temp_;
};

}  // namespace cudalab::testing
