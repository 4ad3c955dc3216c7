// The simulator's CUDALAB_* settings: their defaults, the values they
// accept, and the one way every bad value ends a program (a message naming
// the variable, its value and what it accepts; exit status 2).
#include "runtime/settings.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <thread>

namespace {

using namespace cudalab::rt;

TEST(Settings, UnsetOrEmptyMeansTheDefault) {
  for (const char* text : {static_cast<const char*>(nullptr), ""}) {
    SCOPED_TRACE(text ? "empty" : "unset");
    const auto checks = parse_checks(text);
    ASSERT_TRUE(checks.ok());
    EXPECT_FALSE(checks.value.memcheck || checks.value.racecheck || checks.value.synccheck ||
                 checks.value.initcheck);
    EXPECT_FALSE(parse_check_exit_code(text).value.has_value());
    EXPECT_FALSE(parse_check_leaks(text).value);
    EXPECT_EQ(parse_device(text).value, DeviceModel::kH100);
    EXPECT_EQ(parse_schedule(text).value.kind, Schedule::kInOrder);
    EXPECT_EQ(parse_lockstep(text).value, Lockstep::kAuto);
    EXPECT_EQ(parse_block_loops(text).value, BlockLoops::kOn)
        << "block loops where the kernel allows";
    EXPECT_EQ(parse_timeout(text).value, 0.0) << "no time limit";
    EXPECT_EQ(parse_trace_max_accesses(text).value, 20'000'000u);
    EXPECT_TRUE(parse_trace_blocks(text).value.empty()) << "every block";
    const unsigned cores = std::thread::hardware_concurrency();
    EXPECT_EQ(parse_workers(text).value, cores ? cores : 1u) << "one worker per core";
  }
}

TEST(Settings, GoodValuesAreParsed) {
  const auto checks = parse_checks("racecheck,initcheck");
  ASSERT_TRUE(checks.ok());
  EXPECT_FALSE(checks.value.memcheck);
  EXPECT_TRUE(checks.value.racecheck);
  EXPECT_FALSE(checks.value.synccheck);
  EXPECT_TRUE(checks.value.initcheck);
  const auto all = parse_checks("all").value;
  EXPECT_TRUE(all.memcheck && all.racecheck && all.synccheck && all.initcheck);

  EXPECT_EQ(parse_check_exit_code("3").value, 3);
  EXPECT_EQ(parse_check_exit_code("0").value, 0);
  EXPECT_TRUE(parse_check_leaks("1").value);
  EXPECT_FALSE(parse_check_leaks("0").value);

  EXPECT_EQ(parse_device("a100").value, DeviceModel::kA100);
  EXPECT_EQ(parse_device("H200").value, DeviceModel::kH200) << "in any case";

  EXPECT_EQ(parse_schedule("in-order").value.kind, Schedule::kInOrder);
  EXPECT_EQ(parse_schedule("reverse").value.kind, Schedule::kReverse);
  const Schedule seeded = parse_schedule("random:42").value;
  EXPECT_EQ(seeded.kind, Schedule::kRandom);
  EXPECT_EQ(seeded.seed, 42u);
  EXPECT_EQ(parse_schedule("random").value.kind, Schedule::kRandom);

  EXPECT_EQ(parse_lockstep("on").value, Lockstep::kOn);
  EXPECT_EQ(parse_lockstep("OFF").value, Lockstep::kOff) << "in any case";
  EXPECT_EQ(parse_lockstep("1").value, Lockstep::kOn);
  EXPECT_EQ(parse_block_loops("Off").value, BlockLoops::kOff);
  EXPECT_EQ(parse_block_loops("yes").value, BlockLoops::kOn);
  EXPECT_EQ(parse_block_loops("Narrow").value, BlockLoops::kNarrow);

  EXPECT_EQ(parse_timeout("0.5").value, 0.5);
  EXPECT_EQ(parse_trace_max_accesses("70").value, 70u);
  EXPECT_EQ(parse_trace_sample("64").value, 64u);
  EXPECT_EQ(parse_trace_sample("0").value, 0u) << "0: every block";
  EXPECT_EQ(parse_trace_sample(nullptr).value, 0u);
  EXPECT_FALSE(parse_trace_sample("-3").ok());
  const auto blocks = parse_trace_blocks("1,3-4").value;
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0], std::make_pair(1u, 1u));
  EXPECT_EQ(blocks[1], std::make_pair(3u, 4u));
  EXPECT_EQ(parse_workers("1").value, 1u);
  EXPECT_EQ(parse_workers("1024").value, 1024u);
}

