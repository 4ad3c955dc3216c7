// The sandbox's command line (framework/cli/sandbox.cpp), read as a
// reviewer would: what a submission sees, what is covered up, its limits and
// its environment. The sandbox itself, run for real, is tested by the
// hostile submissions under tests/hostile.
#include "sandbox.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cudalab/support/process.h"
#include "temp_dir.h"

namespace {

namespace fs = std::filesystem;
using cudalab::cli::Sandbox;
using cudalab::cli::SandboxLimits;
using Args = std::vector<std::string>;

// Whether `want` appears in `args` as consecutive arguments.
bool has_run(const Args& args, const Args& want) {
  return std::search(args.begin(), args.end(), want.begin(), want.end()) != args.end();
}

class SandboxLine : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root_ / "scratch");
    fs::create_directories(root_ / "course" / "answers");
    std::ofstream(root_ / "course" / "solution.cu") << "answer\n";
    std::ofstream(root_ / "course" / "lesson.h") << "header\n";
    fs::permissions(root_, fs::perms::all);  // others may read: no copies are made
    for (const auto& e : fs::recursive_directory_iterator(root_))
      fs::permissions(e.path(), fs::perms::all);
  }
  std::string at(const std::string& p) const { return (root_ / p).string(); }
  cudalab::testing::TempDir temp_;
  const fs::path root_ = temp_.path();
};

TEST_F(SandboxLine, ConfinedSeesTheToolchainAndItsFolderAndNothingElse) {
  const Sandbox box(root_ / "scratch", {at("course")},
                    {at("course/solution.cu"), at("course/answers"), "/elsewhere/secret"}, true,
                    false, 60001);
  SandboxLimits limits;
  limits.memory_mib = 512;
  const Args cmd =
      box.wrap({"/submission/program", "--seed", "7"}, {"CUDALAB_CHECK=memcheck"}, limits);
  EXPECT_TRUE(has_run(cmd, {"bwrap", "--unshare-all", "--die-with-parent"}));
  EXPECT_TRUE(has_run(cmd, {"--cap-drop", "ALL"}));
  EXPECT_TRUE(has_run(cmd, {"--ro-bind", "/usr", "/usr"}));
  EXPECT_TRUE(has_run(cmd, {"--ro-bind", at("course"), at("course")}));
  // What lies under a seen folder and must stay out of sight is covered.
  EXPECT_TRUE(has_run(cmd, {"--ro-bind", "/dev/null", at("course/solution.cu")}));
  EXPECT_TRUE(has_run(cmd, {"--tmpfs", at("course/answers")}));
  EXPECT_EQ(std::count(cmd.begin(), cmd.end(), "/elsewhere/secret"), 0);  // never seen anyway
  EXPECT_TRUE(has_run(
      cmd, {"--bind", at("scratch"), "/submission", "--chdir", "/submission", "--clearenv"}));
  EXPECT_TRUE(has_run(cmd, {"--setenv", "CUDALAB_CHECK", "memcheck"}));
  EXPECT_TRUE(has_run(cmd, {"--setenv", "HOME", "/submission"}));
  EXPECT_TRUE(has_run(cmd, {"--as=" + std::to_string(512ull << 20)}));
  EXPECT_TRUE(has_run(cmd, {"--nproc=64"}));
  EXPECT_TRUE(has_run(cmd, {"--core=0"}));
  // The program comes last, after bwrap's "--", as it was given.
  const Args tail(cmd.end() - 3, cmd.end());
  EXPECT_EQ(tail, (Args{"/submission/program", "--seed", "7"}));
  // As root the sandbox runs as its own user, without root's groups.
  if (geteuid() == 0) EXPECT_TRUE(has_run(cmd, {"--user=60001", "--no-new-privs"}));
  // Set up by one program before bwrap: no address randomization, then bwrap.
  EXPECT_NE(cmd.front().find("cudalab-confine"), std::string::npos);
  EXPECT_TRUE(has_run(cmd, {"--no-aslr"}));
}

TEST_F(SandboxLine, OnAGpuTheAddressSpaceIsNotLimited) {
  const Sandbox box(root_ / "scratch", {}, {}, true, true, 60001);
  const Args cmd = box.wrap({"/submission/program"}, {}, SandboxLimits{});
  EXPECT_TRUE(std::none_of(cmd.begin(), cmd.end(),
                           [](const std::string& a) { return a.rfind("--as=", 0) == 0; }));
}

