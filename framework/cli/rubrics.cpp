// The method rubrics of a lesson: a passing test run again under the
// simulator's checks (passed when they find nothing) or traced and measured
// (passed when a kernel's figure is within the rubric's bounds).
#include <sstream>

#include "cudalab/trace/metrics.h"
#include "grading_steps.h"

namespace cudalab::cli {

using json = nlohmann::json;

namespace {

// A figure of a kernel's metrics by its name in `cudalab stats --json`
// ("global_loads.sectors_per_request"); false when there is no such figure.
bool metric_value(const json& kernel, const std::string& path, double* value) {
  const json* at = &kernel;
  std::istringstream parts(path);
  for (std::string part; std::getline(parts, part, '.');) {
    if (!at->is_object() || !at->contains(part)) return false;
    at = &(*at)[part];
  }
  if (!at->is_number()) return false;
  *value = at->get<double>();
  return true;
}

}  // namespace

// The findings of a CUDALAB_CHECK_JSON report; false when it is missing,
// too large or not a report (it comes from the submission's process).
bool read_findings(const fs::path& report, json* findings) {
  try {
    if (fs::file_size(report) > (16 << 20)) return false;
    *findings = json::parse(read_file(report)).at("findings");
    return findings->is_array();
  } catch (const std::exception&) {
    return false;
  }
}

// A checks rubric: passed when the rerun passed and its report lists no
// finding. The report comes from the submission's own process: a missing or
// unreadable one earns nothing.
void judge_checks(const Rubric& r, const TestRecord& rerun, const std::string& printed,
                  const fs::path& report, TestRecord* t) {
  json findings;
  if (!read_findings(report, &findings)) {
    t->verdict = rerun.status == "passed" ? "no report" : rerun.verdict;
    t->output = "Test " + r.test + " run under CUDALAB_CHECK=" + r.checks +
                " did not finish with a report of the checks (" + rerun.verdict + ").\n" +
                rerun.output;
    return;
  }
  for (const auto& f : findings) {
    if (!f.is_object() || t->findings.size() >= 20) continue;
    t->findings.push_back(
        safe_text(f.value("tool", "check") + " " + f.value("kind", "finding"), 80));
  }
  if (findings.empty() && rerun.status == "passed") {
    t->status = "passed";
    t->score = t->max_score;
    t->verdict = "passed";
    return;
  }
  t->verdict = findings.empty() ? rerun.verdict : "checks found problems";
  t->output = "Test " + r.test + " run under CUDALAB_CHECK=" + r.checks + " found " +
              std::to_string(findings.size()) + " problem" + (findings.size() == 1 ? "" : "s") +
              ". What the checks said:\n" + quoted_lines(safe_text(printed, 6000));
  if (!r.hint.empty()) t->output += r.hint + "\n";
}

// A metric rubric: passed when the rerun passed and the kernel's figure in
// the trace is within the rubric's bounds; otherwise the figure of each line.
void judge_metric(const Rubric& r, const TestRecord& rerun, const fs::path& trace_path,
                  TestRecord* t) {
  trace::Trace tr;
  try {
    tr = trace::read_trace(trace_path.string());
  } catch (const std::exception& e) {
    t->verdict = "no trace";
    t->output =
        std::string("The trace of the run could not be read: ") + e.what() + "\n" + rerun.output;
    return;
  }
  const json stats = stats_json(tr, trace_path.string());
  const json* kernel = nullptr;
  for (const auto& k : stats["kernels"])
    if (k["kernel"] == r.kernel) kernel = &k;
  double value = 0;
  if (!kernel) {
    t->verdict = "kernel not launched";
    t->output = "Test " + r.test + " did not launch kernel `" + r.kernel +
                "` (its launcher must launch the kernel of that name), so its " + r.metric +
                " could not be measured.\n";
    return;
  }
  if (!metric_value(*kernel, r.metric, &value)) {
    t->verdict = "could not be run";
    t->output = "The lesson's rubric names " + r.metric +
                ", which `cudalab stats --json` does not have: a mistake in lesson.json, not in "
                "your file.\n";
    return;
  }
  char figure[256];
  std::snprintf(figure, sizeof(figure), "%s of %s: %.4g (wanted %s%.4g)", r.metric.c_str(),
                r.kernel.c_str(), value, value > r.at_most ? "at most " : "at least ",
                value > r.at_most ? r.at_most : r.at_least);
  if (value >= r.at_least && value <= r.at_most && rerun.status == "passed") {
    t->status = "passed";
    t->score = t->max_score;
    t->verdict = "passed";
    t->output = std::string("measured ") + figure + "\n";
    return;
  }
  t->verdict = "metric out of bounds";
  t->output = std::string("Measured in a trace of test ") + r.test + ": " + figure + ".\n";
  // The kernel's lines, so the student sees which access it is.
  const std::string group = r.metric.substr(0, r.metric.find('.'));
  for (const auto& line : (*kernel)["lines"]) {
    double v = 0;
    if (line.contains(group) && metric_value(line, r.metric, &v) &&
        line[group].value("requests", 1.0) > 0)
      t->output += "  " + line["where"].get<std::string>() + ": " + std::to_string(v) + "\n";
  }
  if (!r.hint.empty()) t->output += r.hint + "\n";
}

}  // namespace cudalab::cli
