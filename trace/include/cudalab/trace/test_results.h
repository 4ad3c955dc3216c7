// The graded tests that go with a trace: `cudalab check --trace T` writes
// them beside it (T.tests.json), from the grader, never from the traced
// program: every test's verdict and what a student may read of it, the test
// the trace is of, and that test's comparisons (the wrong elements, the
// value each holds and the value expected). cudalab-viz shows them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cudalab::trace {

struct WrongElement {
  uint64_t index = 0;     // in the compared array
  std::string got, want;  // as printed: "4.25", "nan", "inf"
};

// One comparison of a test: an output array against the CPU's.
struct Comparison {
  std::string name;         // the array, as the test names it ("c")
  uint32_t allocation = 0;  // the trace's allocation holding it, 0 if none
  uint64_t offset = 0;      // the array's first byte, from the allocation's start
  uint32_t element_bytes = 4;
  uint64_t row_length = 0;             // elements a row of a matrix or grid (0: a flat array)
  uint64_t count = 0, wrong = 0;       // elements compared, and how many were wrong
  double absolute = 0, relative = 0;   // the tolerance: |got - want| <= abs + rel * |want|
  std::vector<WrongElement> elements;  // the first wrong ones (up to 1024), by index
  // Where the wrong ones are: runs of consecutive indices [first, count),
  // all of them (up to 65536 runs).
  std::vector<std::pair<uint64_t, uint64_t>> runs;
};

struct GradedTestResult {
  std::string name, description, kind = "test", visibility = "visible", status, verdict;
  std::string output;  // what a student may read (nothing of a hidden test's)
  double score = 0, max_score = 0;
};

struct TestResults {
  std::string lesson, file, traced_test;
  // What the trace was kept for: the failing test, or the failing method
  // rubric that measured traced_test's run ("" in older files: the test).
  std::string shown;
  uint64_t trace_bytes = 0, trace_fingerprint = 0;  // the trace it goes with
  std::vector<GradedTestResult> tests;
  std::vector<Comparison> compared;  // the traced test's
  // The traced test's findings from its run under the checks, each a
  // finding's JSON object (as in a trace's finding records).
  std::vector<std::string> findings;
  // The graded program's source files, by the paths the trace names them
  // with (they were in the grading's sandbox, which is gone): for the
  // viewer's Source tab.
  std::map<std::string, std::string> sources;
};

// Where the results of trace `trace_path` are kept: beside it.
std::string test_results_path(const std::string& trace_path);
// A hash of a file's bytes (64-bit FNV-1a); 0 when it cannot be read.
uint64_t file_fingerprint(const std::string& path);

// Throws TraceError naming the file and what is wrong with it.
TestResults read_test_results(const std::string& path);
// False (and why) when it cannot be written.
bool write_test_results(const std::string& path, const TestResults& r, std::string* why);
// A judge's "compared" array (its result with --compared), as JSON text.
// Throws TraceError when it is not one.
std::vector<Comparison> comparisons_from_json(const std::string& json_text);

}  // namespace cudalab::trace
