#include <imgui.h>

#include <cstdint>

#include "places.h"
#include "views/each_view.h"

namespace cudalab::viz {

// The launch's figures per source line, as `cudalab stats` gives them.
void draw_metrics(Shared& shared, const Selection& s) {
  const trace::KernelMetrics& k = shared.metrics(s.launch);
  ImGui::TextWrapped(
      "Per warp-level instruction (a request): global sectors of 32 bytes per request "
      "(4 when a warp reads 32 consecutive floats), the threads' atomics, shared-memory "
      "wavefronts per request "
      "(1 without bank conflicts), and the lanes active per warp step (32: no lane idle). "
      "Nsight Compute measures the same on a GPU; `cudalab stats TRACE` names its metrics.");
  // The method rubric this trace was kept for, when it measured a figure:
  // what it said (its limit and the line), that line in cyan below.
  if (shared.results)
    for (const auto& t : shared.results->tests)
      if (t.name == shared.results->shown && t.kind == "rubric" && t.status != "passed") {
        ImGui::TextColored(kMissedText, "FAIL %s (measured in this trace):", t.name.c_str());
        ImGui::TextWrapped("%s", t.output.c_str());
      }
  ImGui::Text("warp steps: %.1f of 32 lanes active (%.1f %%), %llu divergent branches",
              k.steps.lanes_per_step(), k.steps.efficiency(),
              (unsigned long long)k.steps.divergent);
  constexpr ImGuiTableFlags kFlags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                                     ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("metrics", 11, kFlags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  // Global loads and stores: requests and sectors per request; atomic
  // operations; shared: requests and wavefronts per request; warp steps.
  for (const char* h : {"line", "loads", "sect/req", "stores", "sect/req", "atomics", "sh. loads",
                        "waves/req", "sh. stores", "lanes/step", "divergent"})
    ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  auto cell_count = [](uint64_t n) {
    ImGui::TableNextColumn();
    if (n) ImGui::Text("%llu", (unsigned long long)n);
  };
  auto cell_ratio = [](uint64_t n, double v, bool bad) {
    ImGui::TableNextColumn();
    if (!n) return;
    if (bad)
      ImGui::TextColored(ImVec4(1, 0.55f, 0.35f, 1), "%.2f", v);
    else
      ImGui::Text("%.2f", v);
  };
  for (const trace::LineMetrics& l : k.lines) {
    if (l.simulator_header) continue;
    ImGui::TableNextRow();
    if (!s.line.empty() && same_line(s.line, l.where))  // the picked line
      ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(0, 90, 110, 255));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(l.where.c_str());
    cell_count(l.loads.requests);
    cell_ratio(l.loads.requests, l.loads.sectors_per_request(), l.loads.efficiency() < 50);
    cell_count(l.stores.requests);
    cell_ratio(l.stores.requests, l.stores.sectors_per_request(), l.stores.efficiency() < 50);
    cell_count(l.atomics.lanes);
    cell_count(l.shared_loads.requests);
    cell_ratio(l.shared_loads.requests, l.shared_loads.wavefronts_per_request(),
               l.shared_loads.conflicts > 0);
    cell_count(l.shared_stores.requests);
    cell_ratio(l.steps.steps, l.steps.lanes_per_step(), l.steps.lanes_per_step() < 24);
    cell_count(l.steps.divergent);
  }
  ImGui::EndTable();
}

}  // namespace cudalab::viz
