// A test's comparison (test_results.h's Comparison) as JSON, written in one
// place: by the judge (framework/src/compare.cpp, the values as numbers) and
// by the grader's file beside a trace (test_results.cpp, the values as the
// text it read). comparisons_from_json (test_results.h) reads either.
// Header-only: the framework's GPU build uses it without the trace library.
#pragma once

#include <nlohmann/json.hpp>
#include <utility>

#include "cudalab/trace/test_results.h"

namespace cudalab::trace {

// `c` without its elements, which come as `elements`: [index, got, want]
// each, got and want numbers or words ("nan").
inline nlohmann::json comparison_json(const Comparison& c, nlohmann::json elements) {
  return {{"name", c.name},
          {"allocation", c.allocation},
          {"offset", c.offset},
          {"element_bytes", c.element_bytes},
          {"row_length", c.row_length},
          {"count", c.count},
          {"wrong", c.wrong},
          {"tolerance", {c.absolute, c.relative}},
          {"elements", std::move(elements)},
          {"runs", c.runs}};
}

}  // namespace cudalab::trace
