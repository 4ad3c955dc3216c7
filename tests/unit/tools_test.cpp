// cudalab-cc and traces, used the way a user uses them: build programs,
// run them, read what they wrote.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "cudalab/trace/trace.h"

namespace fs = std::filesystem;

namespace {

struct Result {
  int status = -1;
  std::string output;
};

Result run(const std::string& cmd) {
  Result r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof(buf), p)) r.output.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

const std::string kCC = CUDALAB_CC_PATH;

// Whether a program's output contains `want`; the output is shown when not.
::testing::AssertionResult Says(const std::string& output, const std::string& want) {
  if (output.find(want) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected \"" << want << "\" in:\n" << output;
}
const std::string kPrograms = CUDALAB_TEST_PROGRAMS;

class Tools : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("cudalab-tools-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // programs/access_patterns.cu built, traced into p.trace, and what
  // `cudalab stats --json` says of it.
  nlohmann::json access_pattern_stats() {
    EXPECT_EQ(run(kCC + " " + kPrograms + "/access_patterns.cu -o " + path("p")).status, 0);
    EXPECT_EQ(run("CUDALAB_TRACE=" + path("p.trace") + " " + path("p")).status, 0);
    const Result r = run(std::string(CUDALAB_CLI_PATH) + " stats --json " + path("p.trace"));
    EXPECT_EQ(r.status, 0) << r.output;
    return nlohmann::json::parse(r.output, nullptr, false);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(Tools, BuildsAndRunsAMultiFileProgram) {
  Result b = run(kCC + " -O2 -I " + kPrograms + " " + kPrograms + "/multi_main.cu " + kPrograms +
                 "/multi_kernels.cu " + kPrograms + "/multi_host.cpp -o " + path("multi"));
  ASSERT_EQ(b.status, 0) << b.output;
  EXPECT_TRUE(fs::exists(path("multi.instrumented")));
  Result r = run(path("multi"));
  EXPECT_EQ(r.status, 0);
  // 1000 elements of 7 + i % 3: 7000 + (333 * 3 + 0) = 7999
  EXPECT_TRUE(Says(r.output, "multi: sum=7999"));
}

TEST_F(Tools, SeparateCompilationWithDashC) {
  ASSERT_EQ(
      run(kCC + " -c " + kPrograms + "/multi_kernels.cu -I" + kPrograms + " -o " + path("k.o"))
          .status,
      0);
  EXPECT_TRUE(fs::exists(path("k.o.instrumented")));
  Result b = run(kCC + " -I" + kPrograms + " " + kPrograms + "/multi_main.cu " + kPrograms +
                 "/multi_host.cpp " + path("k.o") + " -o " + path("multi"));
  ASSERT_EQ(b.status, 0) << b.output;
  EXPECT_NE(run(path("multi")).output.find("sum=7999"), std::string::npos);
}

TEST_F(Tools, CompileErrorsPointAtTheCuFileAndLine) {
  Result b = run(kCC + " " + kPrograms + "/compile_error.cu -o " + path("x"));
  EXPECT_NE(b.status, 0);
  EXPECT_TRUE(Says(b.output, "compile_error.cu:5:"));
  EXPECT_TRUE(Says(b.output, "undeclared_value"));
}

TEST_F(Tools, CompileErrorsShowTheLaunchAsWritten) {
  Result b = run(kCC + " " + kPrograms + "/launch_arity_error.cu -o " + path("x"));
  EXPECT_NE(b.status, 0);
  EXPECT_TRUE(
      Says(b.output, "launch_arity_error.cu:9: error: no matching function for call to 'add'"));
  EXPECT_TRUE(Says(b.output, "  add<<<1, 32>>>(a, c);"));
  EXPECT_TRUE(Says(b.output, "launch_arity_error.cu:5: note: candidate function not viable"));
  for (const char* never : {"make_launcher", "cudalab_args_", "/usr/include", "kernel_language.h",
                            "cudalab_kernel_registered"})
    EXPECT_FALSE(Says(b.output, never)) << never << " in:\n" << b.output;
  // One message, not one per build (plain and instrumented).
  EXPECT_EQ(b.output.find("1 error generated."), b.output.rfind("1 error generated.")) << b.output;
}

TEST_F(Tools, RacecheckNamesARaceAcrossLoopIterations) {
  const std::string src = kPrograms + "/checks/race_across_iterations.cu";
  ASSERT_EQ(run(kCC + " " + src + " -o " + path("r")).status, 0);
  const Result r = run("CUDALAB_CHECK=racecheck " + path("r"));
  EXPECT_TRUE(Says(r.output, "the two are in different iterations of a loop")) << r.output;
  EXPECT_TRUE(Says(r.output, "Put a __syncthreads() at the end of the loop body, after line 17"))
      << r.output;
}

TEST_F(Tools, BadArgumentsGetAClearMessage) {
  Result r = run(kCC + " --no-such-flag x.cu");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(Says(r.output, "unknown option --no-such-flag"));
  r = run(kCC + " " + path("missing.cu"));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(Says(r.output, "no such file"));
  r = run(kCC);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("no input files"), std::string::npos);
}

TEST_F(Tools, FastBuildHasNoTwinAndSaysSoWhenATraceIsAsked) {
  ASSERT_EQ(run(kCC + " --fast " + kPrograms + "/traced_add.cu -o " + path("p")).status, 0);
  EXPECT_FALSE(fs::exists(path("p.instrumented")));
  Result r = run("CUDALAB_TRACE=" + path("t.trace") + " " + path("p"));
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(Says(r.output, "without --fast"));
}

TEST_F(Tools, TraceRecordsLaunchAllocationsAndEveryGlobalAccess) {
  ASSERT_EQ(run(kCC + " " + kPrograms + "/traced_add.cu -o " + path("p")).status, 0);
  Result r = run("CUDALAB_TRACE=" + path("t.trace") + " " + path("p"));
  ASSERT_EQ(r.status, 0) << r.output;
  cudalab::trace::Trace t = cudalab::trace::read_trace(path("t.trace"));
  ASSERT_EQ(t.launches.size(), 1u);
  const auto& l = t.launches[0];
  EXPECT_EQ(l.kernel, "add");
  EXPECT_EQ(l.grid.x, 2u);
  EXPECT_EQ(l.block.x, 64u);
  EXPECT_EQ(l.line, 17u);
  EXPECT_TRUE(l.ended);
  EXPECT_EQ(l.idle_threads, 28u);  // 128 threads, 100 elements
  ASSERT_EQ(t.allocations.size(), 3u);
  EXPECT_NE(t.allocations[0].site.find("traced_add.cu:12"), std::string::npos);
  EXPECT_TRUE(t.allocations[2].freed);
  const auto accesses = l.all_accesses();
  ASSERT_EQ(accesses.size(), 300u);  // two reads and a write per element
  int writes = 0, line6 = 0;
  for (const auto& a : accesses) {
    writes += a.write;
    EXPECT_EQ(a.size, 4);
    // element = global thread index: the mapping students learn
    EXPECT_EQ(a.offset / 4, a.block * 64 + a.thread);
    line6 += t.where(a.pc) == "traced_add.cu:6";
  }
  EXPECT_EQ(writes, 100);
  EXPECT_EQ(line6, 300);
}

TEST_F(Tools, CMakeBuiltProgramsTraceTheCuFileToo) {
  // Built by cudalab_add_cuda_executable: rewritten into the build tree, yet
  // every access names the .cu file and line.
  Result r = run("CUDALAB_TRACE=" + path("t.trace") + " " CUDALAB_CMAKE_TRACED_PROGRAM);
  ASSERT_EQ(r.status, 0) << r.output;
  cudalab::trace::Trace t = cudalab::trace::read_trace(path("t.trace"));
  ASSERT_EQ(t.launches.size(), 1u);
  ASSERT_FALSE(t.launches[0].requests.empty());
  for (const auto& r : t.launches[0].requests) EXPECT_EQ(t.where(r.pc), "traced_add.cu:6");
}

TEST_F(Tools, TruncatedAndForeignTracesGiveClearErrors) {
  ASSERT_EQ(run(kCC + " " + kPrograms + "/traced_add.cu -o " + path("p")).status, 0);
  ASSERT_EQ(run("CUDALAB_TRACE=" + path("t.trace") + " " + path("p")).status, 0);
  const auto size = fs::file_size(path("t.trace"));
  for (uintmax_t cut : {size - 3, size / 2, uintmax_t(20)}) {
    fs::copy_file(path("t.trace"), path("cut.trace"), fs::copy_options::overwrite_existing);
    fs::resize_file(path("cut.trace"), cut);
    try {
      cudalab::trace::read_trace(path("cut.trace"));
      ADD_FAILURE() << "a trace cut at " << cut << " bytes was accepted";
    } catch (const cudalab::trace::TraceError& e) {
      EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
    }
  }
  std::ofstream(path("junk.trace")) << "this is not a trace at all";
  auto error_of = [](const std::string& file) -> std::string {
    try {
      cudalab::trace::read_trace(file);
    } catch (const cudalab::trace::TraceError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_TRUE(Says(error_of(path("junk.trace")), "is not a cudalab trace"));
  EXPECT_TRUE(Says(error_of(path("absent.trace")), "cannot open"));
  EXPECT_TRUE(Says(error_of(dir_.string()), "is a folder, not a trace file"));
}

TEST_F(Tools, CorruptedTracesNeverCrashTheReader) {
  ASSERT_EQ(run(kCC + " " + kPrograms + "/traced_add.cu -o " + path("p")).status, 0);
  ASSERT_EQ(run("CUDALAB_TRACE=" + path("t.trace") + " " + path("p")).status, 0);
  std::ifstream in(path("t.trace"), std::ios::binary);
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint64_t state = 12345;
  auto next = [&] { return state = state * 6364136223846793005ull + 1442695040888963407ull; };
  int rejected = 0, changed = 0;
  for (int k = 0; k < 300; ++k) {
    std::string bad = good;
    for (int flips = 1 + int(next() % 4); flips > 0; --flips)
      bad[16 + next() % (bad.size() - 16)] = char(next() >> 56);
    if (bad == good) continue;  // a byte set to the value it had
    ++changed;
    std::ofstream(path("bad.trace"), std::ios::binary) << bad;
    try {
      cudalab::trace::read_trace(path("bad.trace"));
      ADD_FAILURE() << "a changed trace was read as if whole";
    } catch (const cudalab::trace::TraceError& e) {
      // A changed payload fails its checksum; a changed record header
      // makes a length or a type that does not fit.
      const std::string what = e.what();
      EXPECT_TRUE(Says(what, "does not match its checksum") || Says(what, "truncated") ||
                  Says(what, "corrupt"))
          << what;
      ++rejected;
    }
  }
  EXPECT_GT(changed, 250);
  EXPECT_EQ(rejected, changed);
}

TEST_F(Tools, AFaultingKernelNamesKernelThreadAndBlock) {
  std::ofstream(path("fault.cu")) << "#include <cstdio>\n"
                                     "__global__ void boom(int* p, int bad) {\n"
                                     "  if (blockIdx.x == 1 && threadIdx.x == bad) p[0] = 1;\n"
                                     "}\n"
                                     "int main(int argc, char**) {\n"
                                     "  int* volatile p = nullptr;\n"
                                     "  boom<<<2, 32>>>(p, argc + 4);\n"
                                     "  cudaError_t e = cudaDeviceSynchronize();\n"
                                     "  std::printf(\"after: %s\\n\", cudaGetErrorName(e));\n"
                                     "  return 0;\n"
                                     "}\n";
  ASSERT_EQ(run(kCC + " " + path("fault.cu") + " -o " + path("f")).status, 0);
  Result r = run(path("f"));
  EXPECT_EQ(r.status, 0) << "the program goes on, as on a GPU";
  EXPECT_TRUE(Says(r.output, "kernel 'boom'"));
  EXPECT_TRUE(Says(r.output, "thread (5,0,0) in block (1,0,0)"));
  EXPECT_TRUE(Says(r.output, "fault.cu:3"));
  EXPECT_TRUE(Says(r.output, "after: cudaErrorIllegalAddress"));
}

TEST_F(Tools, AFailedAssertInAKernelEndsTheLaunchAsOnAGpu) {
  std::ofstream(path("a.cu")) << "#include <cassert>\n"
                                 "#include <cstdio>\n"
                                 "__global__ void check(int limit) {\n"
                                 "  assert(threadIdx.x < limit);\n"
                                 "}\n"
                                 "int main(int argc, char**) {\n"
                                 "  check<<<1, 32>>>(30);\n"
                                 "  cudaError_t e = cudaDeviceSynchronize();\n"
                                 "  std::fprintf(stderr, \"after: %s\\n\", cudaGetErrorName(e));\n"
                                 "  assert(argc == 100);  // on the host: the C library's\n"
                                 "  return 0;\n"
                                 "}\n";
  ASSERT_EQ(run(kCC + " " + path("a.cu") + " -o " + path("a")).status, 0);
  Result r = run(path("a"));
  EXPECT_TRUE(Says(r.output,
                   "a.cu:4: void check(int): block: [0,0,0], thread: [30,0,0] Assertion "
                   "`threadIdx.x < limit` failed."));
  EXPECT_TRUE(Says(r.output, "after: cudaErrorAssert"));
  EXPECT_TRUE(Says(r.output, "Assertion `argc == 100' failed."));
  EXPECT_NE(r.status, 0) << "the host assert aborts";
  ASSERT_EQ(run(kCC + " -DNDEBUG " + path("a.cu") + " -o " + path("b")).status, 0);
  Result quiet = run(path("b"));
  EXPECT_EQ(quiet.status, 0);
  EXPECT_TRUE(Says(quiet.output, "after: cudaSuccess"));
}

// Without any check: a null pointer and writes far past a buffer fault as on
// a GPU (cudaErrorIllegalAddress, sticky), the report names the student's
// line, the thread and the buffer, and nothing of the simulator's memory is
// written (the program goes on to its end and exits normally).
TEST_F(Tools, NullAndFarPointersFaultAtTheStudentsLine) {
  const std::string dir = kPrograms + "/checks/";
  struct Case {
    const char* name;
    const char* line;
    const char* said;
  };
  for (const Case& c :
       {Case{"null_pointer", "null_pointer.cu:9", "a null pointer"},
        Case{"transpose_far_write", "transpose_far_write.cu:12",
             "after the last byte of the 262144-byte buffer `out` allocated at "}}) {
    ASSERT_EQ(run(kCC + " " + dir + c.name + ".cu -o " + path(c.name)).status, 0) << c.name;
    for (const std::string& program : {path(c.name), path(c.name) + ".instrumented"}) {
      const Result r = run(program);
      EXPECT_EQ(r.status, 0) << program << "\n" << r.output;
      for (const std::string& want :
           {std::string("after: cudaErrorIllegalAddress"), std::string(c.line), std::string(c.said),
            std::string("by thread (")})
        EXPECT_TRUE(Says(r.output, want)) << program;
      EXPECT_FALSE(Says(r.output, "simulator/src/")) << program;
    }
  }
}

TEST_F(Tools, MemcheckReportsOutOfBoundsWithLineThreadAndBuffer) {
  const std::string dir = kPrograms + "/checks/";
  ASSERT_EQ(run(kCC + " " + dir + "oob_write.cu -o " + path("w")).status, 0);
  Result r = run("CUDALAB_CHECK=memcheck " + path("w"));
  EXPECT_EQ(r.status, 0) << "without CUDALAB_CHECK_EXITCODE the program's own status";
  for (const char* want : {"Invalid __global__ write of size 4 bytes", "at fill in ",
                           "oob_write.cu:6", "by thread (232,0,0) in block (3,0,0)",
                           "1 byte after the last byte of the 4000-byte buffer `x` allocated at ",
                           "oob_write.cu:12", "(24 accesses like it at this line)",
                           "ERROR SUMMARY: 1 error", "after: cudaErrorLaunchFailure"})
    EXPECT_TRUE(Says(r.output, want));
  Result json =
      run("CUDALAB_CHECK=memcheck CUDALAB_CHECK_JSON=" + path("f.json") + " " + path("w"));
  std::ifstream jf(path("f.json"));
  std::stringstream js;
  js << jf.rdbuf();
  EXPECT_NE(js.str().find("\"errors\": 1"), std::string::npos) << js.str();
  EXPECT_NE(js.str().find("\"kind\": \"write\""), std::string::npos) << js.str();
  EXPECT_NE(js.str().find("oob_write.cu:6"), std::string::npos) << js.str();
  EXPECT_NE(js.str().find("\"count\": 24"), std::string::npos) << js.str();
  Result coded = run("CUDALAB_CHECK=memcheck CUDALAB_CHECK_EXITCODE=3 " + path("w"));
  EXPECT_EQ(coded.status, 3);
  EXPECT_NE(coded.output.find("after: cudaErrorLaunchFailure"), std::string::npos)
      << "output before the exit is kept";

  ASSERT_EQ(run(kCC + " " + dir + "oob_read_before.cu -o " + path("r")).status, 0);
  r = run("CUDALAB_CHECK=all " + path("r"));
  EXPECT_TRUE(Says(r.output, "Invalid __global__ read of size 4 bytes"));
  EXPECT_TRUE(Says(r.output, "oob_read_before.cu:6"));
  EXPECT_TRUE(Says(r.output, "4 bytes before the start of the 256-byte buffer"));

  ASSERT_EQ(run(kCC + " " + dir + "clean_stride.cu -o " + path("c")).status, 0);
  r = run("CUDALAB_CHECK=memcheck CUDALAB_CHECK_EXITCODE=3 " + path("c"));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(Says(r.output, "ERROR SUMMARY: 0 errors"));
  EXPECT_EQ(r.output.find("Invalid"), std::string::npos) << r.output;

  ASSERT_EQ(run(kCC + " " + dir + "use_after_free.cu -o " + path("u")).status, 0);
  r = run("CUDALAB_CHECK=memcheck " + path("u"));
  EXPECT_TRUE(Says(r.output, "use_after_free.cu:4"));
  EXPECT_TRUE(Says(r.output, "is in memory that was freed"));
  EXPECT_TRUE(Says(r.output, "which was already freed (cudaFree)"));

  ASSERT_EQ(run(kCC + " " + dir + "shared_oob.cu -o " + path("s")).status, 0);
  r = run("CUDALAB_CHECK=memcheck " + path("s"));
  EXPECT_TRUE(Says(r.output, "Invalid __shared__ write of size 4 bytes"));
  EXPECT_TRUE(Says(r.output, "by thread (64,0,0) in block (0,0,0)"));
  EXPECT_TRUE(Says(r.output, "256 bytes of dynamic shared memory"));

  ASSERT_EQ(run(kCC + " " + dir + "leak.cu -o " + path("l")).status, 0);
  r = run("CUDALAB_CHECK=memcheck " + path("l"));
  EXPECT_NE(r.output.find("ERROR SUMMARY: 0 errors"), std::string::npos) << "leaks are opt-in";
  r = run("CUDALAB_CHECK=memcheck CUDALAB_CHECK_LEAKS=1 " + path("l"));
  EXPECT_TRUE(Says(r.output, "Leaked 4000 bytes"));
  EXPECT_TRUE(Says(r.output, "leak.cu:4 and never freed"));
  EXPECT_TRUE(Says(r.output, "ERROR SUMMARY: 1 error"));

  r = run("CUDALAB_CHECK=memchek " + path("c"));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(Says(r.output, "'memchek', which is not a check"));
}

// Buffers allocated on one line get their own names, in turn; a read past
// the end of one is named after it.
TEST_F(Tools, MemcheckNamesEachBufferOfALine) {
  ASSERT_EQ(run(kCC + " " + kPrograms + "/two_on_a_line.cu -o " + path("p")).status, 0);
  const Result r = run("CUDALAB_CHECK=memcheck " + path("p"));
  EXPECT_TRUE(Says(r.output, "after the last byte of the 4000-byte buffer `b`")) << r.output;
  EXPECT_EQ(r.output.find("buffer `a`"), std::string::npos) << r.output;
}

TEST_F(Tools, SynccheckReportsABarrierReachedByPartOfTheBlock) {
  const std::string dir = kPrograms + "/checks/";
  ASSERT_EQ(run(kCC + " " + dir + "partial_barrier.cu -o " + path("p")).status, 0);
  Result r = run("CUDALAB_CHECK=synccheck " + path("p"));
  for (const char* want : {"Barrier error detected. __syncthreads() was reached by 36 of the "
                           "block's 64 threads; the other 28 returned without reaching it",
                           "at shift in ", "partial_barrier.cu:9", "in block (1,0,0)",
                           "ERROR SUMMARY: 1 error", "after: cudaErrorLaunchFailure"})
    EXPECT_TRUE(Says(r.output, want));
  ASSERT_EQ(run(kCC + " " + dir + "clean_reduction.cu -o " + path("c")).status, 0);
  r = run("CUDALAB_CHECK=all " + path("c"));
  EXPECT_TRUE(Says(r.output, "ERROR SUMMARY: 0 errors"));
  EXPECT_TRUE(Says(r.output, "after: cudaSuccess"));
  r = run(path("p"));
  EXPECT_EQ(r.output.find("Barrier error"), std::string::npos) << "checks are off by default";
}

// The checks corpus: each buggy program names what must be found in lines
// `// expect: TOOL KIND FILE:LINE`; a program without them must get no
// finding at all under CUDALAB_CHECK=all.
TEST_F(Tools, ChecksCorpusFindsEachBugOnItsLineAndCleanProgramsStaySilent) {
  namespace fs = std::filesystem;
  std::vector<fs::path> sources;
  for (const auto& e : fs::directory_iterator(kPrograms + "/checks"))
    if (e.path().extension() == ".cu") sources.push_back(e.path());
  std::sort(sources.begin(), sources.end());
  int buggy = 0, clean = 0;
  for (const fs::path& src : sources) {
    const std::string name = src.stem().string();
    if (name == "endless_loop" || name == "leak") continue;  // their own tests
    std::ifstream in(src);
    std::vector<std::vector<std::string>> expected;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("// expect: ", 0) != 0) continue;
      std::istringstream words(line.substr(11));
      std::vector<std::string> e{std::istream_iterator<std::string>(words), {}};
      ASSERT_EQ(e.size(), 3u) << src << ": " << line;
      expected.push_back(e);
    }
    ASSERT_EQ(run(kCC + " " + src.string() + " -o " + path(name)).status, 0) << src;
    const std::string json_path = path(name + ".json");
    const Result r =
        run("CUDALAB_CHECK=all CUDALAB_CHECK_JSON=" + json_path + " timeout 60 " + path(name));
    std::ifstream jf(json_path);
    std::vector<std::string> findings;  // one JSON object per line
    for (std::string line; std::getline(jf, line);)
      if (line.find("\"tool\"") != std::string::npos) findings.push_back(line);
    if (expected.empty()) {
      ++clean;
      EXPECT_TRUE(findings.empty()) << name << " is correct, yet:\n" << r.output;
      EXPECT_TRUE(Says(r.output, "ERROR SUMMARY: 0 errors")) << name;
      // Correct whatever order the threads run in.
      for (const char* order : {"reverse", "random:1"}) {
        const Result o = run(std::string("CUDALAB_SCHEDULE=") + order +
                             " CUDALAB_CHECK=all timeout 60 " + path(name));
        EXPECT_TRUE(Says(o.output, "ERROR SUMMARY: 0 errors")) << name << " " << order;
      }
      continue;
    }
    ++buggy;
    for (const auto& e : expected) {
      const std::string tool = "\"tool\": \"" + e[0] + "\"", kind = "\"kind\": \"" + e[1] + "\"",
                        where = "/" + e[2] + "\"";
      const bool found = std::any_of(findings.begin(), findings.end(), [&](const std::string& f) {
        return f.find(tool) != std::string::npos && f.find(kind) != std::string::npos &&
               f.find("\"where\": ") != std::string::npos && f.find(where) != std::string::npos;
      });
      EXPECT_TRUE(found) << name << ": no " << e[0] << " " << e[1] << " finding at " << e[2] << "\n"
                         << r.output;
    }
  }
  EXPECT_GE(buggy, 15);
  EXPECT_GE(clean, 6);
}

TEST_F(Tools, FindingsAreRecordedInTraces) {
  const std::string src = kPrograms + "/checks/race_shared_no_barrier.cu";
  ASSERT_EQ(run(kCC + " " + src + " -o " + path("r")).status, 0);
  const Result r =
      run("CUDALAB_CHECK=racecheck CUDALAB_TRACE=" + path("r.trace") + " " + path("r"));
  EXPECT_TRUE(Says(r.output, "Race reported"));
  const cudalab::trace::Trace t = cudalab::trace::read_trace(path("r.trace"));
  ASSERT_EQ(t.launches.size(), 1u);
  ASSERT_FALSE(t.launches[0].findings.empty());
  const auto& f = t.launches[0].findings[0];
  EXPECT_EQ(f.tool, "racecheck");
  EXPECT_EQ(f.kind, "read-after-write");
  EXPECT_NE(f.where.find("race_shared_no_barrier.cu:10"), std::string::npos) << f.where;
  EXPECT_NE(f.message.find("`s` in reverse"), std::string::npos) << f.message;
  EXPECT_EQ(f.count, 32u);
}

// Sectors per request for the classic patterns, as ncu measured them on an
// H200 (docs/reference-figures.md): a[i] 4, a[i+1] 5, a[2i] 8, a[32i] 32, a[0] 1, double 8;
// and shared-memory wavefronts and bank conflicts.
TEST_F(Tools, StatsCountSectorsPerRequestAsNsightComputeDoes) {
  const nlohmann::json stats = access_pattern_stats();
  // Allocations carry the variable each cudaMalloc filled.
  const cudalab::trace::Trace t = cudalab::trace::read_trace(path("p.trace"));
  std::vector<std::string> names;
  for (const auto& a : t.allocations) names.push_back(a.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "d", "out", "big"}));
  const Result table = run(std::string(CUDALAB_CLI_PATH) + " stats " + path("p.trace"));
  EXPECT_EQ(table.status, 0) << table.output;
  EXPECT_TRUE(Says(table.output, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"));
  auto kernel = [&](const std::string& name) -> const nlohmann::json& {
    for (const auto& k : stats["kernels"])
      if (k["kernel"] == name) return k;
    ADD_FAILURE() << "no kernel " << name;
    return stats;
  };
  const std::pair<const char*, double> expected[] = {{"coalesced", 4},  {"offset_by_one", 5},
                                                     {"stride_two", 8}, {"stride_32", 32},
                                                     {"broadcast", 1},  {"doubles", 8}};
  for (const auto& [name, sectors] : expected)
    EXPECT_DOUBLE_EQ(kernel(name)["global_loads"]["sectors_per_request"].get<double>(), sectors)
        << name;
  // Shared memory, per instruction (H200: column 32 wavefronts and 31
  // conflicts, padded column 1 and 0, stride 2 2 and 1).
  const std::tuple<int, double, double> shared[] = {
      {27, 1, 0}, {28, 32, 31}, {29, 1, 0}, {30, 2, 1}, {31, 1, 0}};
  for (const auto& [line, waves, conflicts] : shared) {
    const std::string where = "access_patterns.cu:" + std::to_string(line);
    bool found = false;
    for (const auto& l : kernel("shared_patterns")["lines"]) {
      if (l["where"] != where) continue;
      found = true;
      const auto& loads = l["shared_loads"];
      EXPECT_DOUBLE_EQ(loads["wavefronts_per_request"].get<double>(), waves) << where;
      EXPECT_DOUBLE_EQ(loads["bank_conflicts"].get<double>() / loads["requests"].get<double>(),
                       conflicts)
          << where;
    }
    EXPECT_TRUE(found) << where;
  }
  const Result missing = run(std::string(CUDALAB_CLI_PATH) + " stats " + path("nope.trace"));
  EXPECT_NE(missing.status, 0);
}

// Every figure `cudalab stats` gives for the access patterns equals what
// Nsight Compute measured for the same program on an H200.
TEST_F(Tools, StatsEqualNsightComputeOnAnH200) {
  const nlohmann::json stats = access_pattern_stats();
  // ncu's metric -> where the same figure is in the JSON.
  const std::map<std::string, std::pair<std::string, std::string>> same = {
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", {"global_loads", "requests"}},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", {"global_loads", "sectors"}},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", {"global_stores", "requests"}},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", {"global_stores", "sectors"}},
      {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
       {"global_loads", "efficiency_percent"}},
      {"smsp__sass_inst_executed_op_global_ld.sum", {"global_loads", "requests"}},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", {"shared_loads", "wavefronts"}},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
       {"shared_loads", "bank_conflicts"}},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", {"shared_stores", "wavefronts"}},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
       {"shared_stores", "bank_conflicts"}},
      {"smsp__sass_inst_executed_op_shared_ld.sum", {"shared_loads", "requests"}},
      {"smsp__sass_inst_executed_op_shared_st.sum", {"shared_stores", "requests"}}};
  std::ifstream in(CUDALAB_NCU_PATTERNS);
  ASSERT_TRUE(in) << CUDALAB_NCU_PATTERNS;
  int compared = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string kernel, metric;
    double expected = 0;
    words >> kernel >> metric >> expected;
    auto it = same.find(metric);
    ASSERT_NE(it, same.end()) << metric;
    const nlohmann::json* k = nullptr;
    for (const auto& x : stats["kernels"])
      if (x["kernel"] == kernel) k = &x;
    ASSERT_NE(k, nullptr) << kernel;
    const auto& [group, field] = it->second;
    EXPECT_DOUBLE_EQ((*k)[group][field].get<double>(), expected) << kernel << " " << metric;
    ++compared;
  }
  EXPECT_EQ(compared, 96);
}

