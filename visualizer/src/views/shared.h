// What the views share: the trace and its graded tests, what is computed
// for more than one view (the selected launch's memory, the selected
// thread's accesses, the launch's figures per line), the colours that mean
// one thing in every view, and the drawing and wording helpers several
// views use. What one view alone keeps is in that view's state
// (each_view.h).
#pragma once

#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cudalab/trace/metrics.h"
#include "cudalab/trace/test_results.h"
#include "cudalab/trace/trace.h"
#include "headline.h"
#include "launch_memory.h"
#include "selection.h"

namespace cudalab::viz {

inline constexpr ImU32 kUntouched = IM_COL32(45, 45, 52, 255);
inline constexpr ImU32 kSelected = IM_COL32(255, 255, 255, 255);
// The cells a picked source line touched (the Source tab).
inline constexpr ImU32 kLine = IM_COL32(0, 235, 255, 255);
// Out of bounds, a fault: the one red of the memory views.
inline constexpr ImU32 kMissed = IM_COL32(235, 40, 40, 255);
inline const ImVec4 kMissedText(1.0f, 0.35f, 0.3f, 1.0f);
// Wrong values at the end of a graded test (its comparisons): yellow frames.
inline constexpr ImU32 kWrong = IM_COL32(255, 210, 0, 255);
inline const ImVec4 kWrongText(1.0f, 0.82f, 0.1f, 1.0f);
inline const ImVec4 kPassedText(0.45f, 0.85f, 0.45f, 1.0f);

// Colour of warp `w`, block `b`... as ImU32 (a hue wheel).
unsigned hue_color(uint32_t index, float saturation = 0.65f, float value = 0.9f);

class Shared {
 public:
  // `results`: the graded tests that go with the trace, or null.
  Shared(const trace::Trace& t, const trace::TestResults* r) : trace(t), results(r) {}

  const trace::Trace& trace;
  const trace::TestResults* results;

  // Brings memory() and thread_accesses() up to the selection: the
  // launch's memory is made again when the launch or the row width
  // changes, the thread's accesses when the thread does. Traces hold
  // millions of accesses: not once a frame.
  void refresh(const Selection& s);
  // The selected launch's memory (launch_memory.h), as of the last refresh:
  // the heatmaps, the steps and the graded test draw from it.
  const LaunchMemory& memory() const { return memory_; }
  // The selected thread's accesses in its order, and the request (warp
  // instruction) of each: listed, framed on the heatmaps, and drawn lane by
  // lane in the warp instruction tab.
  const std::vector<trace::Access>& thread_accesses() const { return thread_accesses_; }
  const std::vector<uint32_t>& thread_requests() const { return thread_requests_; }
  // The launch's figures per source line, as `cudalab stats` gives them:
  // the metrics tab and the Source tab; made when the launch changes.
  const trace::KernelMetrics& metrics(int launch);

  // "thread (3,0,0) of block (1,0,0) wrote at file.cu:9" for hover lists.
  std::string who(const trace::Launch& l, const trace::Access& x) const;
  // How far outside its buffer a missed access fell, in words.
  std::string miss_words(const trace::Access& x) const;

 private:
  int memory_launch_ = -1, memory_columns_ = -1;  // what memory_ is of
  LaunchMemory memory_;
  int accesses_launch_ = -1, accesses_block_ = -1, accesses_thread_ = -1;
  std::vector<trace::Access> thread_accesses_;
  std::vector<uint32_t> thread_requests_;
  int metrics_launch_ = -1;  // the launch metrics_ are of
  trace::KernelMetrics metrics_;
};

// One entry of a legend: a filled square (or a frame) of `c`, then `what`.
void legend_item(ImU32 c, const char* what, bool frame = false);

// The top left corner of cell `i` of a grid that draw_cells drew at `origin`.
inline ImVec2 cell_corner(ImVec2 origin, size_t i, int columns, float cell) {
  return ImVec2(origin.x + float(i % size_t(columns)) * cell,
                origin.y + float(i / size_t(columns)) * cell);
}

// A frame of `width` on cell `i` of such a grid: on its edge, or (`around`)
// just outside it.
void frame_cell(ImDrawList* dl, ImVec2 origin, size_t i, int columns, float cell, ImU32 color,
                float width, bool around = false);

// Cells of `count` squares laid out in rows of `columns`, each `cell` pixels.
// Returns the index under the mouse when clicked, -1 otherwise; *hovered
// (when given) gets the index under the mouse, or -1. A template: it is
// called once a cell, for every cell of every heatmap, every frame.
template <class ColorOf>
int draw_cells(const char* id, int count, int columns, float cell, ColorOf color_of,
               int highlighted, int* hovered = nullptr) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const int rows = (count + columns - 1) / columns;
  for (int i = 0; i < count; ++i) {
    const ImVec2 p = cell_corner(origin, size_t(i), columns, cell);
    dl->AddRectFilled(p, ImVec2(p.x + cell - 1, p.y + cell - 1), color_of(i));
    if (i == highlighted) frame_cell(dl, origin, size_t(i), columns, cell, kSelected, 2.0f, true);
  }
  ImGui::InvisibleButton(id, ImVec2(std::max(1.f, columns * cell), std::max(1.f, rows * cell)));
  if (hovered) {
    *hovered = -1;
    if (ImGui::IsItemHovered()) {
      const ImVec2 m = ImGui::GetMousePos();
      const int cx = int((m.x - origin.x) / cell), cy = int((m.y - origin.y) / cell);
      if (cx >= 0 && cx < columns && cy * columns + cx < count) *hovered = cy * columns + cx;
    }
  }
  if (ImGui::IsItemClicked()) {
    const ImVec2 m = ImGui::GetMousePos();
    const int cx = int((m.x - origin.x) / cell), cy = int((m.y - origin.y) / cell);
    const int index = cy * columns + cx;
    if (cx >= 0 && cx < columns && index >= 0 && index < count) return index;
  }
  return -1;
}

// Whether a finding's "where" (a full path and line) is the line `short_where` names.
bool same_line(const std::string& where, const std::string& short_where);

// "(x,y,z)".
std::string dims(const trace::Dim3& d);

}  // namespace cudalab::viz