TEST_F(SandboxLine, UnconfinedRunsInTheScratchFolderWithAnEmptiedEnvironment) {
  const Sandbox box(root_ / "scratch", {at("course")}, {}, false, false, 60001);
  const Args cmd = box.wrap({"/submission/program", "-I/submission", "/submissionx"},
                            {"CUDALAB_TRACE=/submission/t.trace"}, SandboxLimits{});
  EXPECT_TRUE(has_run(cmd, {"env", "-i", "-C", at("scratch")}));
  EXPECT_EQ(std::count(cmd.begin(), cmd.end(), "bwrap"), 0);
  EXPECT_EQ(std::count(cmd.begin(), cmd.end(), "--nproc=64"), 0);  // no user of its own
  // Paths of the scratch folder as the submission sees them become real ones.
  EXPECT_TRUE(has_run(cmd, {at("scratch") + "/program", "-I" + at("scratch"), "/submissionx"}));
  EXPECT_TRUE(has_run(cmd, {"CUDALAB_TRACE=" + at("scratch") + "/t.trace"}));
  EXPECT_TRUE(has_run(cmd, {"HOME=" + at("scratch")}));
}

// The source of the folder or file bound at `dest` in `cmd` ("" if none).
std::string bound_from(const Args& cmd, const std::string& dest) {
  for (size_t i = 0; i + 2 < cmd.size(); ++i)
    if (cmd[i] == "--ro-bind" && cmd[i + 2] == dest) return cmd[i + 1];
  return "";
}

// What a fresh grading process binds at `dest` for a toolchain of `tools`
// (a process keeps its copies while it lives, so each look is a new one).
std::string bound_in_new_process(const std::vector<std::string>& tools, const fs::path& scratch,
                                 const std::string& dest) {
  int out[2];
  if (pipe(out) != 0) return "";
  const pid_t child = fork();
  if (child == 0) {
    close(out[0]);
    const Sandbox box(scratch, tools, {}, true, false, 60001);
    const std::string from = bound_from(box.wrap({"/submission/program"}, {}, {}), dest);
    (void)!write(out[1], from.data(), from.size());
    _exit(0);  // the parent's folder for the seccomp filter, inherited, is the parent's to remove
  }
  close(out[1]);
  std::string from;
  char buf[512];
  for (ssize_t n; (n = read(out[0], buf, sizeof(buf))) > 0;) from.append(buf, size_t(n));
  close(out[0]);
  waitpid(child, nullptr, 0);
  return from;
}

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// As root, a toolchain the sandbox's user cannot reach (a course in a private
// folder) is bound from a copy it can read. Gradings share the copy while the
// files are unchanged and make another once they change (a rebuild); the
// copy never follows a link out to change what it points to.
TEST_F(SandboxLine, APrivateToolchainIsSeenThroughASharedCopyMadeAgainWhenItChanges) {
  if (geteuid() != 0) GTEST_SKIP() << "only root's sandbox runs as another user";
  const fs::path hidden = root_ / "private";
  fs::create_directories(hidden / "lib");
  std::ofstream(hidden / "lib" / "tool.h") << "version 1\n";
  std::ofstream(root_ / "elsewhere.txt") << "not to be opened up\n";
  fs::permissions(root_ / "elsewhere.txt", fs::perms::owner_read | fs::perms::owner_write);
  fs::create_symlink(root_ / "elsewhere.txt", hidden / "lib" / "link.txt");
  fs::permissions(hidden, fs::perms::owner_all);  // only root may enter
  const std::string lib = (hidden / "lib").string();
  // This process's own folder (the seccomp filter's), made before the
  // children inherit it, so that none of them makes one of its own.
  (void)Sandbox(root_ / "scratch", {}, {}, true, false, 60001).wrap({"true"}, {}, {});

  const std::string first = bound_in_new_process({lib}, root_ / "scratch", lib);
  ASSERT_FALSE(first.empty());
  EXPECT_NE(first, lib);
  EXPECT_EQ(text_of(first + "/tool.h"), "version 1\n");
  EXPECT_EQ(fs::status(first + "/tool.h").permissions() & fs::perms::others_read,
            fs::perms::others_read);
  EXPECT_TRUE(fs::is_symlink(first + "/link.txt"));
  EXPECT_EQ(fs::status(root_ / "elsewhere.txt").permissions() & fs::perms::others_read,
            fs::perms::none);
  EXPECT_EQ(bound_in_new_process({lib}, root_ / "scratch", lib), first);

  // A copy keeps the times of what it copies (a precompiled header checks
  // its headers' times).
  EXPECT_EQ(fs::last_write_time(first + "/tool.h"), fs::last_write_time(hidden / "lib" / "tool.h"));

  // Rebuilt: the same size, another time.
  std::ofstream(hidden / "lib" / "tool.h") << "version 2\n";
  fs::last_write_time(hidden / "lib" / "tool.h",
                      fs::last_write_time(first + "/tool.h") + std::chrono::seconds(5));
  const std::string second = bound_in_new_process({lib}, root_ / "scratch", lib);
  EXPECT_NE(second, first);
  EXPECT_EQ(text_of(second + "/tool.h"), "version 2\n");
  EXPECT_EQ(text_of(first + "/tool.h"), "version 1\n");  // a running grading's stays
  std::error_code ec;

  // A copy short of a file (as an aged /tmp leaves one) is made again.
  fs::remove(second + "/tool.h");
  const std::string third = bound_in_new_process({lib}, root_ / "scratch", lib);
  EXPECT_EQ(text_of(third + "/tool.h"), "version 2\n");
  for (const std::string& copy : {first, second, third})
    fs::remove_all(fs::path(copy).parent_path(), ec);
}

