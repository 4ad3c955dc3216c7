// What cudalab-viz reads before its window opens: the trace, and the graded
// tests beside it when they are of this recording of it.
#pragma once

#include <optional>
#include <string>

#include "cudalab/trace/test_results.h"
#include "cudalab/trace/trace.h"
#include "options.h"

namespace cudalab::viz {

struct Loaded {
  trace::Trace trace;
  std::optional<trace::TestResults> results;
  // Said on stderr, the viewer opening all the same: the tests file found
  // beside the trace is of another recording of it ("" none).
  std::string warning;
};

// Reads the trace and the tests file (--tests FILE, else TRACE.tests.json
// when there is one); a Stop when it cannot: status 1, or 2 for a tests
// file that --tests named and that cannot be read or is of another
// recording.
std::optional<Stop> load(const Options& options, Loaded* out);

}  // namespace cudalab::viz