// The trace groups lanes as a warp issues them: one request per warp-level
// instruction with its active lanes, numbered by barrier phase, and every
// lane's address back as it was, whatever the pattern.
TEST_F(Tools, TraceGroupsLanesIntoRequestsByWarpAndPhase) {
  ASSERT_EQ(run(kCC + " " + kPrograms + "/warp_steps.cu -o " + path("p")).status, 0);
  const Result r = run("CUDALAB_TRACE=" + path("p.trace") + " " + path("p"));
  ASSERT_EQ(r.status, 0) << r.output;
  const cudalab::trace::Trace t = cudalab::trace::read_trace(path("p.trace"));
  ASSERT_EQ(t.launches.size(), 4u);
  auto line = [&](uint64_t pc) {
    const std::string w = t.where(pc);
    return w.rfind("warp_steps.cu:", 0) == 0 ? std::stoi(w.substr(14)) : 0;
  };
  // uniform<<<1, 48>>>: a full warp and one of 16 lanes.
  const auto& uniform = t.launches[0];
  ASSERT_EQ(uniform.requests.size(), 2u);
  EXPECT_EQ(uniform.requests[0].mask, 0xffffffffu);
  EXPECT_EQ(uniform.requests[1].mask, 0xffffu);
  EXPECT_EQ(uniform.requests[1].warp, 1);
  // phases<<<1, 64>>>: line 22 before the first barrier, 24 between, 26-27 after.
  std::map<int, std::set<uint32_t>> phases_of_line;
  for (const auto& q : t.launches[2].requests) phases_of_line[line(q.pc)].insert(q.phase);
  EXPECT_EQ(phases_of_line[22], std::set<uint32_t>{0});
  EXPECT_EQ(phases_of_line[24], std::set<uint32_t>{1});
  EXPECT_EQ(phases_of_line[26], std::set<uint32_t>{2});
  EXPECT_EQ(phases_of_line[27], std::set<uint32_t>{2});
  // gather: scattered offsets, and lanes of one request in two buffers.
  uint32_t in = 0, other = 0;
  for (const auto& a : t.allocations) {
    if (a.name == "in") in = a.id;
    if (a.name == "other") other = a.id;
  }
  ASSERT_NE(in, 0u);
  ASSERT_NE(other, 0u);
  int scattered = 0, mixed = 0, near = 0;
  for (const auto& a : t.launches[3].all_accesses()) {
    if (a.write || a.allocation == other || (a.allocation == in && line(a.pc) == 36)) {
      if (line(a.pc) == 36 && !a.write) {
        EXPECT_EQ(a.allocation, a.thread % 2 ? other : in) << a.thread;
        EXPECT_EQ(a.offset, a.thread * 4u) << a.thread;
        ++mixed;
      }
      continue;
    }
    if (a.allocation == in && line(a.pc) == 34) {
      EXPECT_EQ(a.offset, ((a.thread * 1237 + 11) % 4096) * 4u) << a.thread;
      ++scattered;
    }
    if (a.allocation == in && line(a.pc) == 37) {
      EXPECT_EQ(a.offset, ((a.thread * 7) % 32) * 4u) << a.thread;
      ++near;
    }
  }
  EXPECT_EQ(scattered, 64);
  EXPECT_EQ(near, 64);
  EXPECT_EQ(mixed, 64);
}

