// The graded tests kept beside a trace (cudalab/trace/test_results.h): what
// the grader writes reads back, a judge's comparisons read as the file's,
// the fingerprint tells two recordings apart, and a damaged file is an
// error that names it.
#include "cudalab/trace/test_results.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cudalab/trace/comparison_json.h"
#include "cudalab/trace/trace.h"

namespace fs = std::filesystem;
using namespace cudalab::trace;

namespace {

class TestResultsFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("cudalab-test-results-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
            std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  fs::path dir_;
};

TestResults example() {
  TestResults r;
  r.lesson = "vector_add";
  r.file = "mine.cu";
  r.traced_test = "GridStride";
  r.trace_bytes = 9017;
  r.trace_fingerprint = 0x123456789abcdefull;
  r.tests = {{"OneElement", "n = 1", "test", "visible", "passed", "passed", "", 1, 1},
             {"GridStride", "a small grid", "test", "visible", "failed", "wrong results",
              "c[2048] is nan, expected 0.5\n", 0, 2},
             {"Hidden", "", "test", "hidden", "failed", "wrong results",
              "Hidden test: wrong results.\n", 0, 1}};
  Comparison c;
  c.name = "c";
  c.allocation = 3;
  c.offset = 16;
  c.row_length = 10;
  c.count = 100;
  c.wrong = 7;
  c.absolute = 1e-5;
  c.elements = {{10, "nan", "0.5"}, {11, "-inf", "2"}};
  c.runs = {{10, 5}, {50, 2}};
  r.compared = {c};
  r.findings = {R"({"tool": "racecheck", "kind": "write-after-read", "kernel": "k"})"};
  r.sources["/submission/mine.cu"] = "__global__ void k() {}\n";
  return r;
}

TEST_F(TestResultsFile, WhatIsWrittenReadsBack) {
  const std::string path = (dir_ / "t.trace.tests.json").string();
  std::string why;
  ASSERT_TRUE(write_test_results(path, example(), &why)) << why;
  const TestResults r = read_test_results(path);
  EXPECT_EQ(r.lesson, "vector_add");
  EXPECT_EQ(r.file, "mine.cu");
  EXPECT_EQ(r.traced_test, "GridStride");
  EXPECT_EQ(r.trace_bytes, 9017u);
  EXPECT_EQ(r.trace_fingerprint, 0x123456789abcdefull);
  ASSERT_EQ(r.tests.size(), 3u);
  EXPECT_EQ(r.tests[1].output, "c[2048] is nan, expected 0.5\n");
  EXPECT_EQ(r.tests[2].visibility, "hidden");
  EXPECT_DOUBLE_EQ(r.tests[1].max_score, 2);
  ASSERT_EQ(r.compared.size(), 1u);
  const Comparison& c = r.compared[0];
  EXPECT_EQ(c.allocation, 3u);
  EXPECT_EQ(c.offset, 16u);
  EXPECT_EQ(c.row_length, 10u);
  EXPECT_EQ(c.wrong, 7u);
  EXPECT_DOUBLE_EQ(c.absolute, 1e-5);
  ASSERT_EQ(c.elements.size(), 2u);
  EXPECT_EQ(c.elements[1].got, "-inf");
  ASSERT_EQ(c.runs.size(), 2u);
  EXPECT_EQ(c.runs[1], (std::pair<uint64_t, uint64_t>{50, 2}));
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_NE(r.findings[0].find("write-after-read"), std::string::npos);
  EXPECT_EQ(r.sources.at("/submission/mine.cu"), "__global__ void k() {}\n");
  EXPECT_EQ(test_results_path("a/b.trace"), "a/b.trace.tests.json");
}

// The judge prints numbers; the file keeps them as a student reads them,
// with enough digits to tell 4.25 from 4.2500005.
TEST(Comparisons, AJudgesNumbersReadAsText) {
  const auto all = comparisons_from_json(
      R"([{"name": "u", "allocation": 2, "offset": 0, "element_bytes": 4, "count": 4,
           "wrong": 1, "tolerance": [0.001, 0], "elements": [[3, 4.2500005, 4.25]],
           "runs": [[3, 1]]}])");
  ASSERT_EQ(all.size(), 1u);
  ASSERT_EQ(all[0].elements.size(), 1u);
  EXPECT_EQ(all[0].elements[0].got, "4.2500005");
  EXPECT_EQ(all[0].elements[0].want, "4.25");
  EXPECT_THROW(comparisons_from_json("{\"name\": \"u\"}"), TraceError);
  // An index or a run past the array's end is not believed.
  EXPECT_THROW(
      comparisons_from_json(R"([{"name": "u", "count": 4, "wrong": 1, "elements": [[4, 1, 2]]}])"),
      TraceError);
  EXPECT_THROW(
      comparisons_from_json(R"([{"name": "u", "count": 4, "wrong": 1, "runs": [[2, 3]]}])"),
      TraceError);
}

