// The line of words at the top of the viewer (and of the picture a grader
// draws): what is wrong and where, from the same fault, check finding or
// comparison the text feedback gives, so that a picture read alone still
// tells the student where to look. Pure: no window, for the unit tests.
#pragma once

#include <string>
#include <vector>

#include "cudalab/trace/test_results.h"
#include "cudalab/trace/trace.h"
#include "launch_memory.h"

namespace cudalab::viz {

// What the headline is about, which decides its colour.
enum class HeadlineKind { kNone, kFault, kFinding, kWrongValues, kTest };

struct Headline {
  HeadlineKind kind = HeadlineKind::kNone;
  std::string text;  // one line, "" when nothing is wrong that the trace shows
};

// The finding a picture is about: a memcheck error first (a bad access is
// the bug itself), then a race, a barrier problem, an uninitialized read;
// within a tool, one that names a thread before one that names a block
// alone, then the one seen most often, then the launch's order. -1 when
// there is none.
int focus_finding(const std::vector<trace::Finding>& findings);

// Whether the picture leads with finding `f` rather than with the test's
// wrong values (`wrong_values`: the test has some): every finding but an
// uninitialized read, which is mostly how the wrong values came about, and
// which the wrong elements show better (a halo never loaded leaves wrong
// values on the edges of each block's part).
bool finding_leads(const trace::Finding& f, bool wrong_values);

// "thread (3,0,0) of block (1,0,0)" for linear indices of launch `l`;
// "block (1,0,0)" when no thread is named (thread < 0).
std::string whose(const trace::Launch& l, int64_t block, int64_t thread);

// Whether any thread of the launch wrote to buffer `b`.
bool has_writes(const BufferMap& b);

// Whether a comparison of the graded tests kept beside the trace found
// wrong values.
bool has_wrong_values(const trace::TestResults& r);

// "file.cu:12" of "/path/to/file.cu:12": a line as the student knows it.
std::string file_name(const std::string& where);

// The headline of launch `launch` (an index into t.launches) of `t`, with
// its graded tests `results` (or null) and its memory `m` (launch_memory()
// of that launch: where the wrong elements lie and which block wrote each).
Headline headline(const trace::Trace& t, const trace::TestResults* results, size_t launch,
                  const LaunchMemory& m);

}  // namespace cudalab::viz