// Warp steps: lanes per step and divergent branches, per kernel and line.
TEST_F(Tools, StatsCountWarpStepsAndDivergentBranches) {
  ASSERT_EQ(run(kCC + " " + kPrograms + "/warp_steps.cu -o " + path("p")).status, 0);
  ASSERT_EQ(run("CUDALAB_TRACE=" + path("p.trace") + " " + path("p")).status, 0);
  const Result r = run(std::string(CUDALAB_CLI_PATH) + " stats --json " + path("p.trace"));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto stats = nlohmann::json::parse(r.output, nullptr, false);
  std::map<std::string, nlohmann::json> kernels;
  for (const auto& k : stats["kernels"]) kernels[k["kernel"]] = k;
  // 48 threads: every step has 32 lanes in warp 0 and 16 in warp 1.
  EXPECT_DOUBLE_EQ(kernels["uniform"]["warp_steps"]["lanes_per_step"].get<double>(), 24.0);
  EXPECT_EQ(kernels["uniform"]["warp_steps"]["divergent_branches"], 0);
  EXPECT_EQ(kernels["phases"]["warp_steps"]["divergent_branches"], 0);
  EXPECT_DOUBLE_EQ(kernels["phases"]["warp_steps"]["efficiency_percent"].get<double>(), 100.0);
  // The loop's lanes leave after 0, 1, 2 and 3 rounds: 3 divergent branches
  // (the last round ends for all), steps of 24, 16 and 8 lanes in the loop.
  const auto& diverging = kernels["diverging"];
  EXPECT_EQ(diverging["warp_steps"]["divergent_branches"], 3);
  bool loop_line = false;
  for (const auto& l : diverging["lines"])
    if (l["where"] == "warp_steps.cu:15") {
      loop_line = true;
      EXPECT_DOUBLE_EQ(l["warp_steps"]["lanes_per_step"].get<double>(), 16.0);
    }
  EXPECT_TRUE(loop_line);
  const Result table = run(std::string(CUDALAB_CLI_PATH) + " stats " + path("p.trace"));
  EXPECT_TRUE(Says(table.output, "smsp__sass_branch_targets_threads_divergent.sum"));
  // Lines of the simulator's own headers are not the student's code.
  EXPECT_EQ(table.output.find("kernel_language.h"), std::string::npos) << table.output;
}