// cudalab-confine, run for real: each limit soft and hard, no address
// randomization, the filter's file as descriptor 9, and as root the
// sandbox's user without privileges to gain; a wrong option stops it
// before any program runs.
TEST_F(SandboxLine, ConfineSetsWhatTheLineAsksBeforeTheProgramRuns) {
  const Sandbox box(root_ / "scratch", {}, {}, true, false, 60001);
  const std::string confine = box.wrap({"/submission/program"}, {}, SandboxLimits{}).front();
  const fs::path filter = root_ / "filter";
  std::ofstream(filter) << "bytes";
  Args cmd = {confine,
              "--cpu=7",
              "--nofile=33",
              "--core=0",
              "--as=" + std::to_string(3ull << 30),
              "--no-aslr",
              "--fd9=" + filter.string()};
  if (geteuid() == 0) cmd.insert(cmd.end(), {"--user=65534", "--no-new-privs"});
  cmd.insert(cmd.end(), {"--", "sh", "-c",
                         "cat /proc/self/limits /proc/self/personality; readlink /proc/self/fd/9; "
                         "id -u; grep NoNewPrivs /proc/self/status"});
  const cudalab::support::ProcessResult r = cudalab::support::run_process(cmd, 60);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Max cpu time              7                    7"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("Max open files            33                   33"), std::string::npos);
  EXPECT_NE(r.output.find("Max address space         3221225472           3221225472"),
            std::string::npos);
  EXPECT_NE(r.output.find("Max core file size        0                    0"), std::string::npos);
  EXPECT_NE(r.output.find("00040000"), std::string::npos) << "ADDR_NO_RANDOMIZE";
  EXPECT_NE(r.output.find(filter.string()), std::string::npos);
  if (geteuid() == 0) {
    EXPECT_NE(r.output.find("\n65534\n"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("NoNewPrivs:\t1"), std::string::npos);
  }
  const cudalab::support::ProcessResult bad =
      cudalab::support::run_process({confine, "--cpu=ten", "--", "true"}, 60);
  EXPECT_EQ(bad.exit_code, 127);
  EXPECT_NE(bad.output.find("cudalab-confine: not a number: --cpu=ten"), std::string::npos)
      << bad.output;
  const cudalab::support::ProcessResult twice =
      cudalab::support::run_process({confine, "--cpu=1", "--cpu=2", "--", "true"}, 60);
  EXPECT_EQ(twice.exit_code, 127);
  EXPECT_NE(twice.output.find("a limit given twice"), std::string::npos) << twice.output;
  const cudalab::support::ProcessResult nobody =
      cudalab::support::run_process({confine, "--user=4294967295", "--", "true"}, 60);
  EXPECT_EQ(nobody.exit_code, 127) << "(uid_t)-1 would leave the user as it is";
  const cudalab::support::ProcessResult none = cudalab::support::run_process({confine}, 60);
  EXPECT_EQ(none.exit_code, 127);
  EXPECT_NE(none.output.find("no program to run"), std::string::npos);
}

}  // namespace
