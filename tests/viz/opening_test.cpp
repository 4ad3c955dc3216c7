// Where cudalab-viz opens (visualizer/src/options.h, opening.h), without a
// window: each command-line option and what it selects, the refusals with
// the messages and exit statuses the viewer gives them, and the defaults
// the trace and its graded tests call for (a faulted launch on the thread
// that faulted, a failing test on the launch that wrote its wrong values,
// a check finding's thread, the tab a failing test is best seen in).
#include "opening.h"

#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "atomic_tells.h"
#include "headline.h"
#include "options.h"

namespace {

namespace viz = cudalab::viz;
namespace tr = cudalab::trace;

// The command line `cudalab-viz ARGS...`, read.
struct Parsed {
  viz::Options options;
  std::optional<viz::Stop> stop;
};
Parsed parse(std::initializer_list<const char*> args) {
  std::vector<const char*> argv = {"cudalab-viz"};
  argv.insert(argv.end(), args.begin(), args.end());
  Parsed p;
  p.stop = viz::parse_options(int(argv.size()), argv.data(), &p.options);
  return p;
}

// A refusal's message, or "opened" when there was none.
std::string refusal(const Parsed& p) { return p.stop ? p.stop->message : "opened"; }

// Two launches: "fill" (2 blocks of 64 threads) touching allocation 1, and
// "scale" (4 blocks of 32) touching allocation 2.
tr::Trace two_launches() {
  tr::Trace t;
  for (uint32_t id : {1u, 2u}) {
    tr::Allocation a;
    a.id = id;
    a.size = 4 * 256;
    t.allocation_index[id] = t.allocations.size();
    t.allocations.push_back(a);
  }
  tr::Launch fill;
  fill.id = 1;
  fill.kernel = "fill";
  fill.grid.x = 2;
  fill.block.x = 64;
  tr::Request r;
  r.allocation = 1;
  fill.requests.push_back(r);
  tr::Launch scale = fill;
  scale.id = 2;
  scale.kernel = "scale";
  scale.grid.x = 4;
  scale.block.x = 32;
  scale.requests[0].allocation = 2;
  t.launches = {fill, scale};
  return t;
}

// The opening for `args` (after the trace's name) over `t` and `results`.
struct Opened {
  viz::Opening opening;
  std::optional<viz::Stop> stop;
  const viz::Selection& sel() const { return opening.selection; }
};
Opened open(const tr::Trace& t, std::initializer_list<const char*> args,
            const tr::TestResults* results = nullptr) {
  std::vector<const char*> argv = {"cudalab-viz", "t.trace"};
  argv.insert(argv.end(), args.begin(), args.end());
  viz::Options o;
  Opened out;
  out.stop = viz::parse_options(int(argv.size()), argv.data(), &o);
  EXPECT_FALSE(out.stop) << out.stop->message;
  if (!out.stop) out.stop = viz::choose_opening(o, t, results, &out.opening);
  return out;
}
std::string refusal(const Opened& o) { return o.stop ? o.stop->message : "opened"; }

tr::Finding finding(int64_t block, int64_t thread) {
  tr::Finding f;
  f.tool = "racecheck";
  f.kind = "read-after-write";
  f.block = block;
  f.thread = thread;
  return f;
}

// A graded test of the given status and kind, as the grader writes it.
tr::GradedTestResult graded(const std::string& name, const std::string& status,
                            const std::string& kind = "test") {
  tr::GradedTestResult g;
  g.name = name;
  g.kind = kind;
  g.status = status;
  return g;
}

// --- the command line ----------------------------------------------------------

TEST(Options, ATraceAloneTakesTheDefaults) {
  const Parsed p = parse({"t.trace"});
  ASSERT_FALSE(p.stop);
  EXPECT_EQ(p.options.trace_path, "t.trace");
  EXPECT_EQ(p.options.width, 1280);
  EXPECT_EQ(p.options.height, 800);
  EXPECT_EQ(p.options.launch, 1);
  EXPECT_EQ(p.options.block, 0);
  EXPECT_EQ(p.options.thread, -1);
  EXPECT_FALSE(p.options.chosen);
  EXPECT_EQ(p.options.step, -1);
  EXPECT_EQ(p.options.access, -1);
  EXPECT_EQ(p.options.finding, 0);
}

TEST(Options, EachOptionIsRead) {
  const Parsed p = parse(
      {"t.trace", "--size",  "800x600", "--launch",      "2",    "--block",   "3",  "--thread",
       "4",       "--step",  "5",       "--instruction", "6",    "--columns", "16", "--line",
       "k.cu:7",  "--tests", "t.json",  "--screenshot",  "s.png"});
  ASSERT_FALSE(p.stop) << p.stop->message;
  EXPECT_EQ(p.options.width, 800);
  EXPECT_EQ(p.options.height, 600);
  EXPECT_EQ(p.options.launch, 2);
  EXPECT_EQ(p.options.block, 3);
  EXPECT_EQ(p.options.thread, 4);
  EXPECT_TRUE(p.options.chosen);
  EXPECT_EQ(p.options.step, 5);
  EXPECT_EQ(p.options.instruction, 6);
  EXPECT_EQ(p.options.columns, 16);
  EXPECT_EQ(p.options.line, "k.cu:7");
  EXPECT_EQ(p.options.tests_path, "t.json");
  EXPECT_EQ(p.options.screenshot, "s.png");
  EXPECT_TRUE(parse({"t.trace", "--block", "0"}).options.chosen) << "any of the three chooses";
}

TEST(Options, HelpAndNoTraceGiveTheUsage) {
  const Parsed help = parse({"--help"});
  ASSERT_TRUE(help.stop);
  EXPECT_EQ(help.stop->status, 0);
  EXPECT_TRUE(help.stop->usage);
  EXPECT_EQ(help.stop->message, "");
  const Parsed none = parse({});
  ASSERT_TRUE(none.stop);
  EXPECT_EQ(none.stop->status, 2);
  EXPECT_TRUE(none.stop->usage);
  EXPECT_EQ(none.stop->message, "");
}

TEST(Options, ValuesOutOfRangeAreRefusedWithWhatIsWanted) {
  for (const auto& [args, said] : std::vector<std::pair<std::vector<const char*>, std::string>>{
           {{"--step", "65536"}, "--step wants a barrier phase from 0 to 65535"},
           {{"--step", "-1"}, "--step wants a barrier phase from 0 to 65535"},
           {{"--access", "-1"}, "--access wants a whole number from 0"},
           {{"--access", "two"}, "--access wants a whole number from 0"},
           {{"--step", "0", "--instruction", "-2"}, "--instruction wants a whole number from 0"},
           {{"--finding", "0"}, "--finding wants a whole number from 1"},
           {{"--columns", "4097"}, "--columns wants a whole number from 1 to 4096"},
           {{"--launch", "0"}, "--launch wants a whole number from 1"},
           {{"--thread", "-1"}, "--thread wants a whole number from 0"},
           {{"--size", "100x100"}, "--size wants WIDTHxHEIGHT, from 320x240 to 8192x8192"},
           {{"--line", "k.cu"}, "--line wants FILE.cu:LINE, as the Source tab names it"},
           {{"--snapshots", ""}, "--snapshots wants a folder to save them in"},
       }) {
    std::vector<const char*> argv = {"cudalab-viz", "t.trace"};
    argv.insert(argv.end(), args.begin(), args.end());
    viz::Options o;
    const auto stop = viz::parse_options(int(argv.size()), argv.data(), &o);
    ASSERT_TRUE(stop) << said;
    EXPECT_EQ(stop->message, said);
    EXPECT_EQ(stop->status, 2) << said;
    EXPECT_FALSE(stop->usage) << said;
  }
}

TEST(Options, MistakesInTheCommandLineAreNamed) {
  const Parsed last = parse({"t.trace", "--step"});
  EXPECT_EQ(refusal(last), "--step needs a value");
  EXPECT_TRUE(last.stop && last.stop->usage);
  const Parsed unknown = parse({"t.trace", "--stpe", "1"});
  EXPECT_EQ(refusal(unknown), "unknown option --stpe");
  EXPECT_TRUE(unknown.stop && unknown.stop->usage);
  EXPECT_EQ(refusal(parse({"a.trace", "b.trace"})),
            "one trace at a time (got a.trace and b.trace)");
  const std::string one_tab =
      "--metrics, --roofline, --step, --access, --finding, --source and --test open different "
      "tabs: give one";
  EXPECT_EQ(refusal(parse({"t.trace", "--step", "1", "--source"})), one_tab);
  EXPECT_EQ(refusal(parse({"t.trace", "--roofline", "--source"})), one_tab);
  EXPECT_TRUE(parse({"t.trace", "--roofline"}).options.roofline);
  EXPECT_EQ(refusal(parse({"t.trace", "--instruction", "1"})),
            "--instruction K counts in a barrier phase: give --step N too");
  EXPECT_EQ(refusal(parse({"t.trace", "--screenshot", "s.png", "--snapshots", "."})),
            "--screenshot draws one frame and exits, --snapshots keeps the window open for F12: "
            "give one");
}

// --- the opening: what the options select ---------------------------------------

TEST(Opening, ByDefaultTheFirstLaunchOnItsHeatmaps) {
  const Opened o = open(two_launches(), {});
  ASSERT_EQ(refusal(o), "opened");
  EXPECT_EQ(o.sel().launch, 0);
  EXPECT_EQ(o.sel().block, 0);
  EXPECT_EQ(o.sel().thread, -1);
  EXPECT_EQ(o.sel().access, -1);
  EXPECT_EQ(o.sel().finding, -1);
  EXPECT_FALSE(o.sel().show_metrics || o.sel().show_steps || o.sel().show_warp ||
               o.sel().show_source || o.sel().show_test);
  EXPECT_TRUE(o.opening.test_findings.empty());
}

TEST(Opening, LaunchBlockAndThreadAsAsked) {
  const Opened o = open(two_launches(), {"--launch", "2", "--block", "3", "--thread", "31"});
  ASSERT_EQ(refusal(o), "opened");
  EXPECT_EQ(o.sel().launch, 1);
  EXPECT_EQ(o.sel().block, 3);
  EXPECT_EQ(o.sel().thread, 31);
}

TEST(Opening, ALaunchBlockOrThreadPastTheTracesEndIsRefused) {
  EXPECT_EQ(refusal(open(two_launches(), {"--launch", "3"})),
            "--launch 3, but the trace has 2 launches");
  EXPECT_EQ(refusal(open(two_launches(), {"--block", "2"})), "launch 1 has 2 blocks of 64 threads");
  EXPECT_EQ(refusal(open(two_launches(), {"--launch", "2", "--thread", "32"})),
            "launch 2 has 4 blocks of 32 threads");
  const Opened o = open(two_launches(), {"--launch", "3"});
  ASSERT_TRUE(o.stop);
  EXPECT_EQ(o.stop->status, 2);
}

TEST(Opening, ATabAndWhereInIt) {
  const tr::Trace t = two_launches();
  EXPECT_TRUE(open(t, {"--metrics"}).sel().show_metrics);
  EXPECT_TRUE(open(t, {"--source"}).sel().show_source);
  const Opened steps = open(t, {"--step", "2", "--instruction", "5"});
  EXPECT_TRUE(steps.sel().show_steps);
  EXPECT_EQ(steps.sel().phase, 2);
  EXPECT_EQ(steps.sel().instruction, 5);
  const Opened warp = open(t, {"--thread", "1", "--access", "3"});
  EXPECT_TRUE(warp.sel().show_warp);
  EXPECT_EQ(warp.sel().access, 3);
  const Opened line = open(t, {"--line", "k.cu:12", "--columns", "16"});
  EXPECT_EQ(line.sel().line, "k.cu:12");
  EXPECT_EQ(line.sel().columns, 16);
  EXPECT_FALSE(line.sel().show_source) << "a line is framed on the heatmaps";
}

// A phase or an access past what the block or thread has is no refusal: the
// tab clamps the phase to the block's last, and says to pick an access.
TEST(Opening, AStepOrAccessPastTheBlocksIsKeptForItsTab) {
  const Opened steps = open(two_launches(), {"--step", "65535"});
  ASSERT_EQ(refusal(steps), "opened");
  EXPECT_EQ(steps.sel().phase, 65535);
  const Opened access = open(two_launches(), {"--access", "1000"});
  ASSERT_EQ(refusal(access), "opened");
  EXPECT_EQ(access.sel().access, 1000);
  EXPECT_EQ(access.sel().thread, -1);
}

// --- the opening: what the trace calls for --------------------------------------

TEST(Opening, AFaultedLaunchOpensOnTheThreadThatFaulted) {
  tr::Trace t = two_launches();
  t.launches[1].faulted = true;
  t.launches[1].fault.known = true;
  t.launches[1].fault.block = 3;
  t.launches[1].fault.thread = 7;
  const Opened o = open(t, {});
  EXPECT_EQ(o.sel().launch, 1);
  EXPECT_EQ(o.sel().block, 3);
  EXPECT_EQ(o.sel().thread, 7);
  // What was asked for comes first.
  const Opened asked = open(t, {"--thread", "2"});
  EXPECT_EQ(asked.sel().launch, 0);
  EXPECT_EQ(asked.sel().block, 0);
  EXPECT_EQ(asked.sel().thread, 2);
  // A fault of an older trace, which does not say which thread: no thread.
  t.launches[1].fault.known = false;
  EXPECT_EQ(open(t, {}).sel().launch, 0);
}

TEST(Opening, ALaunchThatNeverEndedOpensOnAThreadWhoseRoundsTheTraceHolds) {
  tr::Trace t = two_launches();
  tr::Launch& l = t.launches[1];  // 4 blocks of 32
  l.faulted = true;
  l.fault.known = l.fault.never_ended = true;
  l.fault.block = 3;
  l.fault.thread = 7;
  tr::TestResults r;
  r.traced_test = r.shown = "Large";
  r.tests = {graded("Large", "failed")};
  r.tests[0].verdict = "timed out";
  // Recording stopped before the named thread's turn: the busiest thread
  // of the first block recorded, and its accesses, not the test's words.
  for (int i = 0; i < 20; ++i) {
    tr::Request q;
    q.block = 2;
    q.mask = 1u << 4 | (i % 2 ? 1u << 9 : 0u);
    l.requests.push_back(q);
  }
  Opened o = open(t, {}, &r);
  EXPECT_EQ(o.sel().launch, 1);
  EXPECT_EQ(o.sel().block, 2);
  EXPECT_EQ(o.sel().thread, 4);
  EXPECT_FALSE(o.sel().show_test);
  // The named thread, once the trace holds 16 of its accesses.
  for (int i = 0; i < 16; ++i) {
    tr::Request q;
    q.block = 3;
    q.mask = 1u << 7;
    l.requests.push_back(q);
  }
  o = open(t, {}, &r);
  EXPECT_EQ(o.sel().block, 3);
  EXPECT_EQ(o.sel().thread, 7);
}

TEST(Opening, WithoutAFaultTheFirstFindingsThread) {
  tr::Trace t = two_launches();
  t.launches[0].findings = {finding(1, -1), finding(1, 9)};  // a barrier's first: no thread
  const Opened o = open(t, {});
  EXPECT_EQ(o.sel().block, 1);
  EXPECT_EQ(o.sel().thread, 9);
  EXPECT_EQ(o.sel().finding, -1) << "selected, not stepped to";
  EXPECT_EQ(open(t, {"--block", "0"}).sel().thread, -1);
}

TEST(Opening, AFindingIsSteppedTo) {
  tr::Trace t = two_launches();
  t.launches[1].findings = {finding(2, 5), finding(3, -1)};
  const Opened o = open(t, {"--launch", "2", "--finding", "1"});
  ASSERT_EQ(refusal(o), "opened");
  EXPECT_EQ(o.sel().finding, 0);
  EXPECT_TRUE(o.sel().finding_asked);
  EXPECT_EQ(o.sel().block, 2);
  EXPECT_EQ(o.sel().thread, 5);
  // A barrier finding: its block, no thread.
  const Opened barrier = open(t, {"--launch", "2", "--finding", "2"});
  EXPECT_EQ(barrier.sel().block, 3);
  EXPECT_EQ(barrier.sel().thread, -1);
}

TEST(Opening, AFindingTheLaunchHasNotIsRefused) {
  tr::Trace t = two_launches();
  EXPECT_EQ(refusal(open(t, {"--finding", "1"})),
            "--finding 1, but launch 1 has 0 findings (record the trace with CUDALAB_CHECK set)");
  t.launches[0].findings = {finding(-1, -1)};
  EXPECT_EQ(refusal(open(t, {"--finding", "2"})), "--finding 2, but launch 1 has 1 findings");
  EXPECT_EQ(refusal(open(t, {"--finding", "1"})), "finding 1 names no block to step through");
}

// --- the opening: what the graded tests call for --------------------------------

TEST(Opening, ATestOpensOnTheLaunchThatWroteItsWrongValues) {
  const tr::Trace t = two_launches();
  tr::TestResults r;
  tr::Comparison c;
  c.name = "out";
  c.allocation = 2;  // written by launch 2, "scale"
  c.count = 64;
  c.wrong = 3;
  c.row_length = 8;
  r.compared = {c};
  const Opened o = open(t, {}, &r);
  EXPECT_EQ(o.sel().launch, 1);
  EXPECT_EQ(o.sel().columns, 8) << "in the rows of the test's matrix";
  EXPECT_EQ(open(t, {"--columns", "4"}, &r).sel().columns, 4);
  EXPECT_EQ(open(t, {"--launch", "1"}, &r).sel().launch, 0);
  // An array that does not start its buffer has rows that do not start a row of cells.
  r.compared[0].offset = 16;
  EXPECT_EQ(open(t, {}, &r).sel().columns, 0);
  // No wrong values: the first launch.
  r.compared[0].wrong = 0;
  EXPECT_EQ(open(t, {}, &r).sel().launch, 0);
}

TEST(Opening, ATestsFindingsGoOnTheLaunchOfTheirKernel) {
  const tr::Trace t = two_launches();
  tr::TestResults r;
  r.findings = {R"({"tool":"racecheck","kind":"write","kernel":"scale",)"
                R"("block":[1,0,0],"thread":[6,0,0]})",
                R"({"tool":"memcheck","kind":"read","block":[1,0,0],"thread":[40,0,0]})"};
  const Opened o = open(t, {}, &r);
  ASSERT_EQ(o.opening.test_findings.size(), 2u);
  EXPECT_EQ(o.opening.test_findings[0].first, 1u) << "scale's, not the launch opened";
  EXPECT_EQ(o.opening.test_findings[0].second.thread, 6);
  EXPECT_EQ(o.opening.test_findings[1].first, 0u) << "no kernel named: the launch opened";
  EXPECT_EQ(o.opening.test_findings[1].second.thread, 40);
  // The opened launch's: its thread selected, and --finding counts them.
  EXPECT_EQ(o.sel().block, 1);
  EXPECT_EQ(o.sel().thread, 40);
  const Opened stepped = open(t, {"--launch", "2", "--finding", "1"}, &r);
  ASSERT_EQ(refusal(stepped), "opened");
  EXPECT_EQ(stepped.sel().thread, 6);
  tr::Trace placed = t;
  viz::place_test_findings(o.opening, placed);
  EXPECT_EQ(placed.launches[0].findings.size(), 1u);
  EXPECT_EQ(placed.launches[1].findings.size(), 1u);
}

// Two launches of one kernel: a finding that says its launch goes on it,
// and the picture opens there (no wrong values chose a launch).
TEST(Opening, AFindingGoesOnTheLaunchItNames) {
  tr::Trace t = two_launches();
  t.launches[1].kernel = "fill";
  tr::TestResults r;
  r.findings = {R"({"tool":"memcheck","kind":"read","kernel":"fill","launch":2,)"
                R"("block":[3,0,0],"thread":[5,0,0]})"};
  const Opened o = open(t, {}, &r);
  ASSERT_EQ(o.opening.test_findings.size(), 1u);
  EXPECT_EQ(o.opening.test_findings[0].first, 1u);
  EXPECT_EQ(o.sel().launch, 1);
  EXPECT_EQ(o.sel().block, 3);
  EXPECT_EQ(o.sel().thread, 5);
  // A launch of another kernel, or one the trace has not: by its kernel.
  r.findings = {R"({"tool":"memcheck","kind":"read","kernel":"scale","launch":1,)"
                R"("block":[1,0,0],"thread":[5,0,0]})"};
  t.launches[1].kernel = "scale";
  EXPECT_EQ(open(t, {}, &r).opening.test_findings[0].first, 1u);
  r.findings = {R"({"tool":"memcheck","kind":"read","kernel":"fill","launch":9,)"
                R"("block":[1,0,0],"thread":[5,0,0]})"};
  EXPECT_EQ(open(t, {}, &r).opening.test_findings[0].first, 0u);
  // Wrong values last written by launch 2 and a bad access in launch 1:
  // the bad access leads the headline, and the picture opens on it; an
  // uninitialized read does not lead, and the values' launch stays.
  tr::Comparison c;
  c.name = "out";
  c.allocation = 2;
  c.count = 64;
  c.wrong = 1;
  c.runs = {{3, 1}};
  r.compared = {c};
  r.findings = {R"({"tool":"memcheck","kind":"read","kernel":"fill","launch":1,)"
                R"("block":[1,0,0],"thread":[5,0,0]})"};
  EXPECT_EQ(open(t, {}, &r).sel().launch, 0);
  r.findings = {R"({"tool":"initcheck","kind":"uninitialized","kernel":"fill","launch":1,)"
                R"("block":[1,0,0],"thread":[5,0,0]})"};
  EXPECT_EQ(open(t, {}, &r).sel().launch, 1);
}

TEST(Opening, AGradedTestByName) {
  tr::TestResults r;
  r.tests = {graded("Small", "passed"), graded("Large", "failed")};
  const Opened o = open(two_launches(), {"--test", "Large"}, &r);
  ASSERT_EQ(refusal(o), "opened");
  EXPECT_EQ(o.sel().test, 1);
  EXPECT_TRUE(o.sel().show_test);
  EXPECT_EQ(refusal(open(two_launches(), {"--test", "Huge"}, &r)),
            "no graded test named Huge; the tests are: Small Large");
  EXPECT_EQ(refusal(open(two_launches(), {"--test", "Large"})),
            "--test Large, but no graded tests go with t.trace");
}

TEST(Opening, AFailingTestWithNothingDrawnOpensOnWhatItSaid) {
  tr::TestResults r;
  r.shown = "Large";
  r.tests = {graded("Small", "passed"), graded("Large", "failed")};
  const Opened o = open(two_launches(), {}, &r);
  EXPECT_TRUE(o.sel().show_test);
  EXPECT_EQ(o.sel().test, 1);
  // A tab asked for comes first.
  EXPECT_FALSE(open(two_launches(), {"--line", "k.cu:3"}, &r).sel().show_test);
  // Wrong elements to frame, or a finding to show: the heatmaps.
  tr::Trace found = two_launches();
  found.launches[1].findings = {finding(0, 0)};
  EXPECT_FALSE(open(found, {}, &r).sel().show_test);
  // ... the test's own findings too (from its run under the checks).
  r.findings = {R"({"tool":"memcheck","kind":"read","block":[0,0,0],"thread":[1,0,0]})"};
  EXPECT_FALSE(open(two_launches(), {}, &r).sel().show_test);
}

TEST(Opening, AMethodRubricsFigureOpensTheMetricsOnItsLine) {
  tr::TestResults r;
  r.shown = "Coalesced";
  r.tests = {graded("Large", "passed"), graded("Coalesced", "failed", "rubric")};
  r.tests[1].verdict = "metric out of bounds";
  r.tests[1].output = "sectors per request 16.0 at /src/mine.cu:67, at most 4.5\n";
  const Opened o = open(two_launches(), {}, &r);
  EXPECT_TRUE(o.sel().show_metrics);
  EXPECT_EQ(o.sel().line, "mine.cu:67");
}

// --- the opening: what a check finding calls for --------------------------------

TEST(Opening, ARaceInSharedMemoryOrABarrierProblemOpensTheStepsAtIt) {
  tr::Trace t = two_launches();
  tr::Finding shared_race = finding(1, 7);
  shared_race.space = "__shared__";
  tr::Finding global_race = finding(0, 3);
  global_race.space = "__global__";
  t.launches[0].findings = {global_race, shared_race};
  Opened o = open(t, {});
  EXPECT_EQ(o.sel().finding, -1) << "a race in global memory: the heatmaps frame it";
  EXPECT_EQ(o.sel().block, 0);
  EXPECT_EQ(o.sel().thread, 3);
  t.launches[0].findings = {shared_race};
  o = open(t, {});
  EXPECT_EQ(o.sel().finding, 0);
  EXPECT_TRUE(o.sel().finding_asked) << "only the steps draw a block's shared memory";
  EXPECT_EQ(o.sel().block, 1);
  EXPECT_EQ(o.sel().thread, 7);
  EXPECT_FALSE(open(t, {"--metrics"}).sel().finding_asked) << "a tab asked for comes first";
  tr::Finding barrier = finding(1, -1);
  barrier.tool = "synccheck";
  barrier.kind = "partial";
  t.launches[0].findings = {barrier};
  EXPECT_TRUE(open(t, {}).sel().finding_asked);
}

TEST(Opening, OfTwoRacesTheOneSeenMostOften) {
  tr::Trace t = two_launches();
  tr::Finding rare = finding(1, 7), often = finding(0, 5);
  rare.count = 3;
  often.count = 300;
  t.launches[0].findings = {rare, often};
  EXPECT_EQ(viz::focus_finding(t.launches[0].findings), 1);
  EXPECT_EQ(open(t, {}).sel().thread, 5);
}

TEST(Opening, AMemcheckErrorComesBeforeARace) {
  tr::Trace t = two_launches();
  tr::Finding race = finding(1, 7);
  race.space = "__shared__";
  tr::Finding bad = finding(0, 2);
  bad.tool = "memcheck";
  bad.kind = "write";
  t.launches[0].findings = {race, bad};
  const Opened o = open(t, {});
  EXPECT_EQ(o.sel().block, 0);
  EXPECT_EQ(o.sel().thread, 2);
  EXPECT_FALSE(o.sel().finding_asked);
}

// Of two bad accesses, the write past the end leads: an array too small is
// written past its end first, and its reads past the end follow.
TEST(Opening, ABadWriteComesBeforeABadRead) {
  tr::Trace t = two_launches();
  tr::Finding read = finding(0, 0), write = finding(0, 1);
  read.tool = write.tool = "memcheck";
  read.kind = "read";
  write.kind = "write";
  read.count = 200;
  write.count = 100;
  t.launches[0].findings = {read, write};
  EXPECT_EQ(viz::focus_finding(t.launches[0].findings), 1);
}

// A barrier inside an `if` that part of the block skips lets the block's
// threads race on shared memory: the barrier is the cause, the races its
// symptoms, so the barrier leads.
TEST(Opening, ABarrierProblemComesBeforeTheRacesItCauses) {
  tr::Trace t = two_launches();
  tr::Finding race = finding(1, 7);
  race.space = "__shared__";
  race.count = 500;
  tr::Finding barrier = finding(1, -1);
  barrier.tool = "synccheck";
  barrier.kind = "divergent";
  t.launches[0].findings = {race, barrier};
  EXPECT_EQ(viz::focus_finding(t.launches[0].findings), 1);
  const Opened o = open(t, {});
  EXPECT_TRUE(o.sel().finding_asked);
  EXPECT_EQ(o.sel().finding, 1);
}

TEST(Opening, AnUninitializedReadLeavesTheWrongValuesInFront) {
  tr::Trace t = two_launches();
  tr::Finding unset = finding(1, 4);
  unset.tool = "initcheck";
  unset.kind = "uninitialized";
  unset.space = "__shared__";
  t.launches[0].findings = {unset};
  EXPECT_TRUE(open(t, {}).sel().finding_asked) << "no wrong values: the steps show the read";
  tr::TestResults r;
  tr::Comparison c;
  c.name = "out";
  c.allocation = 1;
  c.count = 256;
  c.wrong = 3;
  r.compared = {c};
  EXPECT_FALSE(open(t, {}, &r).sel().finding_asked) << "the wrong values show it better";
}

// --- the headline ----------------------------------------------------------------

// The memory of a launch over one buffer of `rows` x `row` elements, each
// cell last written by the block `block_of(i)` gives (-1: by none).
struct OneBuffer {
  tr::Allocation allocation;
  viz::LaunchMemory memory;
  OneBuffer(uint64_t elements, const std::function<int64_t(uint64_t)>& block_of) {
    allocation.id = 1;
    allocation.size = 4 * elements;
    viz::BufferMap b;
    b.allocation = &allocation;
    b.cells = elements;
    for (uint64_t i = 0; i < elements; ++i) {
      b.last_block.push_back(block_of(i));
      b.last_thread.push_back(block_of(i) < 0 ? -1 : 0);
    }
    b.last_writer_block = b.last_block;
    b.last_writer_thread = b.last_thread;
    memory.buffers.push_back(b);
  }
};

// A test that failed with the elements `wrong` of "out" (allocation 1),
// `row` elements a row.
tr::TestResults wrong_out(const std::vector<uint64_t>& wrong, uint64_t count, uint64_t row) {
  tr::TestResults r;
  r.traced_test = r.shown = "Large";
  r.tests = {graded("Large", "failed")};
  tr::Comparison c;
  c.name = "out";
  c.allocation = 1;
  c.count = count;
  c.row_length = row;
  c.wrong = wrong.size();
  for (uint64_t i : wrong) {
    c.runs.emplace_back(i, 1);
    c.elements.push_back({i, "0", "1"});
  }
  r.compared = {c};
  return r;
}

// A read of `size` bytes at `offset` of allocation `id` by one lane of
// `block`, at the end of launch `l`'s requests.
void read(tr::Launch& l, uint32_t id, uint32_t block, uint64_t offset, uint8_t size = 4) {
  tr::Request r;
  r.block = block;
  r.size = size;
  r.mask = 1;
  r.allocation = id;
  r.offset = offset;
  r.lanes_at = l.lane_data.size();
  l.lane_data.push_back(char(tr::LaneEncoding::kDeltas8));
  l.requests.push_back(r);
}

// One lane's access at the end of `l`'s requests: thread `thread` (linear)
// of `block`, in barrier phase `phase`, at code address `pc`; kind 0 a
// read, 1 a store, 2 an atomic.
void lane_access(tr::Launch& l, uint32_t id, uint32_t block, uint32_t thread, uint64_t offset,
                 uint8_t kind, uint64_t pc, uint32_t phase = 0) {
  read(l, id, block, offset);
  tr::Request& r = l.requests.back();
  r.warp = uint16_t(thread / 32);
  r.mask = 1u << (thread % 32);
  r.kind = kind;
  r.pc = pc;
  r.phase = phase;
}

// A trace of one launch of blocks of 64 threads whose lines 79 (pc 1), 83
// (pc 2) and 44 (pc 3) are in exercise.cu.
tr::Trace with_lines() {
  tr::Trace t = two_launches();
  t.launches.resize(1);
  t.launches[0].requests.clear();
  t.sites[1] = {"exercise.cu", 79};
  t.sites[2] = {"exercise.cu", 83};
  t.sites[3] = {"exercise.cu", 44};
  return t;
}

TEST(Headline, NothingWrongSaysNothing) {
  const tr::Trace t = two_launches();
  const OneBuffer b(64, [](uint64_t) { return 0; });
  const viz::Headline h = viz::headline(t, nullptr, 0, b.memory);
  EXPECT_EQ(h.kind, viz::HeadlineKind::kNone);
  EXPECT_EQ(h.text, "");
}

// Where the first wrong element was stored last: the line to look at when
// no check finds the bug (a wrong sum, a max that starts at 0).
TEST(Headline, WrongValuesNameTheStoreThatWroteTheFirst) {
  tr::Trace t = two_launches();
  t.sites[0x40] = tr::Site{"/course/exercise.cu", 42};
  tr::Request store;
  store.block = 1;
  store.warp = 1;
  store.kind = 1;
  store.size = 4;
  store.mask = 1u << 5;  // thread 37 of block 1
  store.pc = 0x40;
  store.allocation = 1;
  store.offset = 4 * 10;
  store.lanes_at = t.launches[0].lane_data.size();
  t.launches[0].lane_data.push_back(char(tr::LaneEncoding::kDeltas8));
  t.launches[0].requests.push_back(store);
  const OneBuffer halves(64, [](uint64_t i) { return int64_t(i / 32); });
  tr::TestResults r = wrong_out({10}, 64, 8);
  EXPECT_EQ(viz::headline(t, &r, 0, halves.memory).text,
            "Test Large failed. 1 of the 64 elements of out are wrong (framed in yellow); the "
            "first, out[10] (row 1, column 2), is 0, expected 1, written last by thread "
            "(37,0,0) of block (1,0,0) at exercise.cu:42");
  // Shown from the second launch, the store is named with its kernel; an
  // atomic is said to be one.
  t.launches[0].requests.back().kind = 2;
  EXPECT_EQ(viz::headline(t, &r, 1, halves.memory).text,
            "Test Large failed. 1 of the 64 elements of out are wrong (framed in yellow); the "
            "first, out[10] (row 1, column 2), is 0, expected 1, updated last by an atomic of "
            "thread (37,0,0) of block (1,0,0) in fill at exercise.cu:42");
  // A store to another element says nothing.
  t.launches[0].requests.back().offset = 4 * 11;
  EXPECT_EQ(viz::headline(t, &r, 0, halves.memory).text,
            "Test Large failed. 1 of the 64 elements of out are wrong (framed in yellow); the "
            "first, out[10] (row 1, column 2), is 0, expected 1");
}

TEST(Headline, WrongValuesSayHowManyAndWhere) {
  const tr::Trace t = two_launches();
  // 8 x 8, rows 0-3 written by block 0 and rows 4-7 by block 1.
  const OneBuffer halves(64, [](uint64_t i) { return int64_t(i / 32); });
  tr::TestResults r = wrong_out({10}, 64, 8);
  EXPECT_EQ(viz::headline(t, &r, 0, halves.memory).text,
            "Test Large failed. 1 of the 64 elements of out are wrong (framed in yellow); the "
            "first, out[10] (row 1, column 2), is 0, expected 1");
  // All on the rows where one block's part meets the other's: a halo bug.
  r = wrong_out({24, 25, 30, 33, 38}, 64, 8);
  const viz::Headline edges = viz::headline(t, &r, 0, halves.memory);
  EXPECT_EQ(edges.kind, viz::HeadlineKind::kWrongValues);
  EXPECT_EQ(edges.text,
            "Test Large failed. 5 of the 64 elements of out are wrong (framed in yellow): all on "
            "the edges between the blocks' parts; the first, out[24] (row 3, column 0), is 0, "
            "expected 1");
  // All on one side of each block's part: the side whose halo went wrong.
  r = wrong_out({24, 25, 30, 31}, 64, 8);
  EXPECT_EQ(viz::headline(t, &r, 0, halves.memory).text,
            "Test Large failed. 4 of the 64 elements of out are wrong (framed in yellow): all on "
            "the last row of each block's part (next to the block below); the first, out[24] "
            "(row 3, column 0), is 0, expected 1");
  // A read by the block below (its halo) does not make an element its.
  OneBuffer read_below(64, [](uint64_t i) { return int64_t(i / 32); });
  for (uint64_t i = 24; i < 32; ++i) read_below.memory.buffers[0].last_block[i] = 1;
  EXPECT_EQ(viz::headline(t, &r, 0, read_below.memory).text,
            "Test Large failed. 4 of the 64 elements of out are wrong (framed in yellow): all on "
            "the last row of each block's part (next to the block below); the first, out[24] "
            "(row 3, column 0), is 0, expected 1");
  // Elements no thread wrote.
  const OneBuffer unwritten(64, [](uint64_t i) { return i < 60 ? 0 : -1; });
  r = wrong_out({60, 61, 62, 63}, 64, 8);
  EXPECT_EQ(viz::headline(t, &r, 0, unwritten.memory).text,
            "Test Large failed. 4 of the 64 elements of out are wrong (framed in yellow): no "
            "thread wrote any of them (the first: out[60])");
  // A buffer the kernel only read (the host copied the results into it):
  // its readers tell the blocks' parts apart, not who wrote what.
  OneBuffer read_only(64, [](uint64_t i) { return int64_t(i / 32); });
  read_only.memory.buffers[0].last_writer_block.assign(64, -1);
  r = wrong_out({24, 25, 30, 31}, 64, 8);
  EXPECT_EQ(viz::headline(t, &r, 0, read_only.memory).text,
            "Test Large failed. 4 of the 64 elements of out are wrong (framed in yellow): all on "
            "the edges between the blocks' parts; the first, out[24] (row 3, column 0), is 0, "
            "expected 1");
  // A block per row: every element is on an edge between the blocks' parts,
  // so the edges tell nothing; the first wrong value is said instead.
  const OneBuffer rows(64, [](uint64_t i) { return int64_t(i / 8); });
  r = wrong_out({24, 25, 26, 27, 28, 29, 30, 31}, 64, 8);
  EXPECT_EQ(viz::headline(t, &r, 0, rows.memory).text,
            "Test Large failed. 8 of the 64 elements of out are wrong (framed in yellow); the "
            "first, out[24] (row 3, column 0), is 0, expected 1");
}

// Wrong values that are each the value expected of the element before
// them (an exclusive scan where an inclusive one was asked, an index off
// by one) say so; by a row, too.
TEST(Headline, ValuesShiftedByOneSaySo) {
  const tr::Trace t = two_launches();
  const OneBuffer one(64, [](uint64_t) { return 0; });
  tr::TestResults r = wrong_out({}, 64, 8);
  auto& c = r.compared[0];
  for (uint64_t i = 1; i < 9; ++i)
    c.elements.push_back({i, std::to_string(i * 10 - 10), std::to_string(i * 10)});
  c.wrong = c.elements.size();
  const std::string said = viz::headline(t, &r, 0, one.memory).text;
  EXPECT_NE(said.find("out[1] (row 0, column 1), is 0, expected 10. Each holds the value "
                      "expected of the element before it: an index off by one, or a scan that "
                      "leaves out its own element"),
            std::string::npos)
      << said;
  // A row above: got[i] = want[i - 8].
  c.elements.clear();
  for (uint64_t i = 8; i < 24; ++i)
    c.elements.push_back({i, std::to_string(i - 8), std::to_string(i)});
  EXPECT_NE(viz::headline(t, &r, 0, one.memory)
                .text.find("Each holds the value expected of the element a row before it"),
            std::string::npos);
  // A square matrix holding the values expected across its diagonal.
  c.elements.clear();
  for (uint64_t i = 0; i < 64; ++i)
    if (i % 8 != i / 8)
      c.elements.push_back({i, std::to_string((i % 8) * 8 + i / 8), std::to_string(i)});
  EXPECT_NE(viz::headline(t, &r, 0, one.memory)
                .text.find("Each holds the value expected at its mirror across the diagonal"),
            std::string::npos);
  // Each off by one amount, while the expected values differ: the amount.
  c.elements.clear();
  for (uint64_t i = 0; i < 16; ++i)
    c.elements.push_back({i, std::to_string(i + 100), std::to_string(i)});
  EXPECT_NE(viz::headline(t, &r, 0, one.memory).text.find("Each is off by the same amount, +100"),
            std::string::npos);
  // Each the same multiple of its expected value.
  for (auto& e : c.elements)
    e.got = std::to_string(32 * (e.index + 1)), e.want = std::to_string(e.index + 1);
  EXPECT_NE(viz::headline(t, &r, 0, one.memory).text.find("Each is 32 times the expected value"),
            std::string::npos);
  // Values in no such relation say nothing of it.
  for (auto& e : c.elements) e.got = "-1";
  EXPECT_EQ(viz::headline(t, &r, 0, one.memory).text.find("Each "), std::string::npos);
}

TEST(Headline, ATransposeByTilesSaysWhichHalfOfItIsWrong) {
  // A 32 x 32 matrix transposed in 8 x 8 tiles: each wrong element holds
  // the value expected at `from(row, column)`; the values expected are
  // the elements' own numbers.
  const tr::Trace t = two_launches();
  const OneBuffer one(1024, [](uint64_t) { return 0; });
  tr::TestResults r = wrong_out({}, 1024, 32);
  auto& c = r.compared[0];
  auto wrong_from = [&](auto from) {
    c.elements.clear();
    for (uint64_t i = 0; i < 1024; ++i)
      if (const uint64_t j = from(i / 32, i % 32); j != i)
        c.elements.push_back({i, std::to_string(j), std::to_string(i)});
    c.wrong = c.elements.size();
    return viz::headline(t, &r, 0, one.memory).text;
  };
  // Each tile in its place, its inside not transposed.
  std::string said = wrong_from([](uint64_t row, uint64_t col) {
    const uint64_t r0 = row - row % 8, c0 = col - col % 8;
    return (r0 + col - c0) * 32 + c0 + row - r0;
  });
  EXPECT_NE(said.find("Each holds the value expected at its mirror inside its own 8 x 8 tile: "
                      "the tiles went to their places, but each tile's inside is not transposed"),
            std::string::npos)
      << said;
  // Each tile transposed inside, in the untransposed place.
  said = wrong_from([](uint64_t row, uint64_t col) {
    const uint64_t r0 = row - row % 8, c0 = col - col % 8;
    return (c0 + row - r0) * 32 + r0 + col - c0;
  });
  EXPECT_NE(said.find("Each holds the value expected at the same place in the 8 x 8 tile "
                      "mirrored across the diagonal"),
            std::string::npos)
      << said;
  // A copy, not a transpose: the whole matrix's mirror, not a tile's.
  said = wrong_from([](uint64_t row, uint64_t col) { return col * 32 + row; });
  EXPECT_NE(said.find("Each holds the value expected at its mirror across the diagonal (row and "
                      "column swapped)"),
            std::string::npos)
      << said;
}

TEST(Headline, WhatTheWritersOfWrongValuesHaveInCommon) {
  // 256 elements of out (allocation 1), element i stored by thread i % 64
  // of block i / 128: the only right ones are thread 0's.
  tr::Trace t = two_launches();
  tr::Launch& l = t.launches[0];  // fill: 2 blocks of 64
  l.requests.clear();
  auto store = [&](uint32_t block, uint32_t thread, uint64_t element) {
    read(l, 1, block, element * 4);
    l.requests.back().kind = 1;
    l.requests.back().warp = uint16_t(thread / 32);
    l.requests.back().mask = 1u << (thread % 32);
  };
  for (uint64_t i = 0; i < 256; ++i) store(uint32_t(i / 128), uint32_t(i % 64), i);
  const OneBuffer one(256, [](uint64_t) { return 0; });
  tr::TestResults r = wrong_out({}, 256, 0);
  auto& c = r.compared[0];
  auto wrong_where = [&](auto is_wrong) {
    c.runs.clear();
    c.elements.clear();
    for (uint64_t i = 0; i < c.count; ++i)
      if (is_wrong(i)) {
        c.runs.emplace_back(i, 1);
        if (c.elements.size() < 1024) c.elements.push_back({i, "-7", std::to_string(i % 5 + 1)});
      }
    c.wrong = c.runs.size();
    return viz::headline(t, &r, 0, one.memory).text;
  };
  std::string said = wrong_where([](uint64_t i) { return i % 64 != 0; });
  EXPECT_NE(said.find("The only right ones are those thread (0,0,0) of each block wrote: do the "
                      "other threads use a value only it has"),
            std::string::npos)
      << said;
  // Half the right ones by other threads: nothing to say of it.
  said = wrong_where([](uint64_t i) { return i % 64 != 0 && i % 2 == 1; });
  EXPECT_EQ(said.find("The only right ones"), std::string::npos) << said;

  // A 64 x 64 matrix in 32-wide tiles, each tile stored by the block at
  // its own place (block (x, y): the tile at column x, row y); the tiles
  // off the diagonal are wrong.
  l.grid = {2, 2, 1};
  l.block = {32, 8, 1};
  l.requests.clear();
  for (uint64_t i = 0; i < 4096; ++i) {
    const uint64_t row = i / 64, col = i % 64;
    store(uint32_t(col / 32 + (row / 32) * 2), uint32_t(col % 32), i);
  }
  c.count = 4096;
  c.row_length = 64;
  said = wrong_where([](uint64_t i) { return (i / 64) / 32 != (i % 64) / 32; });
  EXPECT_NE(said.find("Each wrong 32-wide tile was written by the block at its own place (block "
                      "(x, y) wrote the tile at column x, row y)"),
            std::string::npos)
      << said;
}

TEST(Headline, AnInputReadOnceByEachThreadOrSteppedOverSaysHow) {
  // 64 KiB read as 16-byte pieces by a grid of 4 blocks of 32 threads
  // (128 threads): each thread reads its piece, then steps 16 times the
  // grid's threads in pieces (counting bytes) and is past the end: the
  // first 2048 bytes read, the rest never.
  tr::Trace t = two_launches();
  t.allocations[0].size = 65536;
  t.allocations[0].name = "d_data";
  tr::Launch& l = t.launches[1];  // scale: 4 blocks of 32
  l.requests.clear();
  for (uint32_t b = 0; b < 4; ++b)
    for (uint32_t lane = 0; lane < 32; ++lane) {
      read(l, 1, b, (b * 32 + lane) * 16, 16);
      l.requests.back().mask = 1u << lane;
    }
  const OneBuffer one(64, [](uint64_t) { return 0; });
  tr::TestResults r;
  r.traced_test = r.shown = "Counts";
  r.tests = {graded("Counts", "failed")};
  std::string said = viz::headline(t, &r, 1, one.memory).text;
  EXPECT_NE(said.find("15872 of the 16384 elements of d_data were never read in this launch, the "
                      "rest once (the first: d_data[512]). Each of the grid's 128 threads read "
                      "one 16-byte piece and its loop ended there"),
            std::string::npos)
      << said;
  // Each thread reading twice, 16 times the grid's threads apart (in
  // 16-byte pieces): the step.
  l.requests.clear();
  for (uint32_t round = 0; round < 2; ++round)
    for (uint32_t b = 0; b < 4; ++b)
      for (uint32_t lane = 0; lane < 32; ++lane) {
        read(l, 1, b, ((b * 32 + lane) + round * 128 * 16) * 16, 16);
        l.requests.back().mask = 1u << lane;
      }
  said = viz::headline(t, &r, 1, one.memory).text;
  EXPECT_NE(said.find("Each thread's loop steps by 2048 pieces of 16 bytes, 16 times the grid's "
                      "128 threads: is the step counted in bytes"),
            std::string::npos)
      << said;
}

TEST(Headline, ValuesNoKernelWroteSayWhereTheKernelsWrote) {
  tr::Trace t = two_launches();
  t.allocations[1].name = "scratch";
  t.launches[1].requests[0].kind = 1;  // scale writes allocation 2, scratch
  // Every element of out wrong, in no pattern: the results never reached it.
  OneBuffer read_only(64, [](uint64_t i) { return int64_t(i % 3); });
  read_only.memory.buffers[0].last_writer_block.assign(64, -1);
  const tr::TestResults r = wrong_out({9, 20, 41}, 64, 0);
  EXPECT_EQ(viz::headline(t, &r, 0, read_only.memory).text,
            "Test Large failed. 3 of the 64 elements of out are wrong (framed in yellow); the "
            "first, out[9], is 0, expected 1. No kernel wrote out (the launches wrote scratch): "
            "were the results copied back, or the two buffers swapped?");
  // A launch that writes out itself: nothing to say about it.
  t.launches[0].requests[0].kind = 1;
  EXPECT_EQ(viz::headline(t, &r, 0, read_only.memory).text,
            "Test Large failed. 3 of the 64 elements of out are wrong (framed in yellow); the "
            "first, out[9], is 0, expected 1");
}

TEST(Headline, AnInputLeftPartlyUntouchedIsNamed) {
  const tr::Trace t = two_launches();
  OneBuffer out(64, [](uint64_t) { return 0; });
  // d_a: 16 elements and 4 of room after them; 12 and 13 never touched.
  tr::Allocation a;
  a.id = 2;
  a.name = "d_a";
  a.size = 4 * 20;
  viz::BufferMap in;
  in.allocation = &a;
  in.cells = 20;
  for (uint64_t i = 0; i < 20; ++i) in.last_block.push_back(i < 16 && i != 12 && i != 13 ? 0 : -1);
  in.last_writer_block.assign(20, -1);
  out.memory.buffers.push_back(in);
  const tr::TestResults r = wrong_out({10}, 64, 0);
  EXPECT_EQ(viz::headline(t, &r, 0, out.memory).text,
            "Test Large failed. 1 of the 64 elements of out are wrong (framed in yellow); the "
            "first, out[10], is 0, expected 1; no thread touched 2 of the 20 elements of d_a "
            "(dark cells): does a loop stop short of them (its bound)?");
}

// Plain stores of several blocks to one element: the blocks' parts overlap
// (every block starts at element 0); atomics are not counted.
TEST(Headline, ElementsWrittenBySeveralBlocksSaySo) {
  tr::Trace t = two_launches();
  tr::Launch& l = t.launches[0];
  l.requests.clear();
  for (uint32_t blk = 0; blk < 2; ++blk)
    for (uint64_t i = 0; i < 32; ++i) {
      read(l, 1, blk, 4 * i);
      l.requests.back().kind = 1;  // a store
    }
  const OneBuffer b(64, [](uint64_t i) { return i < 32 ? 1 : -1; });
  std::vector<uint64_t> unwritten;
  for (uint64_t i = 32; i < 64; ++i) unwritten.push_back(i);
  tr::TestResults r = wrong_out(unwritten, 64, 0);
  EXPECT_EQ(viz::headline(t, &r, 0, b.memory).text,
            "Test Large failed. 32 of the 64 elements of out are wrong (framed in yellow): no "
            "thread wrote any of them (the first: out[32]). 32 of the 32 elements written were "
            "written by more than one block (out[0] by 2 blocks): the blocks' parts overlap; does "
            "the index leave out the block's offset (blockIdx.x * blockDim.x)?");
  // Atomics: bins many blocks add to, not an overlap; that thread 0 of
  // each block alone added to them is what there is to say.
  for (tr::Request& q : l.requests) q.kind = 2;
  EXPECT_EQ(viz::headline(t, &r, 0, b.memory).text,
            "Test Large failed. 32 of the 64 elements of out are wrong (framed in yellow): no "
            "thread wrote any of them (the first: out[32]). The elements written (32, from out[0] "
            "to out[31]) were all written by thread (0,0,0) of each block: does its loop stop "
            "short of the last element, or should every thread of the block take a share?");
}

// Elements no thread wrote, and every element written by one thread of
// each block (its own part): that thread's loop stops short.
TEST(Headline, ElementsLeftOutByTheOneThreadThatWritesSaySo) {
  tr::Trace t = with_lines();
  tr::Launch& l = t.launches[0];
  for (uint32_t blk = 0; blk < 2; ++blk)
    for (uint64_t i = 0; i < 16; ++i) lane_access(l, 1, blk, 0, 4 * (16 * blk + i), 2, 2);
  const OneBuffer b(64, [](uint64_t i) { return i < 32 ? int64_t(i / 16) : -1; });
  std::vector<uint64_t> unwritten;
  for (uint64_t i = 32; i < 64; ++i) unwritten.push_back(i);
  tr::TestResults r = wrong_out(unwritten, 64, 0);
  EXPECT_EQ(viz::headline(t, &r, 0, b.memory).text,
            "Test Large failed. 32 of the 64 elements of out are wrong (framed in yellow): no "
            "thread wrote any of them (the first: out[32]). The elements written (32, from "
            "out[0] to out[31]) were all written by thread (0,0,0) of each block, at "
            "exercise.cu:83: does its loop stop short of the last element, or should every "
            "thread of the block take a share?");
  // Atomics of both blocks on the same elements (bins all blocks add to):
  // the same.
  tr::Trace bins = with_lines();
  for (uint32_t blk = 0; blk < 2; ++blk)
    for (uint64_t i = 0; i < 32; ++i) lane_access(bins.launches[0], 1, blk, 0, 4 * i, 2, 2);
  EXPECT_NE(viz::headline(bins, &r, 0, b.memory)
                .text.find("The elements written (32, from out[0] to out[31]) were all written by "
                           "thread (0,0,0) of each block"),
            std::string::npos);
  // Two threads of a block writing: nothing of the kind to say.
  l.requests.back().mask = 2;
  EXPECT_EQ(viz::headline(t, &r, 0, b.memory).text,
            "Test Large failed. 32 of the 64 elements of out are wrong (framed in yellow): no "
            "thread wrote any of them (the first: out[32])");
}

// A bad access one grid (or one block) past the thread's own good access
// of the same buffer: a second element per thread with no check of its own.
TEST(Headline, ABadAccessOneGridPastTheThreadsOwnSaysSo) {
  tr::Trace t = with_lines();
  t.allocations[0].size = 4 * 128;
  tr::Launch& l = t.launches[0];  // 2 blocks of 64: 128 threads
  lane_access(l, 1, 0, 5, 4 * 5, 0, 1);
  lane_access(l, 1, 0, 5, 4 * (5 + 128), 0, 2);
  tr::Finding f;
  f.tool = "memcheck";
  f.kind = "read";
  f.where = "exercise.cu:83";
  f.block = 0;
  f.thread = 5;
  l.findings = {f};
  const std::string said =
      "memcheck: read, at exercise.cu:83 (thread (5,0,0) of block (0,0,0)). The access at "
      "exercise.cu:83 is 128 elements (one grid: gridDim.x * blockDim.x) past this thread's own "
      "at exercise.cu:79, and nothing checks it against the end: the index at exercise.cu:83 "
      "needs a bound check of its own (a second element per thread, a loop's next step)";
  EXPECT_EQ(viz::headline(t, nullptr, 0, viz::launch_memory(t, l, 1024)).text, said);
  // One block further: said as such. Any other distance: nothing more.
  l.requests.back().offset = 4 * (5 + 64);
  t.allocations[0].size = 4 * 64;
  EXPECT_NE(viz::headline(t, nullptr, 0, viz::launch_memory(t, l, 1024))
                .text.find("is 64 elements (one block: blockDim.x) past"),
            std::string::npos);
  l.requests.back().offset = 4 * (5 + 70);
  EXPECT_EQ(viz::headline(t, nullptr, 0, viz::launch_memory(t, l, 1024)).text,
            "memcheck: read, at exercise.cu:83 (thread (5,0,0) of block (0,0,0))");
}

// Bad accesses past the end of a buffer: only the element just past it (a
// bound one too far, an index one too high), or many elements from
// several threads (no check of the index against the size).
TEST(Headline, AccessesPastTheEndSayWhatTheyHaveInCommon) {
  tr::Trace t = with_lines();
  t.allocations[0].name = "d_a";
  t.allocations[0].size = 4 * 100;
  tr::Launch& l = t.launches[0];
  lane_access(l, 1, 1, 36, 4 * 100, 0, 2);
  tr::Finding f;
  f.tool = "memcheck";
  f.kind = "read";
  f.where = "exercise.cu:83";
  f.message = "1 byte after the last byte of the 400-byte buffer `d_a` allocated at grade.cu:9";
  f.block = 1;
  f.thread = 36;
  l.findings = {f};
  const std::string said =
      "memcheck: read, " + f.message + ", at exercise.cu:83 (thread (36,0,0) of block (1,0,0))";
  EXPECT_EQ(viz::headline(t, nullptr, 0, viz::launch_memory(t, l, 1024)).text,
            said +
                ". It is the element just past the end (index n of an array of n): does a "
                "loop or a check go one too far (<= where < was meant), or is the index one "
                "too high?");
  // Threads 37 to 40 past it too: their index is not checked.
  for (uint32_t k = 1; k <= 4; ++k) lane_access(l, 1, 1, 36 + k, 4 * (100 + k), 0, 2);
  EXPECT_EQ(viz::headline(t, nullptr, 0, viz::launch_memory(t, l, 1024)).text,
            said +
                ". 5 accesses at exercise.cu:83 went past the end of d_a, from element 100 (of "
                "100), by threads whose index is past it: the index at exercise.cu:83 needs a "
                "check against the size (i < n) before the access, or the check there tests "
                "another index");
  // In shared memory: the element just past the end, once a block at most.
  l.findings[0].space = "__shared__";
  l.findings[0].message = "1 byte after the last byte of `partial` (static __shared__, 1024 bytes)";
  EXPECT_NE(viz::headline(t, nullptr, 0, viz::launch_memory(t, l, 1024))
                .text.find("It is the element just past the end"),
            std::string::npos);
  l.findings[0].count = 100;
  EXPECT_EQ(viz::headline(t, nullptr, 0, viz::launch_memory(t, l, 1024))
                .text.find("It is the element just past the end"),
            std::string::npos);
  // Thread 63 reading element 63 + 64 of an array of 64: a tree's partner
  // read before the reader is checked, or a first offset too large.
  l.findings[0].message =
      "253 bytes after the last byte of `counts` (static __shared__, 256 bytes)";
  l.findings[0].thread = 63;
  EXPECT_NE(viz::headline(t, nullptr, 0, viz::launch_memory(t, l, 1024))
                .text.find(". Thread 63 reads element 63 + 64 of an array of 64: a partner 64 "
                           "away. In a tree the first offset is half the elements"),
            std::string::npos);
  // A static array of 32 floats for a block of 64: thread 32 is the first
  // past its end.
  l.findings[0].message = "1 byte after the last byte of `partial` (static __shared__, 128 bytes)";
  l.findings[0].thread = 32;
  EXPECT_EQ(viz::headline(t, nullptr, 0, viz::launch_memory(t, l, 1024)).text,
            "memcheck: read, " + l.findings[0].message +
                ", at exercise.cu:83 (thread (32,0,0) of block (1,0,0)). Thread 32 is the first "
                "past the end: the array has 32 elements and the block 64 threads that index it: "
                "is it declared too small (an element per thread), or should those threads not "
                "get to this line?");
}

TEST(Headline, AFindingSaysItsToolLineAndThreads) {
  tr::Trace t = two_launches();
  const OneBuffer b(64, [](uint64_t) { return 0; });
  tr::Finding race = finding(1, 33);  // block 1, thread 33 of (64,1,1)
  race.message = "byte 0 of `sums`";
  race.where = "/submission/mine.cu:80";
  race.where_other = "/submission/mine.cu:81";
  tr::Finding bad = finding(0, 2);
  bad.tool = "memcheck";
  bad.kind = "write";
  bad.message = "4 bytes after the end of `d_c`";
  bad.where = "/submission/mine.cu:12";
  race.advice = "nothing orders the two: put a __syncthreads() between them";
  t.launches[0].findings = {race};
  const viz::Headline h = viz::headline(t, nullptr, 0, b.memory);
  EXPECT_EQ(h.kind, viz::HeadlineKind::kFinding);
  EXPECT_EQ(h.text,
            "racecheck: read-after-write, byte 0 of `sums`, at mine.cu:80 against mine.cu:81 "
            "(thread (33,0,0) of block (1,0,0)). Nothing orders the two: put a __syncthreads() "
            "between them");
  t.launches[0].findings = {race, bad};
  EXPECT_EQ(viz::headline(t, nullptr, 0, b.memory).text,
            "memcheck: write, 4 bytes after the end of `d_c`, at mine.cu:12 (thread (2,0,0) of "
            "block (0,0,0)); 1 more finding under the launch");
  // With wrong values, an uninitialized read comes after them.
  tr::Finding unset = finding(0, 1);
  unset.tool = "initcheck";
  unset.kind = "uninitialized";
  unset.where = "/submission/mine.cu:60";
  t.launches[0].findings = {unset};
  const tr::TestResults r = wrong_out({10}, 64, 0);
  EXPECT_EQ(viz::headline(t, &r, 0, b.memory).text,
            "Test Large failed. 1 of the 64 elements of out are wrong (framed in yellow); the "
            "first, out[10], is 0, expected 1. initcheck: uninitialized read at mine.cu:60");
}

TEST(Headline, AFaultSaysWhichThreadStoppedWhereAndWhy) {
  tr::Trace t = two_launches();
  const OneBuffer b(64, [](uint64_t) { return 0; });
  t.launches[1].faulted = true;
  t.launches[1].fault = {true, 3, 5, "mine.cu:9", "invalid write to address 0x0: a null pointer"};
  t.launches[1].findings = {finding(0, 0)};
  const viz::Headline h = viz::headline(t, nullptr, 1, b.memory);
  EXPECT_EQ(h.kind, viz::HeadlineKind::kFault);
  EXPECT_EQ(h.text,
            "The kernel scale stopped: thread (5,0,0) of block (3,0,0) at mine.cu:9: invalid "
            "write to address 0x0: a null pointer");
}

TEST(Headline, AKernelThatNeverEndedSaysWhatItsThreadWentRound) {
  tr::Trace t = two_launches();
  t.allocations[0].name = "d_a";
  t.allocations[1].name = "d_b";
  for (auto& a : t.allocations) a.size = 4 * 4096;
  tr::Launch& l = t.launches[1];  // scale: 4 blocks of 32 threads
  l.requests.clear();
  l.faulted = true;
  l.fault = {true, 1, 0, "mine.cu:25", "it never finished", true};
  auto said = [&] {
    const viz::LaunchMemory m = viz::launch_memory(t, l, 1u << 16);
    const viz::Headline h = viz::headline(t, nullptr, 1, m);
    EXPECT_EQ(h.kind, viz::HeadlineKind::kFault);
    return h.text;
  };
  const std::string stopped =
      "The kernel scale never finished: it was stopped with thread (0,0,0) of block (1,0,0) at "
      "mine.cu:25. ";
  // Nothing recorded of any thread: the two likely causes.
  EXPECT_EQ(said(), stopped + "A loop that never ends, or far more work than the test needs?");
  // The same two elements over and over: the index does not move.
  for (int i = 0; i < 20; ++i) read(l, i % 2 ? 2 : 1, 1, 0);
  EXPECT_EQ(said(), stopped +
                        "Its 20 recorded accesses go round the same 2 elements (d_a[0], d_b[0]) "
                        "again and again: the loop never moves on. Does its index change each "
                        "time round (i += step, not i + step)?");
  // With an atomic: a wait.
  l.requests[0].kind = 2;
  EXPECT_EQ(said(), stopped +
                        "Its 20 recorded accesses go round the same 2 elements (d_a[0], d_b[0]) "
                        "again and again, waiting with an atomic: does another thread ever give "
                        "the value it waits for (a lock held by a thread of its own warp, a flag "
                        "never set)?");
  // Another block's thread, when the named one has no rounds recorded; a
  // walk one block (32 threads) at a time.
  l.requests.clear();
  for (uint64_t i = 0; i < 16; ++i) {
    read(l, 1 + uint32_t(i % 2), 2, (i / 2) * 32 * 4);
    l.requests.back().pc = i % 2;
  }
  EXPECT_EQ(said(), stopped +
                        "Thread (0,0,0) of block (2,0,0)'s 16 recorded accesses walk through "
                        "memory 32 elements at a time: one block's threads (blockDim.x), while "
                        "the grid has 128 threads. Every block walks over the same elements: "
                        "should a grid-stride loop step by the whole grid (blockDim.x * "
                        "gridDim.x)?");
  // A walk by the whole grid: the loop is right; its end may not be.
  l.requests.clear();
  for (uint64_t i = 0; i < 32; ++i) read(l, 1, 1, i * 128 * 4);
  EXPECT_EQ(said(), stopped +
                        "Its 32 recorded accesses walk through memory 128 elements at a time, the "
                        "whole grid's threads (a grid-stride loop): is the loop's end the array's "
                        "size, or does the test ask far more work than it needs?");
}

TEST(Headline, ATestWithNothingDrawnSaysWhatItSaid) {
  const tr::Trace t = two_launches();
  const OneBuffer b(64, [](uint64_t) { return 0; });
  tr::TestResults r;
  r.shown = "Coalesced";
  r.tests = {graded("Coalesced", "failed", "rubric")};
  r.tests[0].verdict = "metric out of bounds";
  r.tests[0].output = "\nsectors per request 16.0 at /src/mine.cu:67, at most 4.5\nmore\n";
  const viz::Headline h = viz::headline(t, &r, 0, b.memory);
  EXPECT_EQ(h.kind, viz::HeadlineKind::kTest);
  EXPECT_EQ(h.text,
            "Rubric Coalesced failed. sectors per request 16.0 at /src/mine.cu:67, at most 4.5. "
            "more");

  // A lesson's test: where it ran, what is wrong and where to look, while
  // they fit; not the grader's line about the checks, nor what the program
  // printed.
  r.shown = "Small";
  r.tests = {graded("Small", "failed", "test")};
  r.tests[0].output =
      "The simulator's checks found no bad memory access.\n"
      "stage 4, reduce: n = 100003, 16 blocks of 256 threads\n"
      "total is 50327.7; the 100003 floats add up to 49937.3\n"
      "  Look at the end: the tree stops at 64 values.\n"
      "What your program printed (lines start with |):\n| hello\n";
  EXPECT_EQ(viz::headline(t, &r, 0, b.memory).text,
            "Test Small failed. stage 4, reduce: n = 100003, 16 blocks of 256 threads. total is "
            "50327.7; the 100003 floats add up to 49937.3. Look at the end: the tree stops at 64 "
            "values.");
  // Lines past about four of the headline's are left to the graded test's
  // tab, but for the sentences of the next line that fit.
  r.tests[0].output = "first line\n" + std::string(500, 'x') + "\n";
  EXPECT_EQ(viz::headline(t, &r, 0, b.memory).text, "Test Small failed. first line");
  r.tests[0].output = "first line\n" + std::string(200, 'x') + "\nThe cause. " +
                      std::string(300, 'y') + ". More.\n";
  EXPECT_EQ(viz::headline(t, &r, 0, b.memory).text,
            "Test Small failed. first line. " + std::string(200, 'x') + ". The cause.");
}

// Rows each scaled by a factor of their own (a softmax whose row sums are
// wrong): the values are right against each other, the row's divisor not.
TEST(Headline, RowsEachOffByTheirOwnFactorSaySo) {
  const tr::Trace t = two_launches();
  const OneBuffer b(64, [](uint64_t i) { return int64_t(i / 32); });
  tr::TestResults r = wrong_out({}, 64, 8);
  tr::Comparison& c = r.compared[0];
  for (uint64_t i = 0; i < 32; ++i) {  // rows 0 to 3
    const double want = 0.01 * double(i % 8 + 1), factor = i < 16 ? 512 : 300;
    c.elements.push_back({i, std::to_string(want * factor), std::to_string(want)});
    c.runs.emplace_back(i, 1);
  }
  c.wrong = 32;
  EXPECT_EQ(viz::headline(t, &r, 0, b.memory).text,
            "Test Large failed. 32 of the 64 elements of out are wrong (framed in yellow); the "
            "first, out[0] (row 0, column 0), is 5.120000, expected 0.010000. In each row the "
            "values are off by one factor, the row's own (row 0: 512 times, row 2: 300 times): "
            "right against each other, scaled wrong: what each row is divided by (its sum, its "
            "maximum) is wrong");
  // One factor for all rows says so once, as for any buffer.
  for (tr::WrongElement& e : c.elements) e.got = std::to_string(std::stod(e.want) * 512);
  EXPECT_NE(viz::headline(t, &r, 0, b.memory).text.find("Each is 512 times the expected value"),
            std::string::npos);
}

// NaN and inf say where such values come from.
TEST(Headline, NaNValuesSayWhereNaNComesFrom) {
  const tr::Trace t = two_launches();
  const OneBuffer b(64, [](uint64_t i) { return int64_t(i / 32); });
  tr::TestResults r = wrong_out({3, 4, 5, 6}, 64, 8);
  for (tr::WrongElement& e : r.compared[0].elements) e.got = "nan";
  EXPECT_EQ(viz::headline(t, &r, 0, b.memory).text,
            "Test Large failed. 4 of the 64 elements of out are wrong (framed in yellow); the "
            "first, out[3] (row 0, column 3), is nan, expected 1. They are NaN (not a number), "
            "which 0/0, inf/inf and inf - inf give (-INFINITY - -INFINITY too), and every sum or "
            "product with a NaN: look for a divisor that came out 0 (every term underflowed, as "
            "expf(x - m) does when m is far above x), a value that overflowed to inf (a float's "
            "expf above about 88) or a maximum still -INFINITY");
  for (tr::WrongElement& e : r.compared[0].elements) e.got = "inf";
  EXPECT_NE(viz::headline(t, &r, 0, b.memory).text.find(". They are infinite: a value too large"),
            std::string::npos);
  // A few among finite wrong values say nothing of it.
  r.compared[0].elements[0].got = "nan";
  for (size_t i = 1; i < 4; ++i) r.compared[0].elements[i].got = "0";
  EXPECT_EQ(viz::headline(t, &r, 0, b.memory).text.find("NaN"), std::string::npos);
}

// A test that printed a wrong total has no element to frame: how the launch
// read its input is said after the test's own words, where it tells
// something (a reduction whose blocks each walk the whole input, elements
// counted twice or left out).
TEST(Headline, AWrongTotalSaysHowTheInputWasRead) {
  tr::Trace base = two_launches();
  base.allocations[1].name = "in";  // allocation 2: 256 floats
  base.launches[1].requests.clear();
  const OneBuffer b(64, [](uint64_t) { return 0; });
  tr::TestResults r;
  r.shown = "Small";
  r.tests = {graded("Small", "failed", "test")};
  r.tests[0].output = "total is 4000; the floats add up to 1000\n";
  const std::string alone = "Test Small failed. total is 4000; the floats add up to 1000";
  const std::string said = alone + ".";
  auto with = [&](const std::function<void(tr::Launch&)>& reads) {
    tr::Trace t = base;
    reads(t.launches[1]);
    return viz::headline(t, &r, 1, b.memory).text;
  };
  // Each block of 4 read all 256: the loop's start or stride.
  EXPECT_EQ(with([](tr::Launch& l) {
              for (uint32_t blk = 0; blk < 4; ++blk)
                for (uint64_t i = 0; i < 256; ++i) read(l, 2, blk, 4 * i);
            }),
            said +
                " Each of the 256 elements of in was read 4 times in this launch, by more than one "
                "block: do the blocks walk over each other's parts (the loop's start and "
                "stride)?");
  // Block b reads from its own part to the end: from once to 4 times.
  EXPECT_EQ(with([](tr::Launch& l) {
              for (uint32_t blk = 0; blk < 4; ++blk)
                for (uint64_t i = 64 * blk; i < 256; ++i) read(l, 2, blk, 4 * i);
            }),
            said +
                " 192 of the 256 elements of in were read more than once in this launch (up to 4 "
                "times), by more than one block: do the blocks walk over each other's parts (the "
                "loop's start and stride)?");
  // Each once, but two read again by the next block.
  EXPECT_EQ(with([](tr::Launch& l) {
              for (uint64_t i = 0; i < 256; ++i) read(l, 2, uint32_t(i / 64), 4 * i);
              read(l, 2, 1, 4 * 62);
              read(l, 2, 1, 4 * 63);
            }),
            said +
                " 2 of the 256 elements of in were read more than once in this launch, the rest "
                "once (the first: in[62], by block (0,0,0) and block (1,0,0)): counted twice?");
  // Each once but four.
  EXPECT_EQ(with([](tr::Launch& l) {
              for (uint64_t i = 0; i < 256; ++i)
                if (i < 100 || i > 103) read(l, 2, uint32_t(i / 64), 4 * i);
            }),
            said +
                " 4 of the 256 elements of in were never read in this launch, the rest once (the "
                "first: in[100]): does a loop stop short or step too far (its bound and stride)?");
  // The first quarter read, the rest never (not a guard after the array:
  // that is a few KiB).
  tr::Trace big = base;
  big.allocations[1].size = 4 * 8192;
  for (uint64_t i = 0; i < 2048; ++i) read(big.launches[1], 2, uint32_t(i / 512), 4 * i);
  EXPECT_EQ(viz::headline(big, &r, 1, b.memory).text,
            said +
                " 6144 of the 8192 elements of in were never read in this launch, the rest once "
                "(the first: in[2048]): does a loop stop short or step too far (its bound and "
                "stride)?");
  // Each once, in float4s: nothing to add (a float4 reads four floats).
  EXPECT_EQ(with([](tr::Launch& l) {
              for (uint64_t i = 0; i < 64; ++i) read(l, 2, uint32_t(i / 16), 16 * i, 16);
            }),
            alone);
  // Wrong values in an output far smaller than the input (a histogram):
  // said after them; an output as large as its input (a matmul's, whose
  // inputs are read by many blocks by design) says nothing of it.
  tr::Trace counts = base;
  for (uint32_t blk = 0; blk < 2; ++blk)
    for (uint64_t i = 0; i < 256; ++i) read(counts.launches[0], 2, blk, 4 * i);
  const OneBuffer halves(64, [](uint64_t i) { return int64_t(i / 32); });
  tr::TestResults bins = wrong_out({10}, 64, 8);
  EXPECT_EQ(viz::headline(counts, &bins, 0, halves.memory).text,
            "Test Large failed. 1 of the 64 elements of out are wrong (framed in yellow); the "
            "first, out[10] (row 1, column 2), is 0, expected 1. Each of the 256 elements of in "
            "was read 2 times in this launch, by more than one block: do the blocks walk over "
            "each other's parts (the loop's start and stride)?");
  bins.compared[0].count = 256;
  EXPECT_EQ(viz::headline(counts, &bins, 0, halves.memory).text,
            "Test Large failed. 1 of the 256 elements of out are wrong (framed in yellow); the "
            "first, out[10] (row 1, column 2), is 0, expected 1");
  // Most read several times by their own block (a stencil's neighbours):
  // nothing to add.
  EXPECT_EQ(with([](tr::Launch& l) {
              for (uint64_t i = 0; i < 256; ++i)
                for (int k = 0; k < 5; ++k) read(l, 2, uint32_t(i / 64), 4 * i);
            }),
            alone);
  // A buffer the launch wrote is not an input.
  EXPECT_EQ(with([](tr::Launch& l) {
              for (uint32_t blk = 0; blk < 4; ++blk)
                for (uint64_t i = 0; i < 256; ++i) read(l, 2, blk, 4 * i);
              l.requests.back().kind = 1;
            }),
            alone);
}

// An atomic and a plain access of one shared word by threads of different
// warps with no barrier between: the first such pair in words, with the
// lines the barrier goes between. racecheck does not pair them.
TEST(Headline, AnAtomicAndAPlainAccessOfOneSharedWordWithNoBarrierBetween) {
  const uint32_t shared = tr::Request::kStaticShared;
  // Counted (line 79), read by thread 0 (line 83), counted again by
  // thread 32: the read came before the block was done adding.
  tr::Trace t = with_lines();
  tr::Launch& l = t.launches[0];
  lane_access(l, shared, 0, 0, 12, 2, 1);
  lane_access(l, shared, 0, 0, 12, 0, 2);
  lane_access(l, shared, 0, 32, 12, 2, 1);
  EXPECT_EQ(viz::shared_atomic_hazard(t, l),
            "thread (0,0,0) of block (0,0,0) read a shared element at exercise.cu:83 before "
            "thread (32,0,0) of block (0,0,0) added to it at exercise.cu:79 (an atomic): what is "
            "added after the read is lost. No __syncthreads() comes between the two: put one "
            "between lines 79 and 83 (racecheck, like compute-sanitizer's, does not pair atomics "
            "with plain accesses)");
  // With a barrier between the read and the later atomic: nothing to say.
  l.requests.back().phase = 1;
  EXPECT_EQ(viz::shared_atomic_hazard(t, l), "");
  // The same warp's lanes: nothing to say either (a warp's own order).
  l.requests.back().phase = 0;
  l.requests.back().warp = 0;
  l.requests.back().mask = 2;
  EXPECT_EQ(viz::shared_atomic_hazard(t, l), "");
  // Another block's word, or another word: no pair.
  tr::Trace other = with_lines();
  lane_access(other.launches[0], shared, 0, 0, 12, 0, 2);
  lane_access(other.launches[0], shared, 1, 32, 12, 2, 1);
  lane_access(other.launches[0], shared, 0, 32, 16, 2, 1);
  EXPECT_EQ(viz::shared_atomic_hazard(other, other.launches[0]), "");
  // Added to (line 79) by thread 0, then zeroed (line 44) by thread 40.
  tr::Trace zeroed = with_lines();
  lane_access(zeroed.launches[0], shared, 0, 0, 8, 2, 1);
  lane_access(zeroed.launches[0], shared, 0, 40, 8, 1, 3);
  EXPECT_EQ(viz::shared_atomic_hazard(zeroed, zeroed.launches[0]),
            "thread (40,0,0) of block (0,0,0) wrote a shared element at exercise.cu:44 after "
            "thread (0,0,0) of block (0,0,0) had added to it at exercise.cu:79 (an atomic): the "
            "write wipes out what was added. No __syncthreads() comes between the two: put one "
            "between lines 44 and 79 (racecheck, like compute-sanitizer's, does not pair atomics "
            "with plain accesses)");
  // Zeroed first, then added to by another warp: right here, unordered on a GPU.
  tr::Trace first = with_lines();
  lane_access(first.launches[0], shared, 0, 40, 8, 1, 3);
  lane_access(first.launches[0], shared, 0, 0, 8, 2, 1);
  EXPECT_TRUE(
      viz::shared_atomic_hazard(first, first.launches[0])
          .starts_with("thread (40,0,0) of block (0,0,0) wrote a shared element at "
                       "exercise.cu:44 and thread (0,0,0) of block (0,0,0) added to it at "
                       "exercise.cu:79 (an atomic), and nothing made the write come first"));
  // Global memory is not looked at (blocks adding to one total by design).
  tr::Trace global = with_lines();
  lane_access(global.launches[0], 1, 0, 0, 12, 0, 2);
  lane_access(global.launches[0], 1, 0, 32, 12, 2, 1);
  EXPECT_EQ(viz::shared_atomic_hazard(global, global.launches[0]), "");
  // In the headline of wrong values, it is the tell.
  l.requests.back().warp = 1;
  l.requests.back().mask = 1;
  const OneBuffer b(64, [](uint64_t) { return 0; });
  tr::TestResults r = wrong_out({10}, 64, 8);
  EXPECT_EQ(viz::headline(t, &r, 0, b.memory).text,
            "Test Large failed. 1 of the 64 elements of out are wrong (framed in yellow); the "
            "first, out[10] (row 1, column 2), is 0, expected 1. Thread (0,0,0) of block (0,0,0) "
            "read a shared element at exercise.cu:83 before thread (32,0,0) of block (0,0,0) "
            "added to it at exercise.cu:79 (an atomic): what is added after the read is lost. No "
            "__syncthreads() comes between the two: put one between lines 79 and 83 (racecheck, "
            "like compute-sanitizer's, does not pair atomics with plain accesses)");
}

// A total that several lanes of one warp in each block added to (every
// lane after a shuffle reduction, where lane 0 alone holds the sum).
TEST(Headline, SeveralLanesOfOneWarpAddingToATotal) {
  tr::Trace t = with_lines();
  t.allocations[0].name = "d_total";
  t.allocations[0].size = 4;
  tr::Launch& l = t.launches[0];
  for (uint32_t block = 0; block < 2; ++block)
    for (uint32_t lane = 0; lane < 32; ++lane) lane_access(l, 1, block, lane, 0, 2, 2);
  EXPECT_EQ(viz::atomic_lanes(t, l, 1),
            "32 threads of one warp in each block added to d_total at exercise.cu:83 (an "
            "atomic): when one thread holds the block's result (lane 0 after a warp's shuffles, "
            "thread 0 after a tree), only that thread should add it");
  // A printed total: the test's words, then the tell.
  tr::TestResults r;
  r.shown = "Small";
  r.tests = {graded("Small", "failed", "test")};
  r.tests[0].output = "total is 4000; the floats add up to 1000\n";
  const OneBuffer b(64, [](uint64_t) { return 0; });
  EXPECT_EQ(viz::headline(t, &r, 0, b.memory).text,
            "Test Small failed. total is 4000; the floats add up to 1000. 32 threads of one warp "
            "in each block added to d_total at exercise.cu:83 (an atomic): when one thread holds "
            "the block's result (lane 0 after a warp's shuffles, thread 0 after a tree), only "
            "that thread should add it");
  // One thread a block: as meant.
  tr::Trace one = with_lines();
  one.allocations[0].size = 4;
  for (uint32_t block = 0; block < 2; ++block) lane_access(one.launches[0], 1, block, 0, 0, 2, 2);
  EXPECT_EQ(viz::atomic_lanes(one, one.launches[0], 1), "");
  // Every thread of the block (two warps) adding its own value: a design.
  tr::Trace all = with_lines();
  all.allocations[0].size = 4;
  for (uint32_t thread = 0; thread < 64; ++thread)
    lane_access(all.launches[0], 1, 0, thread, 0, 2, 2);
  EXPECT_EQ(viz::atomic_lanes(all, all.launches[0], 1), "");
  // A large buffer (a histogram's bins) is not a total.
  t.allocations[0].size = 4 * 256;
  EXPECT_EQ(viz::atomic_lanes(t, l, 1), "");
}

// Wrong values and an uninitialized read whose check says why: the count
// of wrong values, then the read, its thread and the check's words.
TEST(Headline, AnUninitializedReadWithItsReasonFollowsTheWrongCount) {
  tr::Trace t = with_lines();
  tr::Finding f;
  f.tool = "initcheck";
  f.kind = "uninitialized";
  f.where = "/scratch/exercise.cu:47";
  f.block = 0;
  f.thread = 3;
  f.advice = "line 44 writes `local` and line 47 reads it with no __syncthreads() between them";
  t.launches[0].findings = {f};
  const OneBuffer b(64, [](uint64_t) { return 0; });
  tr::TestResults r = wrong_out({10}, 64, 8);
  EXPECT_EQ(viz::headline(t, &r, 0, b.memory).text,
            "Test Large failed. 1 of the 64 elements of out are wrong (framed in yellow). "
            "initcheck: uninitialized read at exercise.cu:47 (thread (3,0,0) of block (0,0,0)): "
            "line 44 writes `local` and line 47 reads it with no __syncthreads() between them");
  // Without its words: the wrong values as before, the read after them.
  t.launches[0].findings[0].advice.clear();
  EXPECT_EQ(viz::headline(t, &r, 0, b.memory).text,
            "Test Large failed. 1 of the 64 elements of out are wrong (framed in yellow); the "
            "first, out[10] (row 1, column 2), is 0, expected 1. initcheck: uninitialized read at "
            "exercise.cu:47");
}

// What a lesson's test said of its wrong values after listing them goes
// in the headline (its notes in parentheses left out), before what the
// values say of themselves, to its last full sentence that fits.
TEST(Headline, WrongValuesCarryWhatTheTestSaidOfThem) {
  const tr::Trace t = with_lines();
  const OneBuffer b(64, [](uint64_t) { return 0; });
  tr::TestResults r = wrong_out({10}, 64, 8);
  const std::string head =
      "Test Large failed. 1 of the 64 elements of out are wrong (framed in yellow); the first, "
      "out[10] (row 1, column 2), is 0, expected 1. ";
  r.tests[0].output =
      "stage 3, n = 64\n  out[10] is 0, expected 1\n  1 of 64 elements are wrong (first at the "
      "top)\n  (element i is row i / 8)\n  Tile 1 is scanned right within itself, but off by "
      "7.\n  It added its own tile's sum.\nWhat your program printed (lines start with |):\n| "
      "hello\n";
  EXPECT_EQ(viz::headline(t, &r, 0, b.memory).text,
            head +
                "Tile 1 is scanned right within itself, but off by 7. It added its own tile's "
                "sum.");
  // A long line: to its last sentence that fits.
  r.tests[0].output =
      "  1 of 64 elements are wrong (first at the top)\n  Only the odd rows are "
      "NaN. " +
      std::string(200, 'x') + ". Does the max start at 0? " + std::string(200, 'y') + ".\n";
  EXPECT_EQ(
      viz::headline(t, &r, 0, b.memory).text,
      head + "Only the odd rows are NaN. " + std::string(200, 'x') + ". Does the max start at 0?");
  // Nothing after the list: the headline as before.
  r.tests[0].output = "  1 of 64 elements are wrong (first at the top)\n  (a note)\n";
  EXPECT_EQ(viz::headline(t, &r, 0, b.memory).text, head.substr(0, head.size() - 2));
}

}  // namespace