// FLOPs and warp steps against Nsight Compute on an H200, for the kernels
// of programs/flops.cu and warp_steps.cu.
TEST_F(Tools, FlopsAndWarpStepsAgreeWithNsightComputeOnAnH200) {
  std::map<std::string, nlohmann::json> kernels;
  for (const char* program : {"flops", "warp_steps"}) {
    const std::string exe = path(program), trace = path(std::string(program) + ".trace");
    ASSERT_EQ(run(kCC + " " + kPrograms + "/" + program + ".cu -o " + exe).status, 0);
    ASSERT_EQ(run("CUDALAB_TRACE=" + trace + " " + exe).status, 0);
    const Result r = run(std::string(CUDALAB_CLI_PATH) + " stats --json " + trace);
    ASSERT_EQ(r.status, 0) << r.output;
    const nlohmann::json stats = nlohmann::json::parse(r.output);
    for (const auto& k : stats["kernels"]) kernels[k["kernel"]] = k;
  }
  std::map<std::string, std::map<std::string, double>> ncu;  // kernel -> metric -> value
  std::ifstream in(CUDALAB_NCU_FLOPS_WARPS);
  ASSERT_TRUE(in) << CUDALAB_NCU_FLOPS_WARPS;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string kernel, metric;
    double value = 0;
    words >> kernel >> metric >> value;
    ncu[kernel][metric] = value;
  }
  ASSERT_EQ(ncu.size(), 6u);
  auto op = [&](const std::string& k, const char* name) {
    return ncu[k][std::string("smsp__sass_thread_inst_executed_op_") + name + "_pred_on.sum"];
  };
  for (auto& [name, m] : ncu) {
    ASSERT_TRUE(kernels.count(name)) << name;
    const auto& steps = kernels[name]["warp_steps"];
    EXPECT_TRUE(kernels[name]["flops_counted"].get<bool>()) << name;
    // FLOPs: an add or a multiply 1, a fused multiply-add 2.
    EXPECT_EQ(steps["flops_single"].get<double>(),
              op(name, "fadd") + op(name, "fmul") + 2 * op(name, "ffma"))
        << name;
    EXPECT_EQ(steps["flops_double"].get<double>(),
              op(name, "dadd") + op(name, "dmul") + 2 * op(name, "dfma"))
        << name;
  }
  // Lanes per step where both compilers keep one path: 24 for 48 threads, 32
  // for full warps. (Where nvcc predicates a bounds check or unrolls a loop
  // the two differ: matmul 27.02 on the GPU, 28.3 here; see docs.)
  for (const char* name : {"uniform", "phases", "gather"})
    EXPECT_NEAR(kernels[name]["warp_steps"]["lanes_per_step"].get<double>(),
                ncu[name]["smsp__thread_inst_executed_per_inst_executed.ratio"], 0.005)
        << name;
  // The loop whose lanes leave after 0 to 3 rounds: 3 divergent branches.
  EXPECT_EQ(kernels["diverging"]["warp_steps"]["divergent_branches"].get<double>(),
            ncu["diverging"]["smsp__sass_branch_targets_threads_divergent.sum"]);
  // Global loads of the naive matmul on 40x40 (partial warps, row-major B).
  EXPECT_EQ(kernels["matmul"]["global_loads"]["sectors"].get<double>(),
            ncu["matmul"]["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]);
  EXPECT_EQ(kernels["matmul"]["global_loads"]["requests"].get<double>(),
            ncu["matmul"]["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]);
  // Arithmetic intensity: FLOPs per byte of global sectors.
  const auto& mm = kernels["matmul"];
  EXPECT_DOUBLE_EQ(
      mm["arithmetic_intensity"].get<double>(),
      mm["flops"].get<double>() / (32.0 * (mm["global_loads"]["sectors"].get<double>() +
                                           mm["global_stores"]["sectors"].get<double>())));
}

// A capped trace stops recording accesses at the cap, says so on stderr and
// in a note, and stays a whole, readable trace.
TEST_F(Tools, TraceCapStopsRecordingWithANote) {
  const std::string prog = CUDALAB_CMAKE_TRACED_PROGRAM;
  const Result r =
      run("CUDALAB_TRACE_MAX_ACCESSES=70 CUDALAB_TRACE=" + path("c.trace") + " " + prog);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(Says(r.output, "recording of accesses stops here"));
  const cudalab::trace::Trace t = cudalab::trace::read_trace(path("c.trace"));
  ASSERT_EQ(t.launches.size(), 1u);
  EXPECT_EQ(t.accesses_total, 70u);
  EXPECT_EQ(t.launches[0].all_accesses().size(), 70u);
  bool noted = false;
  for (const auto& n : t.notes) noted |= n.find("stopped at the limit of 70") != std::string::npos;
  EXPECT_TRUE(noted);
  const Result bad =
      run("CUDALAB_TRACE_MAX_ACCESSES=lots CUDALAB_TRACE=" + path("d.trace") + " " + prog);
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(Says(bad.output, "is not a positive number"));
}

TEST_F(Tools, TraceBlocksRecordsTheChosenBlocksOnly) {
  const std::string prog = CUDALAB_CMAKE_TRACED_PROGRAM;
  ASSERT_EQ(run("CUDALAB_TRACE_BLOCKS=1,3-4 CUDALAB_TRACE=" + path("b.trace") + " " + prog).status,
            0);
  const cudalab::trace::Trace t = cudalab::trace::read_trace(path("b.trace"));
  ASSERT_FALSE(t.launches.empty());
  std::set<uint32_t> blocks;
  for (const auto& l : t.launches)
    for (const auto& r : l.requests) blocks.insert(r.block);
  EXPECT_FALSE(blocks.empty());
  for (uint32_t b : blocks) EXPECT_TRUE(b == 1 || b == 3 || b == 4) << b;
  ASSERT_FALSE(t.notes.empty());
  EXPECT_NE(t.notes[0].find("only the accesses of blocks 1,3-4"), std::string::npos);
  const Result bad = run("CUDALAB_TRACE_BLOCKS=3-1 CUDALAB_TRACE=" + path("x.trace") + " " + prog);
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(Says(bad.output, "is not a list of blocks"));
}

TEST_F(Tools, SchedulesReorderThreadsAndASeedReplaysItsOrder) {
  // Every thread writes one place: the last to run wins (a race, on purpose).
  std::ofstream(path("last.cu")) << "#include <cstdio>\n"
                                    "__global__ void last(int* out) {\n"
                                    "  __syncthreads();\n"
                                    "  *out = threadIdx.x;\n"
                                    "}\n"
                                    "int main() {\n"
                                    "  int* d; int h = -1;\n"
                                    "  cudaMalloc(&d, sizeof(int));\n"
                                    "  last<<<1, 64>>>(d);\n"
                                    "  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);\n"
                                    "  std::printf(\"last=%d\\n\", h);\n"
                                    "}\n";
  ASSERT_EQ(run(kCC + " " + path("last.cu") + " -o " + path("last")).status, 0);
  EXPECT_TRUE(Says(run(path("last")).output, "last=62"))
      << "in order, the last thread to arrive at the barrier goes on first";
  EXPECT_TRUE(Says(run("CUDALAB_SCHEDULE=reverse " + path("last")).output, "last=1"));
  const Result a = run("CUDALAB_SCHEDULE=random:7 " + path("last"));
  const Result b = run("CUDALAB_SCHEDULE=random:7 " + path("last"));
  EXPECT_TRUE(Says(a.output, "seed 7 (CUDALAB_SCHEDULE=random:7 runs this order again)"));
  EXPECT_EQ(a.output, b.output) << "one seed, one order";
  std::set<std::string> seen;
  for (int seed = 1; seed <= 8; ++seed) {
    const std::string out =
        run("CUDALAB_SCHEDULE=random:" + std::to_string(seed) + " " + path("last")).output;
    seen.insert(out.substr(out.find("last=")));
  }
  EXPECT_GT(seen.size(), 2u) << "different seeds give different orders";
  const Result bad = run("CUDALAB_SCHEDULE=sideways " + path("last"));
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(Says(bad.output, "use in-order (the default), reverse, random or random:SEED"));
}

TEST_F(Tools, ATimeLimitStopsAnEndlessKernel) {
  ASSERT_EQ(run(kCC + " " + kPrograms + "/checks/endless_loop.cu -o " + path("e")).status, 0);
  Result r = run("CUDALAB_TIMEOUT=0.5 timeout 30 " + path("e"));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(Says(r.output, "ran longer than CUDALAB_TIMEOUT=0.5 seconds and was stopped"));
  EXPECT_TRUE(Says(r.output, "after: cudaErrorLaunchTimeout"));
}

TEST_F(Tools, TheSimulatedGpuIsSelectable) {
  std::ofstream(path("props.cu"))
      << "#include <cstdio>\n"
         "int main() {\n"
         "  cudaDeviceProp p;\n"
         "  cudaGetDeviceProperties(&p, 0);\n"
         "  int sms = 0;\n"
         "  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);\n"
         "  std::printf(\"%s sm_%d%d %d\\n\", p.name, p.major, p.minor, sms);\n"
         "}\n";
  ASSERT_EQ(run(kCC + " " + path("props.cu") + " -o " + path("props")).status, 0);
  EXPECT_NE(run(path("props")).output.find("H100 80GB HBM3 (cudalab simulator) sm_90 132"),
            std::string::npos);
  EXPECT_NE(run("CUDALAB_DEVICE=a100 " + path("props"))
                .output.find("A100-SXM4-80GB (cudalab simulator) sm_80 108"),
            std::string::npos);
  Result bad = run("CUDALAB_DEVICE=voodoo2 " + path("props"));
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(Says(bad.output, "choose h100 (the default), h200 or a100"));
}

TEST_F(Tools, PrintfInKernelsAndPinnedHostMemory) {
  std::ofstream(path("hello.cu")) << "#include <cstdio>\n"
                                     "__global__ void hello(int n) {\n"
                                     "  if (threadIdx.x < n) printf(\"hello from thread %d of "
                                     "block %d\\n\", threadIdx.x, blockIdx.x);\n"
                                     "}\n"
                                     "int main() {\n"
                                     "  int* pinned;\n"
                                     "  if (cudaMallocHost(&pinned, 64) != cudaSuccess) return 1;\n"
                                     "  hello<<<2, 32>>>(2);\n"
                                     "  cudaDeviceSynchronize();\n"
                                     "  return cudaFreeHost(pinned) == cudaSuccess ? 0 : 1;\n"
                                     "}\n";
  ASSERT_EQ(run(kCC + " " + path("hello.cu") + " -o " + path("h")).status, 0);
  Result r = run(path("h"));
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* line : {"hello from thread 0 of block 0", "hello from thread 1 of block 0",
                           "hello from thread 0 of block 1", "hello from thread 1 of block 1"})
    EXPECT_NE(r.output.find(line), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("thread 2 "), std::string::npos);
}

}  // namespace
