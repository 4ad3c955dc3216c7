// Where the viewer opens: which launch, block and thread are selected, which
// tab of the memory window is open and where in it (phase, instruction,
// access, finding, graded test, source line), from the command line and
// what the trace and its graded tests hold. Pure: no window, no files, so
// that the unit tests reach every choice.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/trace/test_results.h"
#include "cudalab/trace/trace.h"
#include "options.h"
#include "selection.h"

namespace cudalab::viz {

struct Opening {
  Selection selection;
  // The traced test's check findings (from its run under the checks), each
  // with the launch it goes on (an index into trace.launches): the launch
  // opened when it is of their kernel, else their kernel's first. The
  // viewer lists them under that launch (place_test_findings).
  std::vector<std::pair<size_t, trace::Finding>> test_findings;
};

// The opening for `options` over `trace` and its graded tests (`results`,
// or null); a Stop (status 2) when the options ask for what the trace does
// not have: a launch, block or thread past its end, a finding it has not,
// a graded test of another name.
std::optional<Stop> choose_opening(const Options& options, const trace::Trace& trace,
                                   const trace::TestResults* results, Opening* out);

// Puts the opening's test findings on their launches.
void place_test_findings(const Opening& opening, trace::Trace& trace);

}  // namespace cudalab::viz