TEST(Settings, BadValuesSayWhatIsAccepted) {
  const struct {
    const char* name;
    const char* text;
    std::string problem, accepted;  // parts the message must have
  } cases[] = {
      {"CUDALAB_CHECK", "memcheck,memchek", parse_checks("memcheck,memchek").problem,
       parse_checks("memcheck,memchek").accepted},
      {"CUDALAB_CHECK_EXITCODE", "three", parse_check_exit_code("three").problem,
       parse_check_exit_code("three").accepted},
      {"CUDALAB_DEVICE", "voodoo2", parse_device("voodoo2").problem,
       parse_device("voodoo2").accepted},
      {"CUDALAB_SCHEDULE", "sideways", parse_schedule("sideways").problem,
       parse_schedule("sideways").accepted},
      {"CUDALAB_LOCKSTEP", "sometimes", parse_lockstep("sometimes").problem,
       parse_lockstep("sometimes").accepted},
      {"CUDALAB_BLOCK_LOOPS", "fast", parse_block_loops("fast").problem,
       parse_block_loops("fast").accepted},
      {"CUDALAB_TIMEOUT", "-1", parse_timeout("-1").problem, parse_timeout("-1").accepted},
      {"CUDALAB_TRACE_MAX_ACCESSES", "lots", parse_trace_max_accesses("lots").problem,
       parse_trace_max_accesses("lots").accepted},
      {"CUDALAB_TRACE_BLOCKS", "3-1", parse_trace_blocks("3-1").problem,
       parse_trace_blocks("3-1").accepted},
      {"CUDALAB_TRACE_SAMPLE", "some", parse_trace_sample("some").problem,
       parse_trace_sample("some").accepted},
      {"CUDALAB_WORKERS", "0", parse_workers("0").problem, parse_workers("0").accepted},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_FALSE(c.problem.empty()) << c.text << " was taken";
    EXPECT_FALSE(c.accepted.empty());
    EXPECT_EQ(
        bad_setting_message(c.name, c.text, c.problem, c.accepted),
        std::string("cudalab: ") + c.name + "=" + c.text + " " + c.problem + ": " + c.accepted);
  }
  // The words tests and students already know.
  EXPECT_EQ(bad_setting_message("CUDALAB_SCHEDULE", "sideways", parse_schedule("sideways").problem,
                                parse_schedule("sideways").accepted),
            "cudalab: CUDALAB_SCHEDULE=sideways is not a schedule: use in-order (the default), "
            "reverse, random or random:SEED");
  EXPECT_EQ(parse_checks("memchek").problem, "names 'memchek', which is not a check");
  EXPECT_EQ(parse_device("voodoo2").accepted, "choose h100 (the default), h200 or a100");
}

TEST(Settings, ValuesNearTheEdgeAreRefused) {
  for (const char* text : {",memcheck", "memcheck,,racecheck", "MEMCHECK"})
    EXPECT_FALSE(parse_checks(text).ok()) << text;
  for (const char* text : {"256", "-1", "3x", " 3", "+3"})
    EXPECT_FALSE(parse_check_exit_code(text).ok()) << text;
  for (const char* text : {"random:", "random:x", "random:-", "reversed"})
    EXPECT_FALSE(parse_schedule(text).ok()) << text;
  for (const char* text : {"0", "10s", "x"}) EXPECT_FALSE(parse_timeout(text).ok()) << text;
  for (const char* text : {"0", "-5", "7k"})
    EXPECT_FALSE(parse_trace_max_accesses(text).ok()) << text;
  for (const char* text : {",", "1,,2", "a", "1-", "-3", "4294967296"})
    EXPECT_FALSE(parse_trace_blocks(text).ok()) << text;
  for (const char* text : {"0", "1025", "4096", "two", "2.5"})
    EXPECT_FALSE(parse_workers(text).ok()) << text;
}

