// The "Grid of blocks" window: the launch's blocks, each its colour; click one.
#include <imgui.h>

#include <algorithm>
#include <cstdint>

#include "places.h"
#include "views/each_view.h"

namespace cudalab::viz {

void draw_grid(const Shared& shared, Selection& s) {
  note_window_text();
  ImGui::Begin("Grid of blocks", nullptr, ImGuiWindowFlags_NoCollapse);
  if (shared.trace.launches.empty()) {
    ImGui::Text("no launches in this trace");
    ImGui::End();
    return;
  }
  const auto& l = shared.trace.launches[size_t(s.launch)];
  const int count = int(std::min<uint64_t>(l.grid.count(), 65536));
  const auto sel = trace::unflatten(uint32_t(s.block), l.grid);
  ImGui::Text("grid %s: click a block. Selected: block (%u,%u,%u)", dims(l.grid).c_str(), sel.x,
              sel.y, sel.z);
  if (count < int(l.grid.count())) ImGui::Text("(first %d blocks shown)", count);
  const int columns = int(std::min<uint32_t>(l.grid.x, 64));
  const float avail = ImGui::GetContentRegionAvail().x;
  const float cell = std::clamp(avail / float(std::max(columns, 1)), 4.f, 28.f);
  const int hit = draw_cells(
      "grid", count, columns, cell, [&](int i) { return hue_color(uint32_t(i), 0.6f, 0.85f); },
      s.block);
  note_place("grid", cell, columns);
  if (hit >= 0) {
    s.block = hit;
    s.thread = -1;
    s.access = -1;
  }
  ImGui::End();
}

}  // namespace cudalab::viz
