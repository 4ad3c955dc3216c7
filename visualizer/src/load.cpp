#include "load.h"

#include <filesystem>
#include <system_error>

namespace cudalab::viz {

std::optional<Stop> load(const Options& options, Loaded* out) {
  const std::string& trace_path = options.trace_path;
  try {
    out->trace = trace::read_trace(trace_path);
  } catch (const trace::TraceError& e) {
    return Stop{1, e.what(), false};
  }
  const bool tests_asked = !options.tests_path.empty();
  const std::string tests_path =
      tests_asked ? options.tests_path : trace::test_results_path(trace_path);
  std::error_code ec;
  if (tests_asked || std::filesystem::exists(tests_path, ec)) {
    try {
      out->results = trace::read_test_results(tests_path);
    } catch (const trace::TraceError& e) {
      return Stop{tests_asked ? 2 : 1, e.what(), false};
    }
    // A trace written again since its tests were graded: they would frame
    // elements and name threads of another run.
    if (out->results->trace_bytes != std::filesystem::file_size(trace_path, ec) ||
        out->results->trace_fingerprint != trace::file_fingerprint(trace_path)) {
      const std::string said =
          tests_path + " is of another recording of " + trace_path +
          " (the trace was written again since): the graded tests are not shown. Run cudalab "
          "check --trace again.";
      if (tests_asked) return Stop{2, said, false};
      out->warning = said;
      out->results.reset();
    }
  }
  return std::nullopt;
}

}  // namespace cudalab::viz