// A bad value in the environment ends the program when the setting is first
// read: one line on stderr, exit status 2, whichever variable it is.
TEST(SettingsDeathTest, ABadValueEndsTheProgramWithStatusTwo) {
  EXPECT_EQ(kBadSettingExit, 2);
  EXPECT_EXIT(
      {
        setenv("CUDALAB_WORKERS", "0", 1);
        workers_setting();
      },
      testing::ExitedWithCode(2), "cudalab: CUDALAB_WORKERS=0 is not a number from 1 to 1024: ");
  EXPECT_EXIT(
      {
        setenv("CUDALAB_TIMEOUT", "soon", 1);
        timeout_setting();
      },
      testing::ExitedWithCode(2), "cudalab: CUDALAB_TIMEOUT=soon is not a positive number");
  EXPECT_EXIT(
      {
        setenv("CUDALAB_DEVICE", "voodoo2", 1);
        device_setting();
      },
      testing::ExitedWithCode(2), "CUDALAB_DEVICE=voodoo2 is not a GPU the simulator knows");
  EXPECT_EXIT(
      {
        setenv("CUDALAB_SCHEDULE", "random:x", 1);
        schedule();
      },
      testing::ExitedWithCode(2), "CUDALAB_SCHEDULE=random:x has a seed");
  EXPECT_EXIT(
      {
        setenv("CUDALAB_CHECK", "memchek", 1);
        check_settings();
      },
      testing::ExitedWithCode(2), "CUDALAB_CHECK=memchek names 'memchek', which is not a check");
  EXPECT_EXIT(
      {
        setenv("CUDALAB_CHECK", "memcheck", 1);
        setenv("CUDALAB_CHECK_EXITCODE", "three", 1);
        check_settings();
      },
      testing::ExitedWithCode(2), "CUDALAB_CHECK_EXITCODE=three is not an exit status");
  EXPECT_EXIT(
      {
        setenv("CUDALAB_TRACE", "/dev/null", 1);
        setenv("CUDALAB_TRACE_BLOCKS", "3-1", 1);
        trace_settings();
      },
      testing::ExitedWithCode(2), "CUDALAB_TRACE_BLOCKS=3-1 is not a list of blocks");
}

// The companions of CUDALAB_CHECK and CUDALAB_TRACE are read only when it is
// set: without it a bad one changes nothing.
TEST(SettingsDeathTest, CompanionsAreReadOnlyWithTheirVariable) {
  EXPECT_EXIT(
      {
        unsetenv("CUDALAB_CHECK");
        setenv("CUDALAB_CHECK_EXITCODE", "three", 1);
        const bool requested = check_settings().requested;
        std::exit(requested ? 1 : 0);
      },
      testing::ExitedWithCode(0), "");
  EXPECT_EXIT(
      {
        unsetenv("CUDALAB_TRACE");
        setenv("CUDALAB_TRACE_MAX_ACCESSES", "lots", 1);
        const bool tracing = !trace_settings().path.empty();
        std::exit(tracing ? 1 : 0);
      },
      testing::ExitedWithCode(0), "");
  EXPECT_EXIT(
      {
        setenv("CUDALAB_CHECK", "memcheck", 1);
        setenv("CUDALAB_CHECK_EXITCODE", "7", 1);
        setenv("CUDALAB_CHECK_JSON", "findings.json", 1);
        setenv("CUDALAB_CHECK_LEAKS", "1", 1);
        const CheckSettings& s = check_settings();
        std::exit(s.requested && s.any && s.flags.memcheck && !s.flags.racecheck &&
                          s.exit_code == 7 && s.json_path == "findings.json" && s.leaks
                      ? 0
                      : 1);
      },
      testing::ExitedWithCode(0), "");
}

}  // namespace

// CUDALAB_NVRTC_CXX and CUDALAB_NVRTC_INCLUDE: any path, read as given
// (a compiler that is not there is NVRTC's error, said when compiling).
TEST(SettingsDeathTest, RuntimeCompilePathsAreTakenAsGiven) {
  EXPECT_EXIT(
      {
        setenv("CUDALAB_NVRTC_CXX", "/opt/llvm/bin/clang++", 1);
        setenv("CUDALAB_NVRTC_INCLUDE", "/opt/cudalab/include", 1);
        const RuntimeCompileSettings& s = runtime_compile_settings();
        std::exit(s.cxx == "/opt/llvm/bin/clang++" && s.include_dir == "/opt/cudalab/include" ? 3
                                                                                              : 4);
      },
      testing::ExitedWithCode(3), "");
}
