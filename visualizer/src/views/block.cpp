// The "Threads of the block" window: the selected block's threads, coloured
// by warp; click one.
#include <imgui.h>

#include <algorithm>
#include <cstdint>

#include "places.h"
#include "views/each_view.h"

namespace cudalab::viz {

void draw_block(const Shared& shared, Selection& s) {
  note_window_text();
  ImGui::Begin("Threads of the block", nullptr, ImGuiWindowFlags_NoCollapse);
  if (shared.trace.launches.empty()) {
    ImGui::End();
    return;
  }
  const auto& l = shared.trace.launches[size_t(s.launch)];
  const int count = int(l.block.count());
  ImGui::Text("block %s, coloured by warp (32 threads each): click a thread",
              dims(l.block).c_str());
  if (s.thread >= 0) {
    const auto t = trace::unflatten(uint32_t(s.thread), l.block);
    ImGui::Text("thread (%u,%u,%u): warp %d, lane %d", t.x, t.y, t.z, s.thread / 32, s.thread % 32);
  } else {
    ImGui::Text("no thread selected");
  }
  const int columns = int(std::min<uint32_t>(l.block.x, 32));
  const float avail = ImGui::GetContentRegionAvail().x;
  const float cell = std::clamp(avail / float(std::max(columns, 1)), 4.f, 24.f);
  const int hit = draw_cells(
      "block", count, columns, cell, [&](int i) { return hue_color(uint32_t(i / 32)); }, s.thread);
  note_place("threads", cell, columns);
  if (hit >= 0) {
    s.thread = hit;
    s.access = -1;
  }
  ImGui::End();
}

}  // namespace cudalab::viz
