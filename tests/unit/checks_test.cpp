// The simulator's checks (CUDALAB_CHECK: memcheck, racecheck, synccheck): each
// finding at its line, and the corpus of buggy and clean programs.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cudalab/trace/finding.h"
#include "tool_test.h"

namespace {

namespace fs = std::filesystem;

using cudalab::testing::checks_program;
using cudalab::testing::kCC;
using cudalab::testing::kPrograms;
using cudalab::testing::Result;
using cudalab::testing::run;
using cudalab::testing::Says;

class Checks : public cudalab::testing::ToolTest {
 protected:
  // tests/programs/checks/NAME.cu (as the build made it) run under CHECKS.
  Result under(const std::string& checks, const std::string& name) {
    return run("CUDALAB_CHECK=" + checks + " " + checks_program(name));
  }
  Result under_racecheck(const std::string& name) { return under("racecheck", name); }
};

TEST_F(Checks, RacecheckNamesARaceAcrossLoopIterations) {
  const Result r = under_racecheck("race_across_iterations");
  EXPECT_TRUE(Says(r.output, "the two are in different iterations of a loop")) << r.output;
  EXPECT_TRUE(Says(r.output, "Put a __syncthreads() at the end of the loop body, after line 17"))
      << r.output;
}

// A tile loaded, waited for and read in an inner loop, with no barrier at
// the end of the outer loop's body: both orders of the race (the next
// round's write after a slow thread's read, and the read after it) are
// across iterations, and the barrier goes after the inner loop, at the end
// of the outer body, not between the two lines (one is there already).
TEST_F(Checks, RacecheckAcrossIterationsInBothOrdersWantsTheBarrierAtTheBodysEnd) {
  const Result r = under_racecheck("race_tiles_next_round");
  EXPECT_TRUE(Says(r.output, "Read access at tiled_sums")) << r.output;
  EXPECT_TRUE(Says(r.output,
                   "one thread's next iteration (line 16) runs while another still works "
                   "on this one (line 19). Put a __syncthreads() at the end of the loop "
                   "body, after line 20"))
      << r.output;
  EXPECT_FALSE(Says(r.output, "nothing orders the two")) << r.output;
  EXPECT_FALSE(Says(r.output, "after line 19")) << r.output;
}

// Without a loop around them, a race whose later access is on the earlier
// line (a tile's write after another thread's read) wants a barrier between
// the two lines, not one at the end of a loop body.
TEST_F(Checks, RacecheckWithoutALoopWantsABarrierBetweenTheLines) {
  const Result r = under_racecheck("race_tile_no_barrier");
  EXPECT_TRUE(Says(r.output, "nothing orders the two: put a __syncthreads() between them"))
      << r.output;
  EXPECT_FALSE(Says(r.output, "iterations of a loop")) << r.output;
}

// A later access on an earlier line with no barrier between the two lines
// is the same iteration's (a fast thread already writes where a slow one has
// still to read): a barrier between them, not one at the end of a loop
// (none holds both lines; a comment with the word "for" above the kernel
// once made the whole kernel look like one).
TEST_F(Checks, RacecheckWithNoBarrierBetweenTheLinesWantsOneThere) {
  const Result r = under_racecheck("race_reuse_without_barrier");
  EXPECT_TRUE(Says(r.output, "nothing orders the two: put a __syncthreads() between them"))
      << r.output;
  EXPECT_FALSE(Says(r.output, "iterations of a loop")) << r.output;
}

// A line that reads another thread's element and writes its own, in a loop
// with no barrier in its body (a tree whose rounds are not waited for):
// the barrier goes at the end of the loop body; reading into a variable
// would not help.
TEST_F(Checks, RacecheckInALoopWithoutABarrierWantsOneAtTheEndOfItsBody) {
  const Result r = under_racecheck("race_tree_rounds");
  EXPECT_TRUE(Says(r.output,
                   "line 16 is inside a loop (lines 15 to 17) with no __syncthreads() in "
                   "its body"))
      << r.output;
  EXPECT_TRUE(Says(r.output, "Put a __syncthreads() at the end of the loop body, after line 16"))
      << r.output;
  EXPECT_FALSE(Says(r.output, "read into a variable")) << r.output;
}

// bins[b]++ on shared bins by the block's threads: the line reads, changes
// and writes back one element others update too, whatever the hazard's
// kind: an atomic is the fix, not a barrier.
TEST_F(Checks, RacecheckOnAnElementUpdatedInPlaceWantsAnAtomic) {
  const Result r = under_racecheck("race_shared_increment");
  EXPECT_TRUE(Says(r.output,
                   "line 13 reads, changes and writes back one element that other "
                   "threads update too"))
      << r.output;
  EXPECT_TRUE(Says(r.output, "Use an atomic (atomicAdd(&x[i], v))")) << r.output;
  EXPECT_FALSE(Says(r.output, "read into a variable")) << r.output;
  EXPECT_FALSE(Says(r.output, "__syncthreads() between them")) << r.output;
}

// Two threads storing into one element with a plain `=` (an index with the
// wrong row length): the index is the fix, not an atomic; also with the
// bounds check on the store's own line (if (...) out[..] = ...), as
// students write it.
TEST_F(Checks, RacecheckOnTwoStoresToOneElementPointsAtTheIndex) {
  for (const auto& [name, line] : {std::pair<const char*, int>{"race_store_collision", 11},
                                   {"race_store_collision_guarded", 10}}) {
    const Result r = under_racecheck(name);
    EXPECT_TRUE(Says(r.output, "two threads store into one element of out on line " +
                                   std::to_string(line) +
                                   ": their index gives both the same place"))
        << r.output;
    EXPECT_FALSE(Says(r.output, "atomic")) << r.output;
  }
}

// An uninitialized read of shared memory says why the element has no value,
// from the lines above it that write the array: a store with no barrier
// between it and the read (the barrier is missing), stores with one that
// leave the element out (a halo never loaded), or no store at all (a sum
// into shared memory nobody set to 0).
TEST_F(Checks, InitcheckInSharedMemorySaysWhyTheElementHasNoValue) {
  Result r = under("initcheck", "uninit_shared_no_barrier");
  EXPECT_TRUE(Says(r.output,
                   "line 11 writes `local` and line 13 reads it with no __syncthreads() between "
                   "them"))
      << r.output;
  EXPECT_TRUE(Says(r.output, "Put a __syncthreads() after line 11")) << r.output;
  r = under("initcheck", "uninit_shared");
  EXPECT_TRUE(Says(r.output,
                   "no thread of the block had written this element when line 12 read it: the "
                   "line that writes `tile` (9) leaves it out"))
      << r.output;
  r = under("initcheck", "uninit_shared_never_set");
  EXPECT_TRUE(Says(r.output,
                   "no line of the kernel before line 10 gives `counts` its values, and shared "
                   "memory starts with whatever was there, not 0"))
      << r.output;
  // Global memory: no advice of this kind (the host's copies fill it).
  r = under("initcheck", "uninit_global");
  EXPECT_FALSE(Says(r.output, "no thread of the block")) << r.output;
  EXPECT_FALSE(Says(r.output, "gives `")) << r.output;
}

// out[i] = f(in[i - 1], in[i], in[i + 1]) racing on one buffer: the host
// passed one buffer as both; two buffers are the fix, not a barrier.
TEST_F(Checks, RacecheckOnAnInputThatIsTheOutputSaysTheyAreOneBuffer) {
  const Result r = under_racecheck("race_in_place_two_names");
  EXPECT_TRUE(Says(r.output,
                   "line 11 writes out and reads another array, yet the two accesses are "
                   "to one buffer"))
      << r.output;
  EXPECT_TRUE(Says(r.output, "Give the kernel two buffers")) << r.output;
  EXPECT_FALSE(Says(r.output, "__syncthreads()")) << r.output;
}

// A negative index into a kernel's first static __shared__ array (a
// signed char as a bin): how far before the array, and that the index is
// below 0, not "outside every variable".
TEST_F(Checks, MemcheckSaysHowFarBeforeASharedArrayANegativeIndexLands) {
  const Result r = under("memcheck", "shared_negative_index");
  EXPECT_TRUE(Says(r.output,
                   "is 64 bytes before the first byte of `bins` in count (static "
                   "__shared__, 1024 bytes): an index below 0"))
      << r.output;
  EXPECT_FALSE(Says(r.output, "outside every static __shared__ variable")) << r.output;
}

// One cuRAND state shared by a block (the race is in cuRAND's code on one
// side): a state per thread is the fix, not a barrier.
TEST_F(Checks, RacecheckOnASharedRandomStateWantsAStatePerThread) {
  const Result r = under_racecheck("race_shared_curand_state");
  EXPECT_TRUE(Says(r.output,
                   "the threads share one curandState, which each draw reads and writes "
                   "back: give each thread its own"))
      << r.output;
  EXPECT_FALSE(Says(r.output, "put a __syncthreads()")) << r.output;
}

// The findings of a CUDALAB_CHECK_JSON report, as the simulator wrote them.
nlohmann::json report_findings(const std::string& file) {
  std::ifstream in(file);
  const auto report = nlohmann::json::parse(in, nullptr, false);
  return report.is_object() && report.contains("findings") ? report["findings"]
                                                           : nlohmann::json::array();
}

TEST_F(Checks, TheFindingsTheSimulatorWritesReadBackFieldByField) {
  // What finding.cpp writes and what the one reader of a finding's JSON
  // (cudalab/trace/finding.h) reads, field by field: an access, a race and
  // a failed call.
  using cudalab::trace::FindingFields;
  run("CUDALAB_CHECK=memcheck CUDALAB_CHECK_JSON=" + path("w.json") + " " +
      checks_program("oob_write"));
  nlohmann::json findings = report_findings(path("w.json"));
  ASSERT_EQ(findings.size(), 1u) << findings.dump();
  FindingFields f;
  ASSERT_TRUE(cudalab::trace::finding_fields(findings[0], &f));
  EXPECT_EQ(f.tool, "memcheck");
  EXPECT_EQ(f.kind, "write");
  EXPECT_EQ(f.space, "__global__");
  EXPECT_EQ(f.size, 4u);
  EXPECT_TRUE(Says(f.where, "oob_write.cu:6")) << f.where;
  EXPECT_EQ(f.thread, (FindingFields::Triple{232, 0, 0}));
  EXPECT_EQ(f.block, (FindingFields::Triple{3, 0, 0}));
  EXPECT_EQ(cudalab::trace::triple_text(*f.thread), "(232,0,0)");
  EXPECT_EQ(f.count, 24u);
  EXPECT_TRUE(Says(f.message, "4000-byte buffer `x`")) << f.message;
  EXPECT_EQ(f.where_other, "");
  EXPECT_FALSE(f.other_thread);

  run("CUDALAB_CHECK=racecheck CUDALAB_CHECK_JSON=" + path("r.json") + " " +
      checks_program("race_across_iterations"));
  findings = report_findings(path("r.json"));
  ASSERT_FALSE(findings.empty());
  bool found = false;  // the race across the loop's iterations (there is one within them too)
  for (const auto& object : findings)
    if (!found && cudalab::trace::finding_fields(object, &f) && f.kind == "write-after-read")
      found = true;
  ASSERT_TRUE(found) << findings.dump();
  EXPECT_EQ(f.tool, "racecheck");
  EXPECT_EQ(f.kind, "write-after-read");
  EXPECT_TRUE(Says(f.where, "race_across_iterations.cu:14")) << f.where;
  EXPECT_TRUE(Says(f.where_other, "race_across_iterations.cu:")) << f.where_other;
  EXPECT_TRUE(f.other_thread && f.other_block);
  EXPECT_TRUE(Says(f.advice, "iterations of a loop")) << f.advice;

  run("CUDALAB_CHECK=memcheck CUDALAB_CHECK_JSON=" + path("d.json") + " " +
      checks_program("double_free"));
  findings = report_findings(path("d.json"));
  ASSERT_FALSE(findings.empty());
  ASSERT_TRUE(cudalab::trace::finding_fields(findings[0], &f));
  EXPECT_EQ(f.kind, "api");
  EXPECT_EQ(f.call, "cudaFree");
  EXPECT_EQ(f.error, "cudaErrorInvalidValue");
  EXPECT_FALSE(f.thread) << "a call has no thread";

  // Not a finding, and fields of the wrong type: absent, with the defaults.
  EXPECT_FALSE(cudalab::trace::finding_fields(nlohmann::json::array(), &f));
  ASSERT_TRUE(cudalab::trace::finding_fields(
      nlohmann::json{{"tool", 3}, {"thread", {1, 2}}, {"block", {1, -2, 0}}, {"count", "x"}}, &f));
  EXPECT_EQ(f.tool, "");
  EXPECT_FALSE(f.thread);
  EXPECT_FALSE(f.block);
  EXPECT_EQ(f.count, 1u);
}

TEST_F(Checks, MemcheckReportsOutOfBoundsWithLineThreadAndBuffer) {
  Result r = run("CUDALAB_CHECK=memcheck " + checks_program("oob_write"));
  EXPECT_EQ(r.status, 0) << "without CUDALAB_CHECK_EXITCODE the program's own status";
  for (const char* want : {"Invalid __global__ write of size 4 bytes", "at fill in ",
                           "oob_write.cu:6", "by thread (232,0,0) in block (3,0,0)",
                           "1 byte after the last byte of the 4000-byte buffer `x` allocated at ",
                           "oob_write.cu:12", "(24 accesses like it at this line)",
                           "ERROR SUMMARY: 1 error", "after: cudaErrorLaunchFailure"})
    EXPECT_TRUE(Says(r.output, want));
  Result json = run("CUDALAB_CHECK=memcheck CUDALAB_CHECK_JSON=" + path("f.json") + " " +
                    checks_program("oob_write"));
  std::ifstream jf(path("f.json"));
  std::stringstream js;
  js << jf.rdbuf();
  EXPECT_NE(js.str().find("\"errors\": 1"), std::string::npos) << js.str();
  EXPECT_NE(js.str().find("\"kind\": \"write\""), std::string::npos) << js.str();
  EXPECT_NE(js.str().find("oob_write.cu:6"), std::string::npos) << js.str();
  EXPECT_NE(js.str().find("\"count\": 24"), std::string::npos) << js.str();
  Result coded =
      run("CUDALAB_CHECK=memcheck CUDALAB_CHECK_EXITCODE=3 " + checks_program("oob_write"));
  EXPECT_EQ(coded.status, 3);
  EXPECT_NE(coded.output.find("after: cudaErrorLaunchFailure"), std::string::npos)
      << "output before the exit is kept";

  r = run("CUDALAB_CHECK=all " + checks_program("oob_read_before"));
  EXPECT_TRUE(Says(r.output, "Invalid __global__ read of size 4 bytes"));
  EXPECT_TRUE(Says(r.output, "oob_read_before.cu:6"));
  EXPECT_TRUE(Says(r.output, "4 bytes before the start of the 256-byte buffer"));

  r = run("CUDALAB_CHECK=memcheck CUDALAB_CHECK_EXITCODE=3 " + checks_program("clean_stride"));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(Says(r.output, "ERROR SUMMARY: 0 errors"));
  EXPECT_EQ(r.output.find("Invalid"), std::string::npos) << r.output;

  r = run("CUDALAB_CHECK=memcheck " + checks_program("use_after_free"));
  EXPECT_TRUE(Says(r.output, "use_after_free.cu:4"));
  EXPECT_TRUE(Says(r.output, "is in memory that was freed"));
  EXPECT_TRUE(Says(r.output, "which was already freed (cudaFree)"));

  r = run("CUDALAB_CHECK=memcheck " + checks_program("shared_oob"));
  EXPECT_TRUE(Says(r.output, "Invalid __shared__ write of size 4 bytes"));
  EXPECT_TRUE(Says(r.output, "by thread (64,0,0) in block (0,0,0)"));
  EXPECT_TRUE(Says(r.output, "256 bytes of dynamic shared memory"));

  r = run("CUDALAB_CHECK=memcheck " + checks_program("leak"));
  EXPECT_NE(r.output.find("ERROR SUMMARY: 0 errors"), std::string::npos) << "leaks are opt-in";
  r = run("CUDALAB_CHECK=memcheck CUDALAB_CHECK_LEAKS=1 " + checks_program("leak"));
  EXPECT_TRUE(Says(r.output, "Leaked 4000 bytes"));
  EXPECT_TRUE(Says(r.output, "leak.cu:4 and never freed"));
  EXPECT_TRUE(Says(r.output, "ERROR SUMMARY: 1 error"));

  r = run("CUDALAB_CHECK=memchek " + checks_program("clean_stride"));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(Says(r.output, "'memchek', which is not a check"));
}

// Buffers allocated on one line get their own names, in turn; a read past
// the end of one is named after it.
TEST_F(Checks, MemcheckNamesEachBufferOfALine) {
  ASSERT_EQ(run(kCC + " " + kPrograms + "/two_on_a_line.cu -o " + path("p")).status, 0);
  const Result r = run("CUDALAB_CHECK=memcheck " + path("p"));
  EXPECT_TRUE(Says(r.output, "after the last byte of the 4000-byte buffer `b`")) << r.output;
  EXPECT_EQ(r.output.find("buffer `a`"), std::string::npos) << r.output;
}

// A read past a kernel's static __shared__ arrays that lands in another
// kernel's (the simulator keeps them side by side; a GPU gives each kernel
// only its own) is out of bounds, and says whose array it reached.
TEST_F(Checks, MemcheckNamesAnotherKernelsSharedArrayAsOutOfBounds) {
  const Result r = run("CUDALAB_CHECK=memcheck " + checks_program("other_kernels_shared"));
  EXPECT_TRUE(Says(r.output, "other_kernels_shared.cu:13")) << r.output;
  EXPECT_TRUE(Says(r.output, "lands in `theirs` in second, another kernel's shared memory"))
      << r.output;
  EXPECT_TRUE(Says(r.output, "after first: cudaErrorLaunchFailure")) << r.output;
}

TEST_F(Checks, SynccheckReportsABarrierReachedByPartOfTheBlock) {
  Result r = run("CUDALAB_CHECK=synccheck " + checks_program("partial_barrier"));
  for (const char* want :
       {"Barrier error detected. __syncthreads() was reached by 36 of the "
        "block's 64 threads; the other 28 ended without reaching it: a barrier inside a branch",
        "at shift in ", "partial_barrier.cu:9", "in block (1,0,0)", "ERROR SUMMARY: 1 error",
        "after: cudaErrorLaunchFailure"})
    EXPECT_TRUE(Says(r.output, want));
  r = run("CUDALAB_CHECK=all " + checks_program("clean_reduction"));
  EXPECT_TRUE(Says(r.output, "ERROR SUMMARY: 0 errors"));
  EXPECT_TRUE(Says(r.output, "after: cudaSuccess"));
  r = run(checks_program("partial_barrier"));
  EXPECT_EQ(r.output.find("Barrier error"), std::string::npos) << "checks are off by default";
}

// The checks corpus: each buggy program names what must be found in lines
// `// expect: TOOL KIND FILE:LINE`; a program without them must get no
// finding at all under CUDALAB_CHECK=all.
TEST_F(Checks, ABarrierPhaseThatNeverEndsIsADeadlockAtItsWait) {
  ASSERT_EQ(run(kCC + " " + kPrograms + "/barrier_never_completes.cu -o " + path("b")).status, 0);
  for (const char* how : {"", "CUDALAB_CHECK=all ", "CUDALAB_BLOCK_LOOPS=off "}) {
    const Result r = run(std::string(how) + "timeout 60 " + path("b"));
    for (const char* want : {"block (0,0,0) can never finish: 64 of its 64 threads wait",
                             "64 threads from (0,0,0) wait at a libcu++ wait",
                             "barrier_never_completes.cu:13", "after: cudaErrorLaunchFailure"})
      EXPECT_TRUE(Says(r.output, want)) << how << want << "\n" << r.output;
  }
}

// One program of the corpus built and checked: what is wrong with what the
// checks said ("" when all is as its `// expect:` lines say), and whether it
// is a buggy one.
struct CorpusResult {
  std::string problems;
  bool buggy = false;
};

CorpusResult CheckCorpusProgram(const std::filesystem::path& src, const std::string& out) {
  CorpusResult c;
  const std::string name = src.stem().string();
  std::ifstream in(src);
  std::vector<std::vector<std::string>> expected;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("// expect: ", 0) != 0) continue;
    std::istringstream words(line.substr(11));
    std::vector<std::string> e{std::istream_iterator<std::string>(words), {}};
    if (e.size() != 3u) return {src.string() + ": not TOOL KIND FILE:LINE: " + line + "\n", false};
    expected.push_back(e);
  }
  const std::string program = checks_program(name);
  if (!std::filesystem::exists(program))
    return {program + " is not built (cmake --build --preset tests)\n", false};
  const std::string json_path = out + ".json";
  const Result r =
      run("CUDALAB_CHECK=all CUDALAB_CHECK_JSON=" + json_path + " timeout 60 " + program);
  std::ifstream jf(json_path);
  std::vector<std::string> findings;  // one JSON object per line
  for (std::string line; std::getline(jf, line);)
    if (line.find("\"tool\"") != std::string::npos) findings.push_back(line);
  if (expected.empty()) {
    if (!findings.empty()) c.problems += name + " is correct, yet:\n" + r.output + "\n";
    if (!Says(r.output, "ERROR SUMMARY: 0 errors")) c.problems += name + ": no 0-error summary\n";
    // Correct whatever order the threads run in.
    for (const char* order : {"reverse", "random:1"}) {
      const Result o = run(std::string("CUDALAB_SCHEDULE=") + order +
                           " CUDALAB_CHECK=all timeout 60 " + program);
      if (!Says(o.output, "ERROR SUMMARY: 0 errors"))
        c.problems += name + " " + order + ":\n" + o.output + "\n";
    }
    return c;
  }
  c.buggy = true;
  for (const auto& e : expected) {
    const std::string tool = "\"tool\": \"" + e[0] + "\"", kind = "\"kind\": \"" + e[1] + "\"",
                      where = "/" + e[2] + "\"";
    const bool found = std::any_of(findings.begin(), findings.end(), [&](const std::string& f) {
      return f.find(tool) != std::string::npos && f.find(kind) != std::string::npos &&
             f.find("\"where\": ") != std::string::npos && f.find(where) != std::string::npos;
    });
    if (!found)
      c.problems +=
          name + ": no " + e[0] + " " + e[1] + " finding at " + e[2] + "\n" + r.output + "\n";
  }
  return c;
}

TEST_F(Checks, ChecksCorpusFindsEachBugOnItsLineAndCleanProgramsStaySilent) {
  namespace fs = std::filesystem;
  std::vector<fs::path> sources;
  for (const auto& e : fs::directory_iterator(kPrograms + "/checks"))
    if (e.path().extension() == ".cu") sources.push_back(e.path());
  std::sort(sources.begin(), sources.end());
  std::erase_if(sources, [](const fs::path& src) {
    return src.stem() == "endless_loop" || src.stem() == "leak";  // their own tests
  });
  // Two programs at a time: each is mostly one compile and one run.
  std::vector<CorpusResult> results(sources.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < sources.size();)
      results[i] = CheckCorpusProgram(sources[i], path(sources[i].stem().string()));
  };
  std::thread helper(work);
  work();
  helper.join();
  int buggy = 0, clean = 0;
  for (size_t i = 0; i < sources.size(); ++i) {
    EXPECT_EQ(results[i].problems, "") << sources[i];
    (results[i].buggy ? buggy : clean) += 1;
  }
  EXPECT_GE(buggy, 15);
  EXPECT_GE(clean, 6);
}

}  // namespace
