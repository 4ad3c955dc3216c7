// The support library (support/): starting programs (exit codes, signals,
// descriptors, time limits that end a whole process group, output kept to
// its end, PATH), quoting for a shell, files read and written whole, the
// source-text helpers and the table of nvcc's and NVRTC's GPU-only options.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include "cudalab/support/files.h"
#include "cudalab/support/nvcc_options.h"
#include "cudalab/support/process.h"
#include "cudalab/support/source_text.h"
#include "temp_dir.h"

namespace {

namespace fs = std::filesystem;
namespace support = cudalab::support;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

TEST(RunProcess, KeepsOutputExitCodeAndSignal) {
  auto r = support::run_process({"sh", "-c", "echo out; echo err >&2; exit 3"}, 10);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.signal, 0);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.output, "out\nerr\n");
  r = support::run_process({"sh", "-c", "kill -SEGV $$"}, 10);
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_EQ(r.exit_code, -1);
  r = support::run_process({"sh", "-c", "echo out; echo err >&2"}, 10, 1 << 20, true);
  EXPECT_EQ(r.output, "out\n") << "stderr dropped";
}

TEST(RunProcess, AProgramThatIsNotThereSaysSo) {
  const auto r = support::run_process({"cudalab-no-such-program"}, 10);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.output.find("cannot run cudalab-no-such-program"), std::string::npos) << r.output;
}

TEST(RunProcess, TheTimeLimitEndsTheProgramAndWhatItStarted) {
  // The child starts a grandchild that holds the output pipe open: both end
  // at the limit, and the call does not wait for the grandchild's sleep.
  const auto start = std::chrono::steady_clock::now();
  const auto r = support::run_process({"sh", "-c", "sleep 30 & echo started; wait"}, 0.5);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_EQ(r.output, "started\n");
  EXPECT_LT(seconds_since(start), 10);
}

TEST(RunProcess, KeepsTheEndOfALongOutput) {
  const auto r = support::run_process({"sh", "-c", "seq 1 100000"}, 20, 100);
  EXPECT_EQ(r.exit_code, 0);
  ASSERT_EQ(r.output.size(), 100u);
  EXPECT_EQ(r.output.substr(r.output.size() - 7), "100000\n");
}

