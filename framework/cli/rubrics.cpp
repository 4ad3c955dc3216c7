// The method rubrics of a lesson: a passing test run again under the
// simulator's checks (passed when they find nothing) or traced and measured
// (passed when a kernel's figure is within the rubric's bounds).
#include <sstream>

#include "cudalab/predict/predict.h"
#include "cudalab/trace/finding.h"
#include "cudalab/trace/metrics.h"
#include "one_submission_steps.h"

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

std::string microseconds(double s) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.4g us", s * 1e6);
  return b;
}

// A predicted-time rubric: the kernel's first launch in the run, predicted
// on the rubric's GPU (cudalab predict's model), against the bounds; with
// "faster_than", that kernel's prediction over this one's.
void judge_predicted(const Rubric& r, const trace::Trace& tr, TestRecord* t) {
  std::string why;
  const auto gpu = predict::load_gpu(r.gpu, &why);
  if (!gpu) {
    t->verdict = "could not be run";
    t->output = "The lesson's rubric predicts on a GPU without calibration data (" + why +
                "): a mistake in lesson.json, not in your file.\n";
    return;
  }
  // Each kernel's first launch, predicted; false (with the reason in the
  // record) when it was not launched or the model does not cover it.
  auto predicted = [&](const std::string& kernel, double* seconds) {
    for (size_t i = 0; i < tr.launches.size(); ++i) {
      if (tr.launches[i].kernel != kernel) continue;
      predict::Work work;
      const predict::Prediction p = predict::predict_launch(tr, i, *gpu, &work);
      if (!p.covered) {
        t->verdict = "could not be predicted";
        t->output = "Test " + r.test + "'s kernel `" + kernel +
                    "` cannot be predicted: " + p.not_covered + ".\n";
        return false;
      }
      *seconds = p.kernel_seconds;
      return true;
    }
    t->verdict = "kernel not launched";
    t->output = "Test " + r.test + " did not launch kernel `" + kernel +
                "` (its launcher must launch the kernel of that name), so its time could not be "
                "predicted.\n";
    return false;
  };
  double mine = 0, other = 0;
  if (!predicted(r.kernel, &mine)) return;
  t->predicted_us = mine * 1e6;
  if (!r.faster_than.empty() && !predicted(r.faster_than, &other)) return;
  const bool speedup = !r.faster_than.empty();
  const double value = speedup ? other / mine : mine * 1e6;
  const bool has_least = r.at_least > -1e299, has_most = r.at_most < 1e299;
  char figure[512];
  if (speedup)
    std::snprintf(figure, sizeof(figure),
                  "on an %s, %s is predicted to take %s and %s %s: %.3gx faster (wanted %s%.3gx)",
                  gpu->name.c_str(), r.kernel.c_str(), microseconds(mine).c_str(),
                  r.faster_than.c_str(), microseconds(other).c_str(), value,
                  has_least ? "at least " : "at most ", has_least ? r.at_least : r.at_most);
  else
    std::snprintf(figure, sizeof(figure), "on an %s, %s is predicted to take %s (wanted %s%.4g us)",
                  gpu->name.c_str(), r.kernel.c_str(), microseconds(mine).c_str(),
                  has_most ? "at most " : "at least ", has_most ? r.at_most : r.at_least);
  if (value >= r.at_least && value <= r.at_most) {
    t->status = "passed";
    t->score = t->max_score;
    t->verdict = "passed";
    figure[0] = 'O';
    t->output = std::string(figure) + ".\n";
    return;
  }
  t->verdict = "predicted time out of bounds";
  t->output = std::string("Predicted from a sample of test ") + r.test + "'s blocks: " + figure +
              ". cudalab run with --predict shows what bounds each kernel, at any size.\n";
  if (!r.hint.empty()) t->output += r.hint + "\n";
}

}  // namespace

bool read_findings(const fs::path& report, const Session& session, const std::string& checks,
                   json* findings, std::string* why) {
  std::error_code ec;
  if (!fs::exists(report, ec)) {
    *why = "the run wrote no report of the checks";
    return false;
  }
  if (fs::file_size(report, ec) > (16 << 20)) {
    *why = "its report of the checks is too large";
    return false;
  }
  const std::string text = support::read_file(report);
  // `, "signature": "<16 hex digits>"}` ends the report; it signs all that
  // comes before it.
  const std::string mark = ", \"signature\": \"";
  const size_t at = text.rfind(mark);
  if (at == std::string::npos || text.size() != at + mark.size() + 16 + 3 ||
      text.compare(at + mark.size() + 16, 3, "\"}\n") != 0 ||
      trace::report_mac(session.report_key(), text.substr(0, at)) !=
          text.substr(at + mark.size(), 16)) {
    *why =
        "its report of the checks is not the one the checked run wrote (changed, replaced or cut "
        "short)";
    return false;
  }
  try {
    const json j = json::parse(text);
    if (j.value("checks", "") != checks) {
      *why = "its report of the checks is from a run with other checks";
      return false;
    }
    *findings = j.at("findings");
    if (findings->is_array()) return true;
  } catch (const std::exception&) {
  }
  *why = "its report of the checks cannot be read";
  return false;
}

// A checks rubric: passed when the rerun passed and its report lists no
// finding. The report comes from the submission's own process: a missing or
// unreadable one earns nothing.
void judge_checks(const Rubric& r, const Session& session, const TestRecord& rerun,
                  const std::string& printed, const fs::path& report, TestRecord* t) {
  json findings;
  std::string why;
  if (!read_findings(report, session, r.checks, &findings, &why)) {
    t->verdict = rerun.status == "passed" ? "no report" : rerun.verdict;
    t->output = "Test " + r.test + " run under CUDALAB_CHECK=" + r.checks +
                " did not finish with a report of the checks (" + rerun.verdict + "; " + why +
                ").\n" + rerun.output;
    return;
  }
  for (const auto& object : findings) {
    trace::FindingFields f;
    if (t->findings.size() >= 20 || !trace::finding_fields(object, &f)) continue;
    t->findings.push_back(safe_text(trace::finding_label(f), 80));
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
  if (r.predicted()) {
    judge_predicted(r, tr, t);
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
  // The bounds the rubric gives (an absent one is +-1e300).
  const bool has_least = r.at_least > -1e299, has_most = r.at_most < 1e299;
  char bounds[96];
  if (has_least && has_most)
    std::snprintf(bounds, sizeof(bounds), "from %.4g to %.4g", r.at_least, r.at_most);
  else if (has_most)
    std::snprintf(bounds, sizeof(bounds), "at most %.4g", r.at_most);
  else
    std::snprintf(bounds, sizeof(bounds), "at least %.4g", r.at_least);
  char figure[256];
  std::snprintf(figure, sizeof(figure), "%s of %s: %.4g (wanted %s)", r.metric.c_str(),
                r.kernel.c_str(), value, bounds);
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