// What the judge writes (comparison_json, its values as numbers) reads back
// field by field.
TEST(Comparisons, TheJudgesWriterAndTheReaderAgree) {
  Comparison c;
  c.name = "c";
  c.allocation = 3;
  c.offset = 64;
  c.element_bytes = 4;
  c.row_length = 8;
  c.count = 16;
  c.wrong = 2;
  c.absolute = 1e-5;
  c.relative = 1e-3;
  c.runs = {{5, 1}, {9, 1}};
  nlohmann::json elements = nlohmann::json::array();
  elements.push_back({5, 1.5, 2.0});
  elements.push_back({9, "nan", 3.0});
  const auto all =
      comparisons_from_json(nlohmann::json::array({comparison_json(c, elements)}).dump());
  ASSERT_EQ(all.size(), 1u);
  const Comparison& r = all[0];
  EXPECT_EQ(r.name, "c");
  EXPECT_EQ(r.allocation, 3u);
  EXPECT_EQ(r.offset, 64u);
  EXPECT_EQ(r.element_bytes, 4u);
  EXPECT_EQ(r.row_length, 8u);
  EXPECT_EQ(r.count, 16u);
  EXPECT_EQ(r.wrong, 2u);
  EXPECT_DOUBLE_EQ(r.absolute, 1e-5);
  EXPECT_DOUBLE_EQ(r.relative, 1e-3);
  EXPECT_EQ(r.runs, c.runs);
  ASSERT_EQ(r.elements.size(), 2u);
  EXPECT_EQ(r.elements[0].index, 5u);
  EXPECT_EQ(r.elements[0].got, "1.5");
  EXPECT_EQ(r.elements[0].want, "2");
  EXPECT_EQ(r.elements[1].got, "nan");
}

TEST_F(TestResultsFile, TheFingerprintTellsTwoRecordingsApart) {
  const std::string a = write("a.trace", "one recording"), b = write("b.trace", "one recordinG");
  EXPECT_NE(file_fingerprint(a), 0u);
  EXPECT_EQ(file_fingerprint(a), file_fingerprint(write("c.trace", "one recording")));
  EXPECT_NE(file_fingerprint(a), file_fingerprint(b));
  EXPECT_EQ(file_fingerprint((dir_ / "missing").string()), 0u);
}

TEST_F(TestResultsFile, ADamagedFileIsAnErrorThatNamesIt) {
  auto message = [](const std::string& path) {
    try {
      read_test_results(path);
    } catch (const TraceError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string missing = (dir_ / "missing.json").string();
  EXPECT_NE(message(missing).find("cannot read " + missing), std::string::npos);
  EXPECT_NE(message(dir_.string()).find("is a folder"), std::string::npos);
  const std::string garbage = write("garbage.json", "{not json");
  EXPECT_NE(message(garbage).find(garbage + " is not a file of graded tests"), std::string::npos);
  const std::string other = write("other.json", R"({"format": "something else"})");
  EXPECT_NE(message(other).find("format"), std::string::npos);
  const std::string bad_test =
      write("bad.json", R"({"format": "cudalab graded tests 1", "tests": [{"score": 1}]})");
  EXPECT_NE(message(bad_test).find("not a file of graded tests"), std::string::npos);
  const std::string bad_finding =
      write("finding.json", R"({"format": "cudalab graded tests 1", "findings": [3]})");
  EXPECT_NE(message(bad_finding).find("a finding is not an object"), std::string::npos);
}

}  // namespace