TEST(Start, GivesTheChildTheDescriptorsNamedAndNoOthers) {
  const cudalab::testing::TempDir temp;
  const fs::path out = temp.path() / "out";
  int a[2], b[2];
  ASSERT_EQ(pipe2(a, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(b, O_CLOEXEC), 0);
  const int stray = open("/dev/null", O_RDONLY);  // inherited unless closed
  ASSERT_GE(stray, 0);
  support::Child c;
  // 3 and 4 are each other's sources' numbers in some order, or not: the
  // mapping must not depend on it.
  c.argv = {
      "sh", "-c",
      "echo three >&3; echo four >&4; for fd in 5 6 7 8 9 " + std::to_string(stray) +
          "; do [ -e /proc/$$/fd/$fd ] && echo open $fd; done; echo \"$CUDALAB_SUPPORT_TEST\""};
  c.fds = {{3, a[1]}, {4, b[1]}};
  c.output_file = out.string();
  c.stdin_null = c.only_named_fds = true;
  c.env = {"CUDALAB_SUPPORT_TEST=given"};
  std::string why;
  const pid_t pid = support::start(c, &why);
  ASSERT_GT(pid, 0) << why;
  close(a[1]);
  close(b[1]);
  close(stray);
  EXPECT_TRUE(support::wait_for(pid).ok());
  char buf[64] = {};
  EXPECT_EQ(read(a[0], buf, sizeof(buf)), 6);
  EXPECT_EQ(std::string(buf), "three\n");
  EXPECT_EQ(read(b[0], buf, sizeof(buf)), 5);
  EXPECT_EQ(std::string(buf, 5), "four\n");
  close(a[0]);
  close(b[0]);
  EXPECT_EQ(support::read_file(out), "given\n") << "no other descriptor open, the variable set";
}

TEST(Start, SaysWhyAProgramCannotStart) {
  support::Child c;
  c.argv = {"cudalab-no-such-program", "x"};
  std::string why;
  EXPECT_EQ(support::start(c, &why), -1);
  EXPECT_EQ(why, "cannot run cudalab-no-such-program: no such program");
  c.argv = {};
  EXPECT_EQ(support::start(c, &why), -1);
  // More descriptors than it can give is refused, not cut short.
  c.argv = {"true"};
  for (int fd = 3; fd < 3 + 65; ++fd) c.fds.push_back({fd, 2});
  EXPECT_EQ(support::start(c, &why), -1);
  EXPECT_EQ(why, "cannot start true: more than 64 descriptors to give it");
  c.fds.pop_back();
  const pid_t pid = support::start(c, &why);
  ASSERT_GT(pid, 0) << why;
  EXPECT_TRUE(support::wait_for(pid).ok());
}

TEST(Exit, SaysHowAProgramEnded) {
  support::Child c;
  c.argv = {"sh", "-c", "exit 4"};
  support::Exit e = support::wait_for(support::start(c));
  EXPECT_EQ(e.code, 4);
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(e.status(), 4);
  c.argv = {"sh", "-c", "kill -TERM $$"};
  e = support::wait_for(support::start(c));
  EXPECT_EQ(e.signal, SIGTERM);
  EXPECT_EQ(e.status(), 128 + SIGTERM);
}

TEST(OutputOf, ReadsAProgramsOutputLineByLineWithoutAShell) {
  // A file name with a quote and a space, which a shell command line would
  // have to quote.
  const cudalab::testing::TempDir temp;
  const fs::path odd = temp.path() / "it's here";
  std::ofstream(odd) << "one\ntwo\n";
  support::OutputOf cat({"cat", odd.string()});
  ASSERT_NE(cat.file(), nullptr);
  char line[64];
  std::string read;
  while (std::fgets(line, sizeof(line), cat.file())) read += line;
  EXPECT_EQ(read, "one\ntwo\n");
  EXPECT_TRUE(cat.finish().ok());
  // Not read to its end: destroying it ends the program.
  const auto start = std::chrono::steady_clock::now();
  { support::OutputOf endless({"sh", "-c", "while :; do echo y; done"}); }
  EXPECT_LT(seconds_since(start), 10);
  EXPECT_EQ(support::OutputOf({"cudalab-no-such-program"}).file(), nullptr);
}

TEST(ShellQuote, WhatAShellReadsBackIsTheText) {
  for (const std::string text : {"plain", "two words", "it's", "$HOME `id` \"q\" \\ ;|&", ""}) {
    const auto r =
        support::run_process({"sh", "-c", "printf %s " + support::shell_quote(text)}, 10);
    EXPECT_EQ(r.output, text);
  }
}

TEST(FindProgram, LooksOnThePathAndInTheFoldersGiven) {
  EXPECT_EQ(support::find_program("sh").empty(), false);
  EXPECT_EQ(support::find_program("cudalab-no-such-program"), "");
  EXPECT_EQ(support::find_program(""), "");
  const cudalab::testing::TempDir temp;
  const fs::path& dir = temp.path();
  std::ofstream(dir / "mine") << "#!/bin/sh\n";
  fs::permissions(dir / "mine", fs::perms::owner_all);
  EXPECT_EQ(support::find_program("mine", {dir.string()}), (dir / "mine").string());
  EXPECT_EQ(support::find_program((dir / "mine").string()), (dir / "mine").string());
  fs::create_directory(dir / "folder");
  EXPECT_EQ(support::find_program("folder", {dir.string()}), "") << "a folder is not a program";
  fs::permissions(dir / "mine", fs::perms::owner_read);  // not a program
  EXPECT_EQ(support::find_program("mine", {dir.string()}), "");
}

TEST(Files, ReadWholeOrSayTheyCannot) {
  const cudalab::testing::TempDir temp;
  const fs::path& dir = temp.path();
  std::string text = "left over";
  EXPECT_FALSE(support::read_file(dir / "absent", &text));
  EXPECT_EQ(text, "");
  EXPECT_FALSE(support::read_file(dir, &text)) << "a folder";
  std::ofstream(dir / "bytes", std::ios::binary) << std::string("a\0b\r\n", 5);
  EXPECT_TRUE(support::read_file(dir / "bytes", &text));
  EXPECT_EQ(text, std::string("a\0b\r\n", 5));
  EXPECT_EQ(support::read_file(dir / "absent"), "");
}

TEST(WriteAtomically, WritesTheWholeFileAndLeavesNothingBeside) {
  const cudalab::testing::TempDir temp;
  const fs::path& dir = temp.path();
  support::write_atomically(dir / "a.json", "first");
  support::write_atomically(dir / "a.json", "second");
  EXPECT_EQ(support::read_file(dir / "a.json"), "second");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  // A folder that is not there: an error that names the file, no partial file.
  EXPECT_THROW(support::write_atomically(dir / "absent" / "b.json", "x"), std::exception);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST(TempFile, IsMadeEmptyAndRemovedAfterUse) {
  fs::path kept;
  {
    support::TempFile t(".cu");
    kept = t.path;
    EXPECT_TRUE(fs::exists(kept));
    EXPECT_EQ(fs::file_size(kept), 0u);
    EXPECT_EQ(kept.extension(), ".cu");
  }
  EXPECT_FALSE(fs::exists(kept));
}

TEST(SourceText, LineBreaksAndOneLineKeepContinuationsWithLfOrCrLf) {
  for (const std::string eol : {"\n", "\r\n"}) {
    const std::string text = "a(x,\\" + eol + "  y," + eol + "  z)";
    EXPECT_EQ(support::line_breaks(text, 0, text.size()), " \\\n\n") << "EOL " << eol.size();
    EXPECT_EQ(support::one_line(text), eol == "\n" ? "a(x,   y,   z)" : "a(x,    y,    z)");
  }
  EXPECT_EQ(support::line_breaks("ab\ncd", 3, 99), "") << "a range past the end stops there";
}

TEST(SourceText, WordsAndBracketsInCode) {
  const std::string s = "f(a, (b)) // (c";
  std::vector<bool> code(s.size(), true);
  for (size_t i = s.find("//"); i < s.size(); ++i) code[i] = false;
  EXPECT_EQ(support::matching(s, code, 1), s.find(")) ") + 1);
  EXPECT_TRUE(support::word_at(s, code, 0, "f"));
  EXPECT_FALSE(support::word_at(s, code, s.find("(c") + 1, "c")) << "in a comment";
  EXPECT_EQ(support::trim("  x y \t"), "x y");
}

size_t gpu_only(std::vector<std::string> args, support::FrontEnd f) {
  return support::gpu_only_option(args, 0, f);
}

TEST(NvccOptions, TheGpuOnlyOptionsAndTheirValues) {
  using support::FrontEnd;
  for (FrontEnd f : {FrontEnd::kNvcc, FrontEnd::kNvrtc}) {
    EXPECT_EQ(gpu_only({"-arch", "sm_90"}, f), 2u);
    EXPECT_EQ(gpu_only({"-arch=sm_90"}, f), 1u);
    EXPECT_EQ(gpu_only({"--gpu-architecture=compute_90"}, f), 1u);
    EXPECT_EQ(gpu_only({"-lineinfo"}, f), 1u);
    EXPECT_EQ(gpu_only({"-maxrregcount=32"}, f), 1u);
    EXPECT_EQ(gpu_only({"-rdc=true"}, f), 1u);
    EXPECT_EQ(gpu_only({"-rdc", "true", "x.cu"}, f), 2u);
    EXPECT_EQ(gpu_only({"-rdc", "x.cu"}, f), 1u);
    EXPECT_EQ(gpu_only({"-Xptxas", "-v"}, f), 2u);
    EXPECT_EQ(gpu_only({"-ftz=true"}, f), 1u);
    // Not theirs: the host compiler's, or a value missing.
    EXPECT_EQ(gpu_only({"-O2"}, f), 0u);
    EXPECT_EQ(gpu_only({"-lm"}, f), 0u);
    EXPECT_EQ(gpu_only({"-archx"}, f), 0u);
    EXPECT_EQ(gpu_only({"-lineinfo=1"}, f), 0u);
    EXPECT_EQ(gpu_only({"-arch"}, f), 0u) << "its value missing";
  }
  EXPECT_EQ(gpu_only({"-gencode", "arch=compute_90,code=sm_90"}, FrontEnd::kNvcc), 2u);
  EXPECT_EQ(gpu_only({"-gencode", "arch=compute_90,code=sm_90"}, FrontEnd::kNvrtc), 0u);
  EXPECT_EQ(gpu_only({"-default-device"}, FrontEnd::kNvrtc), 1u);
  EXPECT_EQ(gpu_only({"-default-device"}, FrontEnd::kNvcc), 0u);
  const std::string names = support::gpu_only_option_names(FrontEnd::kNvcc);
  EXPECT_NE(names.find("-arch, -gencode"), std::string::npos) << names;
  EXPECT_EQ(names.find("-default-device"), std::string::npos) << names;
}

}  // namespace
