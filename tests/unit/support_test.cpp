// Running other programs and writing files (framework/cli/process.cpp):
// exit codes, signals, time limits that end a whole process group, output
// kept to its end, quoting for a shell, files written whole or not at all.
#include "process.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "temp_dir.h"

namespace {

namespace fs = std::filesystem;
using cudalab::cli::run_process;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

TEST(RunProcess, KeepsOutputExitCodeAndSignal) {
  auto r = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"}, 10);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.signal, 0);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.output, "out\nerr\n");
  r = run_process({"sh", "-c", "kill -SEGV $$"}, 10);
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_EQ(r.exit_code, -1);
}

TEST(RunProcess, AProgramThatIsNotThereSaysSo) {
  const auto r = run_process({"cudalab-no-such-program"}, 10);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.output.find("cannot run cudalab-no-such-program"), std::string::npos) << r.output;
}

TEST(RunProcess, TheTimeLimitEndsTheProgramAndWhatItStarted) {
  // The child starts a grandchild that holds the output pipe open: both end
  // at the limit, and the call does not wait for the grandchild's sleep.
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_process({"sh", "-c", "sleep 30 & echo started; wait"}, 0.5);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_EQ(r.output, "started\n");
  EXPECT_LT(seconds_since(start), 10);
}

TEST(RunProcess, KeepsTheEndOfALongOutput) {
  const auto r = run_process({"sh", "-c", "seq 1 100000"}, 20, 100);
  EXPECT_EQ(r.exit_code, 0);
  ASSERT_EQ(r.output.size(), 100u);
  EXPECT_EQ(r.output.substr(r.output.size() - 7), "100000\n");
}

TEST(ShellQuote, WhatAShellReadsBackIsTheText) {
  for (const std::string text : {"plain", "two words", "it's", "$HOME `id` \"q\" \\ ;|&", ""}) {
    const auto r = run_process({"sh", "-c", "printf %s " + cudalab::cli::shell_quote(text)}, 10);
    EXPECT_EQ(r.output, text);
  }
}

TEST(FindProgram, LooksOnThePathAndInTheFoldersGiven) {
  EXPECT_EQ(cudalab::cli::find_program("sh").empty(), false);
  EXPECT_EQ(cudalab::cli::find_program("cudalab-no-such-program"), "");
  const cudalab::testing::TempDir temp;
  const fs::path& dir = temp.path();
  std::ofstream(dir / "mine") << "#!/bin/sh\n";
  fs::permissions(dir / "mine", fs::perms::owner_all);
  EXPECT_EQ(cudalab::cli::find_program("mine", {dir.string()}), (dir / "mine").string());
  fs::permissions(dir / "mine", fs::perms::owner_read);  // not a program
  EXPECT_EQ(cudalab::cli::find_program("mine", {dir.string()}), "");
}

TEST(WriteAtomically, WritesTheWholeFileAndLeavesNothingBeside) {
  const cudalab::testing::TempDir temp;
  const fs::path& dir = temp.path();
  cudalab::cli::write_atomically(dir / "a.json", "first");
  cudalab::cli::write_atomically(dir / "a.json", "second");
  std::ifstream in(dir / "a.json");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "second");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  // A folder that is not there: an error that names the file, no partial file.
  EXPECT_THROW(cudalab::cli::write_atomically(dir / "absent" / "b.json", "x"), std::exception);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST(TempFile, IsMadeEmptyAndRemovedAfterUse) {
  fs::path kept;
  {
    cudalab::cli::TempFile t(".cu");
    kept = t.path;
    EXPECT_TRUE(fs::exists(kept));
    EXPECT_EQ(fs::file_size(kept), 0u);
    EXPECT_EQ(kept.extension(), ".cu");
  }
  EXPECT_FALSE(fs::exists(kept));
}

}  // namespace
