#include "opening.h"

#include <algorithm>
#include <regex>

#include "headline.h"
#include "launch_memory.h"

namespace cudalab::viz {
namespace {

constexpr uint64_t kWidestRow = 128;  // elements: cells of about 5 pixels at 1024 wide

// The traced test's findings, each on its launch: the launch opened
// (`launch`, from 1) when it is of their kernel, else their kernel's first.
std::vector<std::pair<size_t, trace::Finding>> test_findings(const trace::Trace& trace,
                                                             const trace::TestResults& results,
                                                             long launch) {
  std::vector<std::pair<size_t, trace::Finding>> placed;
  const auto& launches = trace.launches;
  if (launches.empty()) return placed;
  for (const std::string& text : results.findings) {
    trace::Finding f;
    if (!trace::finding_from_json(text, launches[0], &f)) continue;
    auto of_its_kernel = [&](size_t i) {
      return f.kernel.empty() || launches[i].kernel == f.kernel;
    };
    // The launch it names (the run under the checks launched what the
    // traced run did, in the same order), else the one opened when it is
    // of the finding's kernel, else the first of that kernel.
    size_t at = 0;
    while (at < launches.size() &&
           !(f.launch > 0 && launches[at].id == f.launch && of_its_kernel(at)))
      ++at;
    if (at == launches.size()) at = size_t(launch - 1);
    if (at >= launches.size() || !of_its_kernel(at))
      for (at = 0; at < launches.size() && !of_its_kernel(at); ++at) {
      }
    // Read again as a finding of that launch: its block and thread are
    // counted in that launch's grid.
    if (at < launches.size() && trace::finding_from_json(text, launches[at], &f))
      placed.emplace_back(at, std::move(f));
  }
  return placed;
}

Stop refuse(std::string message) { return Stop{2, std::move(message), false}; }

}  // namespace

std::optional<Stop> choose_opening(const Options& o, const trace::Trace& trace,
                                   const trace::TestResults* results, Opening* out) {
  if (!o.test_name.empty() && !results)
    return refuse("--test " + o.test_name + ", but no graded tests go with " + o.trace_path);
  Opening opening;
  Selection& sel = opening.selection;
  if (!o.test_name.empty()) {
    const auto& tests = results->tests;
    const auto it = std::find_if(tests.begin(), tests.end(),
                                 [&](const auto& t) { return t.name == o.test_name; });
    if (it == tests.end()) {
      std::string names;
      for (const auto& t : tests) names += " " + t.name;
      return refuse("no graded test named " + o.test_name + "; the tests are:" + names);
    }
    sel.test = int(it - tests.begin());
    sel.show_test = true;
  }
  sel.show_metrics = o.metrics;
  sel.show_roofline = o.roofline;
  sel.show_steps = o.step >= 0;
  sel.phase = int(std::max(o.step, 0L));
  sel.instruction = int(o.instruction);
  sel.show_warp = o.access >= 0;
  sel.show_source = o.source;
  sel.line = o.line;
  sel.columns = int(o.columns);
  long launch = o.launch, block = o.block, thread = o.thread;
  const bool tab_asked = o.metrics || o.step >= 0 || o.access >= 0 || o.finding > 0 || o.source ||
                         !o.test_name.empty() || !o.line.empty();
  // Unless told otherwise: a test's wrong values open on the launch that
  // last touched them, in the rows of the test's matrix or grid where a
  // row fits the window in cells a student can see (up to 128: rows of 300
  // were strips a pixel or two high), else in the heatmap's own rows (and a
  // faulted launch, below, on the thread that faulted).
  bool launch_of_values = false;
  if (!o.chosen && results)
    for (const auto& c : results->compared)
      if (c.wrong && c.allocation)
        if (const int at = last_launch_touching(trace, c.allocation); at >= 0) {
          launch = at + 1;
          launch_of_values = true;
          if (o.columns == 0 && c.row_length > 0 && c.row_length <= kWidestRow && c.offset == 0)
            sel.columns = int(c.row_length);
          break;
        }
  if (results) opening.test_findings = test_findings(trace, *results, launch);
  // The launch of the finding a picture is about (of two launches of one
  // kernel, the finding says which), when there are no wrong values or the
  // finding leads the headline before them.
  if (!o.chosen && !opening.test_findings.empty()) {
    std::vector<trace::Finding> found;
    for (const auto& [at, f] : opening.test_findings) found.push_back(f);
    if (const int best = focus_finding(found);
        best >= 0 && (!launch_of_values || finding_leads(found[size_t(best)], true)))
      launch = long(opening.test_findings[size_t(best)].first) + 1;
  }
  if (!o.chosen)
    for (size_t i = 0; i < trace.launches.size(); ++i)
      if (const auto& l = trace.launches[i]; l.faulted && l.fault.known) {
        launch = long(i) + 1;
        // A launch that never ended: a thread whose rounds the trace holds.
        const auto [b, th] = l.fault.never_ended
                                 ? stopped_thread(l)
                                 : std::pair<uint32_t, uint32_t>(l.fault.block, l.fault.thread);
        block = long(b);
        thread = long(th);
        break;
      }
  if (!trace.launches.empty()) {
    if (launch > long(trace.launches.size()))
      return refuse("--launch " + std::to_string(launch) + ", but the trace has " +
                    std::to_string(trace.launches.size()) + " launches");
    sel.launch = int(launch - 1);
    const auto& l = trace.launches[size_t(sel.launch)];
    if (block >= long(l.grid.count()) || thread >= long(l.block.count()))
      return refuse("launch " + std::to_string(launch) + " has " + std::to_string(l.grid.count()) +
                    " blocks of " + std::to_string(l.block.count()) + " threads");
    sel.block = int(block);
    sel.thread = int(thread);
    sel.access = int(o.access);
    // The launch's findings as the viewer lists them: its own, then the
    // traced test's put on it.
    std::vector<trace::Finding> findings = l.findings;
    for (const auto& [at, f] : opening.test_findings)
      if (at == size_t(sel.launch)) findings.push_back(f);
    if (o.finding > 0) {
      if (o.finding > long(findings.size()))
        return refuse("--finding " + std::to_string(o.finding) + ", but launch " +
                      std::to_string(launch) + " has " + std::to_string(findings.size()) +
                      " findings" +
                      (findings.empty() ? " (record the trace with CUDALAB_CHECK set)" : ""));
      const auto& f = findings[size_t(o.finding - 1)];
      if (f.block < 0)
        return refuse("finding " + std::to_string(o.finding) + " names no block to step through");
      // A barrier finding names a block alone: its phases, no thread.
      sel.finding = int(o.finding - 1);
      sel.finding_asked = true;
      sel.block = int(f.block);
      sel.thread = int(f.thread);
    }
    // Unless told otherwise, when no thread faulted: the finding the
    // headline is about (headline.h), where a check saw the bug: its
    // thread; a race in shared memory or a barrier problem opens the steps
    // at its phase, its accesses framed (as --finding does), since only
    // the steps draw a block's shared memory and its barriers.
    if (!o.chosen && o.finding == 0 && !(l.faulted && l.fault.known))
      if (const int f = focus_finding(findings); f >= 0 && findings[size_t(f)].block >= 0) {
        const trace::Finding& x = findings[size_t(f)];
        sel.block = int(x.block);
        if (x.thread >= 0) sel.thread = int(x.thread);
        const bool wrong_values = results && has_wrong_values(*results);
        if (!tab_asked && finding_leads(x, wrong_values) &&
            (x.space == "__shared__" || x.tool == "synccheck")) {
          sel.finding = f;
          sel.finding_asked = true;
        }
      }
  }
  // The tab the graded tests call for, unless one was asked for: a method
  // rubric's figure out of bounds opens the figures per line, its line
  // picked; a test with wrong results but nothing drawn that shows them
  // (no wrong element kept, no finding, no kernel stopped) opens on what
  // the test said.
  if (results && !tab_asked)
    for (size_t i = 0; i < results->tests.size(); ++i) {
      const auto& t = results->tests[i];
      if (t.name != results->shown || t.status == "passed") continue;
      if (t.kind == "rubric" && t.verdict == "metric out of bounds") {
        sel.show_metrics = true;
        // "file.cu:67" in what the rubric said, in its short form.
        static const std::regex where(R"(([A-Za-z0-9_.+-]+\.(cu|cuh|h)):([0-9]+))");
        if (std::smatch m; std::regex_search(t.output, m, where))
          sel.line = m[1].str() + ":" + m[3].str();
      } else {
        const bool wrong_drawn = has_wrong_values(*results);
        const bool found = !opening.test_findings.empty() ||
                           std::any_of(trace.launches.begin(), trace.launches.end(),
                                       [](const auto& l) { return !l.findings.empty(); });
        // A kernel that never ended: the memory its stopped thread went
        // round is what shows why (the opening selected that thread).
        const bool stopped = std::any_of(trace.launches.begin(), trace.launches.end(),
                                         [](const auto& l) { return l.fault.never_ended; });
        if (t.kind == "test" && !wrong_drawn && !found && !stopped) {
          sel.show_test = true;
          sel.test = int(i);
        }
      }
    }
  *out = std::move(opening);
  return std::nullopt;
}

void place_test_findings(const Opening& opening, trace::Trace& trace) {
  for (const auto& [at, f] : opening.test_findings) trace.launches[at].findings.push_back(f);
}

}  // namespace cudalab::viz
