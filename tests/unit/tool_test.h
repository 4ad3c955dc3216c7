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

#include "temp_dir.h"

namespace cudalab::testing {

struct Result {
  int status = -1;
  std::string output;  // stdout and stderr together
};

// Runs `cmd` in a shell.
inline Result run(const std::string& cmd) {
  Result r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof(buf), p)) r.output.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

inline const std::string kCC = CUDALAB_CC_PATH;
inline const std::string kPrograms = CUDALAB_TEST_PROGRAMS;

// Whether a program's output contains `want`; the output is shown when not.
inline ::testing::AssertionResult Says(const std::string& output, const std::string& want) {
  if (output.find(want) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected \"" << want << "\" in:\n" << output;
}

class ToolTest : public ::testing::Test {
 protected:
  // programs/access_patterns.cu built, traced into p.trace, and what
  // `cudalab stats --json` says of it.
  nlohmann::json access_pattern_stats() {
    EXPECT_EQ(run(kCC + " " + kPrograms + "/access_patterns.cu -o " + path("p")).status, 0);
    EXPECT_EQ(run("CUDALAB_TRACE=" + path("p.trace") + " " + path("p")).status, 0);
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
