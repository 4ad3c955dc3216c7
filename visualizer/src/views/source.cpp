#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "places.h"
#include "views/each_view.h"

namespace cudalab::viz {

// The kernel's source, as the trace names it, with each line's figures and
// findings; click a line to mark the cells it touched in the heatmaps.
void draw_source(Shared& shared, SourceState& state, Selection& s) {
  const trace::KernelMetrics& metrics = shared.metrics(s.launch);
  const auto& l = shared.trace.launches[size_t(s.launch)];
  // The files of this launch's lines (the simulator's own headers left out).
  std::vector<std::string> files;
  for (const trace::LineMetrics& m : metrics.lines) {
    if (m.simulator_header) continue;
    for (const auto& [pc, site] : shared.trace.sites)
      if (shared.trace.where(pc) == m.where &&
          std::find(files.begin(), files.end(), site.file) == files.end())
        files.push_back(site.file);
  }
  ImGui::TextWrapped(
      "The kernel's lines with what they did: global sectors per request (sect), shared "
      "wavefronts per request (waves), lanes per warp step; red: a check's finding. Click a line "
      "to frame the cells it touched in 'Who touched each element' (cyan).%s",
      s.line.empty() ? "" : (" Picked: " + s.line + ".").c_str());
  if (files.empty()) ImGui::Text("this launch's trace names no source lines");
  for (const std::string& path : files) {
    // The file on this machine, else as the graded tests kept it (a trace
    // that cudalab check kept was recorded in its sandbox, which is gone).
    std::stringstream in;
    if (std::ifstream file(path); file) {
      in << file.rdbuf();
    } else if (shared.results && shared.results->sources.count(path)) {
      in << shared.results->sources.at(path);
    } else {
      ImGui::Separator();
      ImGui::TextWrapped(
          "%s: not on this machine (the trace was recorded elsewhere, or the file has gone)",
          path.c_str());
      continue;
    }
    ImGui::Separator();
    const std::string base = file_name(path);
    ImGui::Text("%s", base.c_str());
    int number = 0;
    for (std::string text; std::getline(in, text) && number < 5000;) {
      const std::string where = base + ":" + std::to_string(++number);
      std::string figures;
      for (const trace::LineMetrics& m : metrics.lines) {
        if (m.where != where) continue;
        char f[160] = "";
        int at = 0;
        if (m.loads.requests)
          at += std::snprintf(f + at, sizeof(f) - size_t(at), "  load %.1f sect",
                              m.loads.sectors_per_request());
        if (m.stores.requests && at < 120)
          at += std::snprintf(f + at, sizeof(f) - size_t(at), "  store %.1f sect",
                              m.stores.sectors_per_request());
        if (m.shared_loads.requests && at < 120)
          at += std::snprintf(f + at, sizeof(f) - size_t(at), "  sh.load %.1f waves",
                              m.shared_loads.wavefronts_per_request());
        if (m.shared_stores.requests && at < 120)
          at += std::snprintf(f + at, sizeof(f) - size_t(at), "  sh.store %.1f waves",
                              m.shared_stores.wavefronts_per_request());
        if (m.steps.steps && at < 120)
          std::snprintf(f + at, sizeof(f) - size_t(at), "  %.0f lanes", m.steps.lanes_per_step());
        figures = f;
      }
      std::string found;
      for (const auto& f : l.findings)
        if (same_line(f.where, where) || same_line(f.where_other, where))
          found += (found.empty() ? "  <- " : ", ") + f.tool + " " + f.kind;
      char row[600];
      std::snprintf(row, sizeof(row), "%4d  %-60.200s%s##src%s", number, text.c_str(),
                    figures.c_str(), where.c_str());
      if (!found.empty()) ImGui::PushStyleColor(ImGuiCol_Text, kMissedText);
      if (ImGui::Selectable(row, s.line == where)) {
        s.line = s.line == where ? "" : where;
        state.scrolled_to = s.line;  // picked here: in sight already
      }
      note_place("source:" + where);
      // A line picked elsewhere (--line, an access clicked): scrolled to, once.
      if (s.line == where && state.scrolled_to != where) {
        ImGui::SetScrollHereY(0.3f);
        state.scrolled_to = where;
      }
      if (!found.empty()) {
        ImGui::SameLine();
        ImGui::TextUnformatted(found.c_str());
        ImGui::PopStyleColor();
      }
    }
  }
}

}  // namespace cudalab::viz
