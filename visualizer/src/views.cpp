#include "views.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "places.h"

namespace cudalab::viz {
namespace {

constexpr ImU32 kUntouched = IM_COL32(45, 45, 52, 255);
constexpr ImU32 kSelected = IM_COL32(255, 255, 255, 255);
// The cells a picked source line touched (the Source tab).
constexpr ImU32 kLine = IM_COL32(0, 235, 255, 255);
// Out of bounds, a fault: the one red of the memory views.
constexpr ImU32 kMissed = IM_COL32(235, 40, 40, 255);
const ImVec4 kMissedText(1.0f, 0.35f, 0.3f, 1.0f);
// Wrong values at the end of a graded test (its comparisons): yellow frames.
constexpr ImU32 kWrong = IM_COL32(255, 210, 0, 255);
const ImVec4 kWrongText(1.0f, 0.82f, 0.1f, 1.0f);
const ImVec4 kPassedText(0.45f, 0.85f, 0.45f, 1.0f);

// One entry of a legend: a filled square (or a frame) of `c`, then `what`.
void legend_item(ImU32 c, const char* what, bool frame = false) {
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (frame) {
    dl->AddRectFilled(p, ImVec2(p.x + h, p.y + h), kUntouched);
    dl->AddRect(p, ImVec2(p.x + h, p.y + h), c, 0, 0, 2.0f);
  } else {
    dl->AddRectFilled(p, ImVec2(p.x + h, p.y + h), c);
  }
  ImGui::Dummy(ImVec2(h, h));
  note_place(std::string("legend:") + what);
  ImGui::SameLine();
  ImGui::TextUnformatted(what);
  ImGui::SameLine(0, 18);
  // Wrap before an entry would run past the window's edge.
  if (ImGui::GetContentRegionAvail().x < 160) ImGui::NewLine();
}

// The top left corner of cell `i` of a grid that draw_cells drew at `origin`.
ImVec2 cell_corner(ImVec2 origin, size_t i, int columns, float cell) {
  return ImVec2(origin.x + float(i % size_t(columns)) * cell,
                origin.y + float(i / size_t(columns)) * cell);
}

// A frame of `width` on cell `i` of such a grid: on its edge, or (`around`)
// just outside it.
void frame_cell(ImDrawList* dl, ImVec2 origin, size_t i, int columns, float cell, ImU32 color,
                float width, bool around = false) {
  const ImVec2 p = cell_corner(origin, i, columns, cell);
  if (around)
    dl->AddRect(ImVec2(p.x - 1, p.y - 1), ImVec2(p.x + cell, p.y + cell), color, 0, 0, width);
  else
    dl->AddRect(p, ImVec2(p.x + cell - 1, p.y + cell - 1), color, 0, 0, width);
}

// Cells of `count` squares laid out in rows of `columns`, each `cell` pixels.
// Returns the index under the mouse when clicked, -1 otherwise; *hovered
// (when given) gets the index under the mouse, or -1.
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

// "file.cu:12" of "/path/to/file.cu:12".
std::string file_name(const std::string& where) {
  const auto slash = where.rfind('/');
  return slash == std::string::npos ? where : where.substr(slash + 1);
}

// Whether a finding's "where" (a full path and line) is the line `short_where` names.
bool same_line(const std::string& where, const std::string& short_where) {
  return !where.empty() && file_name(where) == short_where;
}

std::string dims(const trace::Dim3& d) {
  char b[64];
  std::snprintf(b, sizeof(b), "(%u,%u,%u)", d.x, d.y, d.z);
  return b;
}

}  // namespace

unsigned hue_color(uint32_t index, float s, float v) {
  // Golden-ratio hue steps keep neighbouring indices apart; the reds are
  // left out (red means out of bounds and faults).
  const float h = 0.1f + 0.8f * std::fmod(float(index) * 0.618034f, 1.0f);
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(h, s, v, r, g, b);
  return IM_COL32(int(r * 255), int(g * 255), int(b * 255), 255);
}

void Views::draw(Selection& s, int width, int height) {
  const float w = float(width), h = float(height);
  const float left = std::floor(w * 0.30f);
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(left, h * 0.45f));
  draw_launches(s);
  ImGui::SetNextWindowPos(ImVec2(0, h * 0.45f));
  ImGui::SetNextWindowSize(ImVec2(left, h * 0.55f));
  draw_thread_accesses(s);
  ImGui::SetNextWindowPos(ImVec2(left, 0));
  ImGui::SetNextWindowSize(ImVec2((w - left) * 0.5f, h * 0.40f));
  draw_grid(s);
  ImGui::SetNextWindowPos(ImVec2(left + (w - left) * 0.5f, 0));
  ImGui::SetNextWindowSize(ImVec2((w - left) * 0.5f, h * 0.40f));
  draw_block(s);
  ImGui::SetNextWindowPos(ImVec2(left, h * 0.40f));
  ImGui::SetNextWindowSize(ImVec2(w - left, h * 0.60f));
  draw_memory(s);
}

void Views::draw_launches(Selection& s) {
  note_window_text();
  ImGui::Begin("Launches", nullptr, ImGuiWindowFlags_NoCollapse);
  ImGui::TextWrapped("Program: %s", trace_.program.c_str());
  ImGui::Text("%zu launches, %zu allocations, %llu accesses recorded", trace_.launches.size(),
              trace_.allocations.size(), (unsigned long long)trace_.accesses_total);
  for (const auto& n : trace_.notes) ImGui::TextColored(ImVec4(1, 0.7f, 0.3f, 1), "%s", n.c_str());
  draw_test_list(s);
  ImGui::Separator();
  for (int i = 0; i < int(trace_.launches.size()); ++i) {
    const auto& l = trace_.launches[size_t(i)];
    char label[512];
    std::snprintf(label, sizeof(label), "#%u %s<<<%s, %s>>>%s##launch%d", l.id, l.kernel.c_str(),
                  dims(l.grid).c_str(), dims(l.block).c_str(), l.faulted ? "  FAULTED" : "", i);
    if (ImGui::Selectable(label, s.launch == i)) {
      s.launch = i;
      s.block = 0;
      s.thread = -1;
      s.access = -1;
    }
    note_place("launch:" + std::to_string(i + 1));
  }
  if (!trace_.launches.empty()) {
    const auto& l = trace_.launches[size_t(s.launch)];
    ImGui::Separator();
    std::string file = l.file;
    if (auto slash = file.rfind('/'); slash != std::string::npos) file = file.substr(slash + 1);
    ImGui::Text("launched at %s:%u", file.c_str(), l.line);
    ImGui::Text("%llu blocks x %llu threads = %llu threads, %llu warps",
                (unsigned long long)l.grid.count(), (unsigned long long)l.block.count(),
                (unsigned long long)(l.grid.count() * l.block.count()),
                (unsigned long long)(l.grid.count() * ((l.block.count() + 31) / 32)));
    ImGui::Text("threads that touched no global memory: %llu", (unsigned long long)l.idle_threads);
    if (l.faulted && l.fault.known) {
      const auto fb = trace::unflatten(l.fault.block, l.grid);
      const auto ft = trace::unflatten(l.fault.thread, l.block);
      std::string where = l.fault.where;
      if (auto slash = where.rfind('/'); slash != std::string::npos)
        where = where.substr(slash + 1);
      ImGui::PushStyleColor(ImGuiCol_Text, kMissedText);
      ImGui::TextWrapped("FAULTED: thread (%u,%u,%u) of block (%u,%u,%u) at %s", ft.x, ft.y, ft.z,
                         fb.x, fb.y, fb.z, where.c_str());
      ImGui::TextWrapped("%s", l.fault.what.c_str());
      ImGui::PopStyleColor();
      if (ImGui::SmallButton("select the faulting thread")) {
        s.block = int(l.fault.block);
        s.thread = int(l.fault.thread);
        s.access = -1;
      }
    } else if (l.faulted) {
      ImGui::TextColored(kMissedText, "FAULTED (this trace does not say which thread)");
    }
    if (!l.findings.empty()) {
      ImGui::Separator();
      ImGui::TextColored(ImVec4(1, 0.45f, 0.35f, 1),
                         "%zu check finding%s (CUDALAB_CHECK):", l.findings.size(),
                         l.findings.size() == 1 ? "" : "s");
      for (size_t i = 0; i < l.findings.size(); ++i) {
        const auto& f = l.findings[i];
        ImGui::Bullet();
        ImGui::TextWrapped("%s %s at %s%s%s (x%llu)", f.tool.c_str(), f.kind.c_str(),
                           file_name(f.where).c_str(), f.where_other.empty() ? "" : " against ",
                           file_name(f.where_other).c_str(), (unsigned long long)f.count);
        ImGui::Indent();
        ImGui::TextWrapped("%s", f.message.c_str());
        if (!f.advice.empty()) ImGui::TextWrapped("%s", f.advice.c_str());
        if (f.block >= 0 &&  // a barrier finding names its block alone
            ImGui::SmallButton(("show it, step by step##finding" + std::to_string(i)).c_str())) {
          s.finding = int(i);
          s.block = int(f.block);
          s.thread = int(f.thread);
          s.access = -1;
          s.finding_asked = true;
        }
        ImGui::Unindent();
      }
    }
  }
  ImGui::Checkbox("heatmap: colour by thread instead of block", &s.color_by_thread);
  ImGui::End();
}

void Views::draw_grid(Selection& s) {
  note_window_text();
  ImGui::Begin("Grid of blocks", nullptr, ImGuiWindowFlags_NoCollapse);
  if (trace_.launches.empty()) {
    ImGui::Text("no launches in this trace");
    ImGui::End();
    return;
  }
  const auto& l = trace_.launches[size_t(s.launch)];
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

void Views::draw_block(Selection& s) {
  note_window_text();
  ImGui::Begin("Threads of the block", nullptr, ImGuiWindowFlags_NoCollapse);
  if (trace_.launches.empty()) {
    ImGui::End();
    return;
  }
  const auto& l = trace_.launches[size_t(s.launch)];
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

void Views::refresh(const Selection& s) {
  if (trace_.launches.empty()) return;
  const auto& l = trace_.launches[size_t(s.launch)];
  if (memory_launch_ != s.launch || memory_columns_ != s.columns) {
    // One element a cell when a row width is given (up to 64K cells).
    memory_ = launch_memory(trace_, l, s.columns > 0 ? 65536 : 2048);
    memory_launch_ = s.launch;
    memory_columns_ = s.columns;
    accesses_launch_ = -1;
    wrong_ =
        results_ ? wrong_cells(memory_, results_->compared) : std::vector<std::vector<WrongCell>>{};
    // The cells of each race finding's two accesses in global memory.
    race_cells_.assign(memory_.buffers.size(), {});
    for (size_t f = 0; f < l.findings.size(); ++f) {
      const trace::Finding& x = l.findings[f];
      if (x.tool != "racecheck" || x.space != "__global__") continue;
      auto mark = [&](int64_t block, int64_t thread, const std::string& where) {
        if (block < 0 || thread < 0 || uint64_t(block) >= l.grid.count()) return;
        for (const trace::Access& a :
             thread_accesses(l, memory_, uint32_t(block), uint32_t(thread))) {
          if (a.shared() || trace_.missed(a) || !same_line(where, trace_.where(a.pc))) continue;
          for (size_t b = 0; b < memory_.buffers.size(); ++b)
            if (memory_.buffers[b].allocation->id == a.allocation)
              race_cells_[b].emplace_back(a.offset / 4 / memory_.buffers[b].per_cell, int(f));
        }
      };
      mark(x.block, x.thread, x.where);
      mark(x.other_block >= 0 ? x.other_block : x.block, x.other_thread, x.where_other);
    }
  }
  if (accesses_launch_ != s.launch || accesses_block_ != s.block || accesses_thread_ != s.thread) {
    thread_accesses_ = s.thread < 0 ? std::vector<trace::Access>{}
                                    : thread_accesses(l, memory_, uint32_t(s.block),
                                                      uint32_t(s.thread), &thread_requests_);
    accesses_launch_ = s.launch;
    accesses_block_ = s.block;
    accesses_thread_ = s.thread;
  }
}

std::string Views::who(const trace::Launch& l, const trace::Access& x) const {
  const auto b = trace::unflatten(x.block, l.grid);
  const auto t = trace::unflatten(x.thread, l.block);
  char line[256];
  std::snprintf(line, sizeof(line), "thread (%u,%u,%u) of block (%u,%u,%u) %s at %s", t.x, t.y, t.z,
                b.x, b.y, b.z,
                x.atomic  ? "added atomically"
                : x.write ? "wrote"
                          : "read",
                trace_.where(x.pc).c_str());
  return line;
}

std::string Views::miss_words(const trace::Access& x) const {
  const trace::Allocation* a = trace_.allocation(x.allocation);
  char said[160];
  if (!a) {
    std::snprintf(said, sizeof(said), "address 0x%llx, in no buffer%s",
                  (unsigned long long)x.offset, x.offset < 65536 ? " (a null pointer)" : "");
  } else if (int64_t(x.offset) < 0) {
    std::snprintf(said, sizeof(said), "%lld bytes before the start of %s (element [%lld])",
                  (long long)-int64_t(x.offset), a->name.empty() ? "its buffer" : a->name.c_str(),
                  (long long)(int64_t(x.offset) - 3) / 4);
  } else {
    std::snprintf(said, sizeof(said), "element [%llu] of %s, which has elements [0] to [%llu]",
                  (unsigned long long)(x.offset / 4),
                  a->name.empty() ? "its buffer" : a->name.c_str(),
                  (unsigned long long)((a->size + 3) / 4 - 1));
  }
  return said;
}

void Views::draw_memory(Selection& s) {
  note_window_text();
  ImGui::Begin("Memory", nullptr, ImGuiWindowFlags_NoCollapse);
  if (trace_.launches.empty()) {
    ImGui::End();
    return;
  }
  // The tab asked for on the command line is chosen once; then the user's.
  const bool choose = !tab_chosen_, metrics_first = s.show_metrics, steps_first = s.show_steps,
             warp_first = s.show_warp;
  tab_chosen_ = true;
  auto chosen = [&](bool first) { return choose && first ? ImGuiTabItemFlags_SetSelected : 0; };
  // A tab asked for by a button (of this frame's windows or the last's):
  // chosen once.
  const bool heatmap_asked = heatmap_tab_asked_, test_asked = test_tab_asked_;
  heatmap_tab_asked_ = test_tab_asked_ = false;
  if (ImGui::BeginTabBar("memory views")) {
    if (ImGui::BeginTabItem("Who touched each element", nullptr,
                            heatmap_asked ? ImGuiTabItemFlags_SetSelected
                                          : chosen(!metrics_first && !steps_first && !warp_first &&
                                                   !s.show_source && !s.show_test))) {
      s.show_metrics = s.show_steps = s.show_warp = false;
      draw_heatmaps(s);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem(
            "Step through the block", nullptr,
            s.finding_asked ? ImGuiTabItemFlags_SetSelected : chosen(steps_first))) {
      s.show_metrics = s.show_warp = false;
      s.show_steps = true;
      draw_steps(s);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Warp instruction", nullptr,
                            warp_tab_asked_ ? ImGuiTabItemFlags_SetSelected : chosen(warp_first))) {
      s.show_metrics = s.show_steps = false;
      s.show_warp = true;
      draw_warp_instruction(s);
      ImGui::EndTabItem();
    }
    warp_tab_asked_ = false;
    if (ImGui::BeginTabItem("Source", nullptr, chosen(s.show_source))) {
      draw_source(s);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Metrics per line", nullptr, chosen(metrics_first))) {
      s.show_metrics = true;
      s.show_steps = s.show_warp = false;
      draw_metrics(s);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Graded test", nullptr,
                            test_asked ? ImGuiTabItemFlags_SetSelected : chosen(s.show_test))) {
      draw_graded_test(s);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  ImGui::End();
}

// The launch's figures per source line, as `cudalab stats` gives them.
void Views::draw_metrics(const Selection& s) {
  if (metrics_launch_ != s.launch) {
    metrics_ = trace::launch_metrics(trace_, trace_.launches[size_t(s.launch)]);
    metrics_launch_ = s.launch;
  }
  const trace::KernelMetrics& k = metrics_;
  ImGui::TextWrapped(
      "Per warp-level instruction (a request): global sectors of 32 bytes per request "
      "(4 when a warp reads 32 consecutive floats), the threads' atomics, shared-memory "
      "wavefronts per request "
      "(1 without bank conflicts), and the lanes active per warp step (32: no lane idle). "
      "Nsight Compute measures the same on a GPU; `cudalab stats TRACE` names its metrics.");
  // The method rubric this trace was kept for, when it measured a figure:
  // what it said (its limit and the line), that line in cyan below.
  if (results_)
    for (const auto& t : results_->tests)
      if (t.name == results_->shown && t.kind == "rubric" && t.status != "passed") {
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

void Views::draw_heatmaps(Selection& s) {
  refresh(s);
  const auto& l = trace_.launches[size_t(s.launch)];
  ImGui::TextWrapped(
      "Each cell is one 4-byte element (or a run of them for large buffers), coloured by the "
      "%s that last touched it (the colours of 'Grid of blocks'%s). Hover a cell for every "
      "access to it, in order; click to select the thread.",
      s.color_by_thread ? "thread" : "block",
      s.color_by_thread ? ", by thread number in the block" : "");
  // The legend: one meaning per colour in this view.
  legend_item(hue_color(0, 0.6f, 0.85f),
              s.color_by_thread ? "a thread's colour" : "a block's colour");
  legend_item(kUntouched, "untouched");
  legend_item(kSelected, "the selected thread's, numbered in its order", true);
  legend_item(kLine, "the picked line's", true);
  legend_item(kWrong, "a wrong value", true);
  legend_item(kMissed, "outside the buffer");
  legend_item(kMissed, "a race (check finding)", true);
  ImGui::NewLine();
  // The misses first, so that they are seen without scrolling.
  std::string misses;
  for (const BufferMap& h : memory_.buffers)
    if (h.missed_count)
      misses += (misses.empty() ? "" : ", ") + std::to_string(h.missed_count) + " outside " +
                (h.allocation->name.empty() ? "allocation " + std::to_string(h.allocation->id)
                                            : h.allocation->name);
  if (!misses.empty())
    ImGui::TextColored(kMissedText,
                       "Out of bounds: %s (listed under each buffer, drawn red past "
                       "its end).",
                       misses.c_str());
  if (memory_.no_buffer_count) {
    ImGui::TextColored(kMissedText, "%llu access%s to no buffer at all:",
                       (unsigned long long)memory_.no_buffer_count,
                       memory_.no_buffer_count == 1 ? "" : "es");
    for (size_t i = 0; i < memory_.no_buffer.size() && i < 6; ++i)
      ImGui::TextColored(kMissedText, "  %s: %s", who(l, memory_.no_buffer[i]).c_str(),
                         miss_words(memory_.no_buffer[i]).c_str());
  }
  if (results_)
    for (size_t b = 0; b < memory_.buffers.size() && b < wrong_.size(); ++b) {
      if (wrong_[b].empty()) continue;
      int c = -1;
      for (const WrongCell& w : wrong_[b])
        if (w.comparison >= 0) c = w.comparison;
      if (c < 0) continue;
      const trace::Comparison& cmp = results_->compared[size_t(c)];
      uint64_t framed = 0;
      for (const auto& run : cmp.runs) framed += run.second;
      ImGui::TextColored(
          kWrongText,
          "Wrong at the end of test %s: %llu of the %llu elements of %s "
          "(yellow frames%s; hover one for its value and the value expected).",
          results_->traced_test.c_str(), (unsigned long long)cmp.wrong,
          (unsigned long long)cmp.count, cmp.name.c_str(),
          framed < cmp.wrong ? (", the first " + std::to_string(framed) + " of them").c_str() : "");
    }
  size_t races = 0;
  for (const auto& cells : race_cells_) races += cells.size();
  if (races)
    ImGui::TextColored(kMissedText,
                       "Races in global memory (racecheck): the cells of their accesses are "
                       "framed red; the findings are listed under the launch.");
  if (memory_.buffers.empty() && !memory_.no_buffer_count)
    ImGui::Text("this launch touched no global memory that was recorded");
  std::vector<uint32_t> mine;  // per cell: the selected thread's first access to it (from 1)
  refresh_line(s);
  // Buffers with a bug first (accesses outside them, wrong values), so
  // that the bug is seen without scrolling; the others in their order.
  std::vector<size_t> order(memory_.buffers.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto has_bug = [&](size_t b) {
    if (memory_.buffers[b].missed_count) return true;
    return b < wrong_.size() && std::any_of(wrong_[b].begin(), wrong_[b].end(),
                                            [](WrongCell w) { return w.comparison >= 0; });
  };
  std::stable_partition(order.begin(), order.end(), has_bug);
  for (const size_t buffer : order) {
    const BufferMap& h = memory_.buffers[buffer];
    const trace::Allocation& a = *h.allocation;
    ImGui::Separator();
    std::string site = a.site;
    if (auto slash = site.rfind('/'); slash != std::string::npos) site = site.substr(slash + 1);
    ImGui::Text("allocation %u%s%s: %llu bytes, allocated at %s", a.id, a.name.empty() ? "" : " ",
                a.name.c_str(), (unsigned long long)a.size, site.c_str());
    if (h.per_cell > 1) ImGui::Text("(each cell: %llu elements)", (unsigned long long)h.per_cell);
    // Cells past the end where the launch missed the buffer: drawn red, up
    // to 4 rows' worth beyond its last cell.
    const int columns = s.columns > 0 && h.per_cell == 1 ? s.columns : 64;
    size_t past = 0;
    for (const trace::Access& x : h.missed)
      if (int64_t(x.offset) >= 0)
        past = std::max<size_t>(past,
                                size_t(std::min<uint64_t>(x.offset / 4 / h.per_cell + 1 - h.cells,
                                                          uint64_t(columns) * 4)));
    const size_t drawn = h.cells + past;
    mine.assign(drawn, 0);
    std::vector<char> missed(drawn, 0);
    for (const trace::Access& x : h.missed)
      if (int64_t(x.offset) >= 0 && x.offset / 4 / h.per_cell < drawn)
        missed[size_t(x.offset / 4 / h.per_cell)] = 1;
    for (size_t k = 0; k < thread_accesses_.size(); ++k) {
      const trace::Access& x = thread_accesses_[k];
      if (x.allocation == a.id && x.offset / 4 / h.per_cell < drawn &&
          !mine[size_t(x.offset / 4 / h.per_cell)])
        mine[size_t(x.offset / 4 / h.per_cell)] = uint32_t(k + 1);
    }
    const float cell = std::clamp(ImGui::GetContentRegionAvail().x / float(columns), 2.f, 16.f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    // A launch opened with accesses past a buffer's end (and no wrong
    // values, which sit where the buffer starts): scrolled down to the
    // first red row once, so that the bug is in sight.
    if (scrolled_to_missed_ != s.launch && past > 0 && buffer == order.front() &&
        !(buffer < wrong_.size() && !wrong_[buffer].empty())) {
      scrolled_to_missed_ = s.launch;
      const size_t first_red = size_t(std::find(missed.begin(), missed.end(), 1) - missed.begin());
      const float y = origin.y + float(first_red / size_t(columns)) * cell;
      if (y > ImGui::GetWindowPos().y + ImGui::GetWindowHeight() * 0.8f)
        ImGui::SetScrollFromPosY(y - ImGui::GetWindowPos().y, 0.6f);
    }
    int hovered = -1;
    const int hit = draw_cells(("mem" + std::to_string(a.id)).c_str(), int(drawn), columns, cell,
                               [&](int i) {
                                 if (size_t(i) >= h.cells)
                                   return missed[size_t(i)] ? kMissed : IM_COL32(70, 30, 30, 255);
                                 const int64_t w = s.color_by_thread ? h.last_thread[size_t(i)]
                                                                     : h.last_block[size_t(i)];
                                 return w < 0 ? kUntouched : hue_color(uint32_t(w), 0.6f, 0.85f);
                               },
                               -1, &hovered);
    note_place("heatmap:" + (a.name.empty() ? "allocation " + std::to_string(a.id) : a.name), cell,
               columns);
    if (buffer < line_cells_.size() && line_cells_[buffer].size() == h.cells)
      for (size_t i = 0; i < h.cells; ++i)
        if (line_cells_[buffer][i]) frame_cell(dl, origin, i, columns, cell, kLine, 1.5f);
    if (buffer < wrong_.size() && wrong_[buffer].size() == h.cells)
      for (size_t i = 0; i < h.cells; ++i) {
        if (wrong_[buffer][i].comparison < 0) continue;
        // Yellow with a dark edge inside: seen on yellow and orange blocks too.
        frame_cell(dl, origin, i, columns, cell, kWrong, 1.5f);
        const ImVec2 p = cell_corner(origin, i, columns, cell);
        if (cell >= 6)
          dl->AddRect(ImVec2(p.x + 1.5f, p.y + 1.5f), ImVec2(p.x + cell - 2.5f, p.y + cell - 2.5f),
                      IM_COL32(0, 0, 0, 200));
      }
    for (size_t i = 0; i < drawn; ++i) {
      if (!mine[i]) continue;
      frame_cell(dl, origin, i, columns, cell, kSelected, 2.0f, true);
      const ImVec2 corner = cell_corner(origin, i, columns, cell);
      const float x = corner.x, y = corner.y;
      // Its number in the thread's order (as 'Selected thread' lists them),
      // where the cell has room for it.
      const std::string number = std::to_string(mine[i]);
      const ImVec2 size = ImGui::CalcTextSize(number.c_str());
      if (size.x + 2 <= cell && size.y <= cell + 2) {
        dl->AddRectFilled(ImVec2(x, y), ImVec2(x + size.x + 1, y + std::min(size.y, cell - 1)),
                          IM_COL32(0, 0, 0, 170));
        dl->AddText(ImVec2(x + 1, y - 1), kSelected, number.c_str());
        note_text(ImVec2(x + 1, y - 1), number.c_str());
      }
    }
    // Races (racecheck findings): the two accesses' cells framed red, over
    // every other frame (the bug).
    if (buffer < race_cells_.size())
      for (const auto& race : race_cells_[buffer])
        frame_cell(dl, origin, race.first, columns, cell, kMissed, 2.0f);
    // Hover: every access to the cell, in order; click: select its last thread.
    if (hovered >= 0 && size_t(hovered) < h.cells) {
      const size_t c = size_t(hovered);
      ImGui::BeginTooltip();
      ImGui::Text("%s[%llu]%s", a.name.empty() ? "element " : a.name.c_str(),
                  (unsigned long long)(c * h.per_cell),
                  h.per_cell > 1
                      ? (" and the " + std::to_string(h.per_cell - 1) + " after it").c_str()
                      : "");
      if (buffer < wrong_.size() && wrong_[buffer].size() == h.cells &&
          wrong_[buffer][c].comparison >= 0) {
        const trace::Comparison& cmp = results_->compared[size_t(wrong_[buffer][c].comparison)];
        if (const int32_t at = wrong_[buffer][c].element; at >= 0) {
          const trace::WrongElement& e = cmp.elements[size_t(at)];
          ImGui::TextColored(kWrongText, "%s[%llu] is %s at the end of the test, expected %s",
                             cmp.name.c_str(), (unsigned long long)e.index, e.got.c_str(),
                             e.want.c_str());
        } else {
          ImGui::TextColored(kWrongText,
                             "wrong at the end of the test (the values of the first %zu wrong "
                             "elements are kept)",
                             cmp.elements.size());
        }
      }
      if (buffer < race_cells_.size())
        for (const auto& [rc, f] : race_cells_[buffer])
          if (rc == c) {
            const trace::Finding& x = l.findings[size_t(f)];
            ImGui::TextColored(kMissedText, "a race: %s %s at %s against %s (finding %d)",
                               x.tool.c_str(), x.kind.c_str(), file_name(x.where).c_str(),
                               file_name(x.where_other).c_str(), f + 1);
            break;
          }
      const uint32_t n = h.first[c + 1] - h.first[c];
      if (n == 0 && h.last_block[c] >= 0)
        ImGui::Text("touched, but the launch has too many accesses to list them here");
      else if (n == 0)
        ImGui::Text("no thread of this launch touched it");
      for (uint32_t k = 0; k < n && k < 16; ++k)
        ImGui::Text("%u. %s", k + 1, who(l, access_of(l, h.touches[h.first[c] + k])).c_str());
      if (n > 16) ImGui::Text("... %u accesses in all", n);
      ImGui::EndTooltip();
      note_window_text();
      if (hit >= 0 && h.last_block[c] >= 0) {
        s.block = int(h.last_block[c]);
        s.thread = int(h.last_thread[c]);
        s.access = -1;
      }
    } else if (hovered >= 0) {
      ImGui::BeginTooltip();
      ImGui::TextColored(kMissedText,
                         "%s[%llu]: past the end of %s, which has elements [0] to [%llu]",
                         a.name.empty() ? "element " : a.name.c_str(),
                         (unsigned long long)(uint64_t(hovered) * h.per_cell),
                         a.name.empty() ? "this buffer" : a.name.c_str(),
                         (unsigned long long)((a.size + 3) / 4 - 1));
      int listed = 0;
      for (const trace::Access& x : h.missed)
        if (int64_t(x.offset) >= 0 && x.offset / 4 / h.per_cell == uint64_t(hovered)) {
          if (listed++ < 16) ImGui::Text("%s", who(l, x).c_str());
          if (hit >= 0) {  // clicked: select the (last) thread that missed here
            s.block = int(x.block);
            s.thread = int(x.thread);
            s.access = -1;
          }
        }
      ImGui::EndTooltip();
      note_window_text();
    }
    if (h.missed_count) {
      ImGui::TextColored(kMissedText, "%llu access%s outside this buffer (out of bounds):",
                         (unsigned long long)h.missed_count, h.missed_count == 1 ? "" : "es");
      for (size_t i = 0; i < h.missed.size() && i < 4; ++i)
        ImGui::TextColored(kMissedText, "  %s: %s", who(l, h.missed[i]).c_str(),
                           miss_words(h.missed[i]).c_str());
    }
  }
}

// The selected block phase by phase: what it read and wrote between two
// barriers, in global memory and in its shared memory, so that a tile's
// load, the barrier and its use can be watched one after another.
void Views::draw_steps(Selection& s) {
  refresh(s);
  const auto& l = trace_.launches[size_t(s.launch)];
  if (steps_launch_ != s.launch || steps_block_ != s.block) {
    steps_ = block_steps(l, memory_, uint32_t(s.block));
    steps_launch_ = s.launch;
    steps_block_ = s.block;
  }
  const auto b = trace::unflatten(uint32_t(s.block), l.grid);
  if (steps_.phases == 0) {
    ImGui::TextWrapped("Block (%u,%u,%u) made no recorded memory access.", b.x, b.y, b.z);
    return;
  }
  const int last = int(steps_.phases) - 1;
  if (s.playing && ImGui::GetTime() - last_step_time_ > 0.8) {
    s.phase = s.phase >= last ? 0 : s.phase + 1;
    last_step_time_ = ImGui::GetTime();
  }
  // A finding asked for: the phase of its thread's access at its line.
  const trace::Finding* finding = s.finding >= 0 && size_t(s.finding) < l.findings.size()
                                      ? &l.findings[size_t(s.finding)]
                                      : nullptr;
  if (finding && finding->block != s.block) finding = nullptr;
  if (finding && s.finding_asked) {
    // The phase where both of a race's accesses are (the race happens
    // there), else the first where the finding's thread made its access.
    auto has = [&](uint32_t ph, int64_t thread, const std::string& where) {
      for (const trace::Access& x : steps_.by_phase[ph])
        if (int64_t(x.thread) == thread && same_line(where, trace_.where(x.pc))) return true;
      return false;
    };
    int first = -1, both = -1;
    for (uint32_t ph = 0; ph < steps_.phases && both < 0; ++ph) {
      if (!has(ph, finding->thread, finding->where)) continue;
      if (first < 0) first = int(ph);
      if (finding->other_thread >= 0 && finding->other_block == s.block &&
          has(ph, finding->other_thread, finding->where_other))
        both = int(ph);
    }
    if (both >= 0 || first >= 0) {
      s.phase = both >= 0 ? both : first;
      s.playing = false;
    }
  }
  s.finding_asked = false;
  s.phase = std::clamp(s.phase, 0, last);
  ImGui::TextWrapped(
      "Block (%u,%u,%u) in barrier phases: phase 0 runs from the block's start to its first "
      "__syncthreads(), phase 1 from there to the next, and so on (%u in all). Pick a block in "
      "'Grid of blocks'; hover a cell for who touched it in this phase.",
      b.x, b.y, b.z, steps_.phases);
  // Keys: Left and Right step, Space plays (not while a value is typed in).
  auto key = [](ImGuiKey k, bool repeat = true) {
    return !ImGui::GetIO().WantTextInput && ImGui::IsKeyPressed(ImGui::GetKeyIndex(k), repeat);
  };
  if ((ImGui::Button("< previous") || key(ImGuiKey_LeftArrow)) && s.phase > 0) --s.phase;
  note_place("steps:previous");
  ImGui::SameLine();
  if (ImGui::Button(s.playing ? "pause" : "play") || key(ImGuiKey_Space, false)) {
    s.playing = !s.playing;
    last_step_time_ = ImGui::GetTime();
  }
  note_place("steps:play");
  ImGui::SameLine();
  if ((ImGui::Button("next >") || key(ImGuiKey_RightArrow)) && s.phase < last) ++s.phase;
  note_place("steps:next");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(std::max(120.f, ImGui::GetContentRegionAvail().x));
  ImGui::SliderInt("##phase", &s.phase, 0, last, "phase %d");
  note_place("steps:slider");
  // Within the phase, one warp instruction at a time: the phase as far as
  // that instruction, the instruction's own cells framed in white.
  const auto& starts = steps_.instruction_first[size_t(s.phase)];
  const int instructions = int(starts.size());
  // Another phase (its slider, its buttons, play): the whole of it first.
  if (instruction_phase_ >= 0 && instruction_phase_ != s.phase) s.instruction = -1;
  s.instruction = std::clamp(s.instruction, -1, instructions - 1);
  if (ImGui::Button("< instruction")) s.instruction = std::max(-1, s.instruction - 1);
  note_place("steps:previous-instruction");
  ImGui::SameLine();
  if (ImGui::Button("instruction >")) {
    if (s.instruction + 1 < instructions) {
      ++s.instruction;
    } else if (s.phase < last) {  // on into the next phase's first
      ++s.phase;
      s.instruction = 0;
      instruction_phase_ = s.phase;
    }
  }
  note_place("steps:next-instruction");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(std::max(120.f, ImGui::GetContentRegionAvail().x));
  ImGui::SliderInt("##instruction", &s.instruction, -1, instructions - 1,
                   s.instruction < 0 ? "the whole phase (slide for one warp instruction at a time)"
                                     : "up to warp instruction %d of the phase");
  note_place("steps:instruction-slider");
  if (size_t(s.instruction) >= steps_.instruction_first[size_t(s.phase)].size()) s.instruction = -1;
  instruction_phase_ = s.phase;
  size_t shown_end = steps_.by_phase[size_t(s.phase)].size(), own_begin = 0, own_end = 0;
  if (s.instruction >= 0) {
    const auto& first = steps_.instruction_first[size_t(s.phase)];  // the phase may have moved on
    own_begin = first[size_t(s.instruction)];
    own_end = size_t(s.instruction) + 1 < first.size() ? first[size_t(s.instruction) + 1]
                                                       : steps_.by_phase[size_t(s.phase)].size();
    shown_end = own_end;
    const trace::Access& x = steps_.by_phase[size_t(s.phase)][own_begin];
    ImGui::TextWrapped(
        "Warp instruction %d of %d in phase %d: warp %u %s %s at %s (%zu lanes), "
        "framed in white; the ones before it in this phase are coloured. (The order is the "
        "trace's, warp after warp; on a GPU warps interleave in any order up to the barrier.)",
        s.instruction, int(first.size()), s.phase, x.thread / 32,
        x.atomic  ? "adds atomically to"
        : x.write ? "writes"
                  : "reads",
        x.shared() ? "shared memory" : "global memory", trace_.where(x.pc).c_str(),
        own_end - own_begin);
  }
  // One colour meaning for this view, its legend first.
  const ImU32 kRead = IM_COL32(80, 150, 255, 255), kWritten = IM_COL32(255, 190, 60, 255),
              kBoth = IM_COL32(90, 220, 120, 255), kEarlier = IM_COL32(80, 80, 92, 255);
  legend_item(kRead, "read in this phase");
  legend_item(kWritten, "written");
  legend_item(kBoth, "read and written");
  legend_item(kEarlier, "touched in an earlier phase");
  legend_item(kMissed, "outside the buffer");
  legend_item(kSelected, "the instruction's or finding's", true);
  ImGui::NewLine();
  // The finding's two accesses framed in white (a race: one thread's access
  // and the other's it was not ordered with).
  auto framed = [&](const trace::Access& x) {
    if (!finding) return false;
    if (int64_t(x.thread) == finding->thread && same_line(finding->where, trace_.where(x.pc)))
      return true;
    return finding->other_block == s.block && int64_t(x.thread) == finding->other_thread &&
           same_line(finding->where_other, trace_.where(x.pc));
  };
  if (finding && finding->thread < 0) {  // a barrier finding: its block, its line
    ImGui::TextWrapped("%s %s at %s, in this block: %s", finding->tool.c_str(),
                       finding->kind.c_str(), file_name(finding->where).c_str(),
                       finding->message.c_str());
  } else if (finding) {
    const auto t = trace::unflatten(uint32_t(finding->thread), l.block);
    ImGui::TextWrapped(
        "Framed in white: %s %s, thread (%u,%u,%u) at %s%s%s", finding->tool.c_str(),
        finding->kind.c_str(), t.x, t.y, t.z, file_name(finding->where).c_str(),
        finding->where_other.empty() ? "" : " against ",
        finding->where_other.empty()
            ? ""
            : (file_name(finding->where_other) +
               (finding->other_thread >= 0 ? " of thread " + std::to_string(finding->other_thread)
                                           : std::string()))
                  .c_str());
  }
  // The places this block touched: its shared memory, then global buffers.
  struct Place {
    uint32_t id;
    std::string name;
    uint64_t bytes, per_cell;
  };
  std::vector<Place> places;
  if (steps_.static_shared_bytes)
    places.push_back({trace::Request::kStaticShared, "__shared__ memory of this block",
                      steps_.static_shared_bytes, 1});
  if (steps_.dynamic_shared_bytes)
    places.push_back({trace::Request::kDynamicShared, "dynamic shared memory of this block",
                      steps_.dynamic_shared_bytes, 1});
  for (const BufferMap& h : memory_.buffers)
    places.push_back({h.allocation->id,
                      h.allocation->name.empty() ? "allocation " + std::to_string(h.allocation->id)
                                                 : h.allocation->name,
                      h.allocation->size, h.per_cell});
  for (const Place& p : places) {
    const uint64_t words = std::max<uint64_t>(1, (p.bytes + 3) / 4);
    const size_t cells = size_t((words + p.per_cell - 1) / p.per_cell);
    std::vector<uint8_t> state(cells, 0);  // bit 0 earlier, 1 read, 2 written
    std::vector<std::vector<const trace::Access*>> now;
    std::vector<const trace::Access*> missed;  // this phase's, outside the buffer
    std::vector<char> frame(cells, 0);         // the finding's accesses in this phase
    for (int ph = 0; ph <= s.phase; ++ph)
      for (size_t k = 0; k < steps_.by_phase[size_t(ph)].size(); ++k) {
        if (ph == s.phase && k >= shown_end) break;  // not yet made
        const trace::Access& x = steps_.by_phase[size_t(ph)][k];
        if (x.allocation != p.id) continue;
        if (!x.shared() && trace_.missed(x)) {
          if (ph == s.phase) missed.push_back(&x);
          continue;
        }
        const uint64_t c = x.offset / 4 / p.per_cell;
        if (c >= cells) continue;
        if (ph < s.phase) {
          state[c] |= 1;
          continue;
        }
        state[c] |= x.write ? 4 : 2;
        if (framed(x) || (s.instruction >= 0 && k >= own_begin && k < own_end)) frame[c] = 1;
        if (now.empty()) now.resize(cells);
        if (now[c].size() < 8) now[c].push_back(&x);
      }
    if (missed.empty() && std::all_of(state.begin(), state.end(), [](uint8_t v) { return v == 0; }))
      continue;
    ImGui::Separator();
    ImGui::Text(
        "%s: %llu bytes%s", p.name.c_str(), (unsigned long long)p.bytes,
        p.per_cell > 1 ? (", each cell " + std::to_string(p.per_cell) + " elements").c_str() : "");
    const int columns = s.columns > 0 && p.per_cell == 1 && p.id != trace::Request::kStaticShared &&
                                p.id != trace::Request::kDynamicShared
                            ? s.columns
                            : 64;
    const float cell = std::clamp(ImGui::GetContentRegionAvail().x / float(columns), 2.f, 16.f);
    int hovered = -1;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    draw_cells(("step" + std::to_string(p.id)).c_str(), int(cells), columns, cell,
               [&](int i) {
                 const uint8_t v = state[size_t(i)];
                 if ((v & 6) == 6) return kBoth;
                 if (v & 4) return kWritten;
                 if (v & 2) return kRead;
                 return v & 1 ? kEarlier : kUntouched;
               },
               -1, &hovered);
    note_place("steps:" + p.name, cell, columns);
    for (size_t i = 0; i < cells; ++i)
      if (frame[i])
        frame_cell(ImGui::GetWindowDrawList(), origin, i, columns, cell, kSelected, 2.0f, true);
    if (hovered >= 0 && !now.empty() && !now[size_t(hovered)].empty()) {
      ImGui::BeginTooltip();
      ImGui::Text("[%llu] in phase %d:", (unsigned long long)(uint64_t(hovered) * p.per_cell),
                  s.phase);
      for (const trace::Access* x : now[size_t(hovered)]) ImGui::Text("%s", who(l, *x).c_str());
      ImGui::EndTooltip();
      note_window_text();
    }
    if (!missed.empty()) {
      ImGui::TextColored(kMissedText, "%zu access%s outside it in this phase:", missed.size(),
                         missed.size() == 1 ? "" : "es");
      for (size_t i = 0; i < missed.size() && i < 4; ++i)
        ImGui::TextColored(kMissedText, "  %s: %s", who(l, *missed[i]).c_str(),
                           miss_words(*missed[i]).c_str());
    }
  }
}

// One warp-level memory instruction (a request): its lanes' addresses
// against 32-byte sectors (global memory: coalescing) or the 32 banks of
// shared memory (conflicts), with the figures Nsight Compute counts.
void Views::draw_warp_instruction(Selection& s) {
  refresh(s);
  if (s.thread < 0 || s.access < 0 || size_t(s.access) >= thread_requests_.size()) {
    ImGui::TextWrapped(
        "Select a thread in 'Threads of the block', then click one of its accesses in 'Selected "
        "thread': its warp's instruction is drawn here, each lane's address against the 32-byte "
        "sectors it moves (global memory) or the 32 banks (shared memory).");
    return;
  }
  const auto& l = trace_.launches[size_t(s.launch)];
  const trace::Request& r = l.requests[thread_requests_[size_t(s.access)]];
  trace::LaneAddress lanes[32];
  const int n = l.lanes_of(r, lanes);
  const auto b = trace::unflatten(r.block, l.grid);
  ImGui::TextWrapped(
      "%s: a %s of %u bytes a lane by %d of the 32 lanes of warp %u (threads %u to "
      "%u) of block (%u,%u,%u)%s",
      trace_.where(r.pc).c_str(),
      r.atomic()  ? "atomic"
      : r.write() ? "write"
                  : "read",
      r.size, n, r.warp, r.warp * 32u, r.warp * 32u + 31, b.x, b.y, b.z,
      r.shared() ? ", in shared memory" : ", in global memory");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float width = ImGui::GetContentRegionAvail().x;
  const float lane_w = std::max(10.f, width / 32.f);
  const float box = std::min(lane_w - 2, 22.f);
  const ImU32 kLane = IM_COL32(80, 150, 255, 255), kIdle = IM_COL32(60, 60, 68, 255),
              kTarget = IM_COL32(90, 220, 120, 255), kConflict = IM_COL32(255, 190, 60, 255);
  auto label = [&](ImVec2 at, const char* text) {
    dl->AddText(at, IM_COL32(230, 230, 230, 255), text);
    note_text(at, text);
  };
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float lane_y = origin.y + ImGui::GetTextLineHeight() + 4, target_y = lane_y + 120;
  label(origin, "lanes");
  uint32_t lane_of_slot[32];
  for (int i = 0; i < 32; ++i) lane_of_slot[i] = 32;
  for (int i = 0; i < n; ++i) lane_of_slot[lanes[i].lane] = uint32_t(i);
  for (uint32_t lane = 0; lane < 32; ++lane) {
    const float x = origin.x + float(lane) * lane_w;
    dl->AddRectFilled(ImVec2(x, lane_y), ImVec2(x + box, lane_y + box),
                      lane_of_slot[lane] < 32 ? kLane : kIdle);
    if (lane % 4 == 0) label(ImVec2(x, lane_y + box + 2), std::to_string(lane).c_str());
  }
  std::string said;
  if (r.shared()) {
    // Banks: a lane's 4-byte word w is in bank w % 32; lanes in one bank
    // reading different words take a wavefront each.
    const trace::SharedCounts c = trace::request_shared_counts(l, r);
    std::vector<std::vector<uint64_t>> words(32);
    for (int i = 0; i < n; ++i) {
      const uint64_t w = lanes[i].offset / 4;
      auto& in = words[w % 32];
      if (std::find(in.begin(), in.end(), w) == in.end()) in.push_back(w);
    }
    label(
        ImVec2(origin.x, target_y + box + ImGui::GetTextLineHeight() + 4),
        "banks (4-byte words; a bank holding more than one word the lanes ask for is a conflict)");
    for (int bank = 0; bank < 32; ++bank) {
      const float x = origin.x + float(bank) * lane_w;
      const size_t k = words[size_t(bank)].size();
      dl->AddRectFilled(ImVec2(x, target_y), ImVec2(x + box, target_y + box),
                        k == 0   ? kIdle
                        : k == 1 ? kTarget
                                 : kConflict);
      if (k > 1) label(ImVec2(x + 2, target_y + 2), std::to_string(k).c_str());
      if (bank % 4 == 0) label(ImVec2(x, target_y + box + 2), std::to_string(bank).c_str());
    }
    for (int i = 0; i < n; ++i) {
      const float x0 = origin.x + float(lanes[i].lane) * lane_w + box / 2;
      const float x1 = origin.x + float(lanes[i].offset / 4 % 32) * lane_w + box / 2;
      const size_t k = words[lanes[i].offset / 4 % 32].size();
      dl->AddLine(ImVec2(x0, lane_y + box), ImVec2(x1, target_y), k > 1 ? kConflict : kTarget);
    }
    char text[256];
    std::snprintf(text, sizeof(text), "%llu wavefront%s (the least it could take: %llu): %s",
                  (unsigned long long)c.wavefronts, c.wavefronts == 1 ? "" : "s",
                  (unsigned long long)(c.wavefronts - c.conflicts),
                  c.conflicts ? "the lanes of one bank wait for each other (a bank conflict)"
                              : "no bank conflict");
    said = text;
  } else {
    // Sectors: aligned 32 bytes of the address space; each distinct one
    // the lanes touch is moved whole.
    const trace::GlobalCounts c = trace::request_global_counts(trace_, l, r);
    std::vector<uint64_t> sectors;
    auto address = [&](const trace::LaneAddress& a) {
      const trace::Allocation* al = trace_.allocation(a.allocation);
      return (al ? al->base : 0) + a.offset;
    };
    for (int i = 0; i < n; ++i) {
      const uint64_t first = address(lanes[i]) / 32,
                     last = (address(lanes[i]) + std::max<uint8_t>(r.size, 1) - 1) / 32;
      for (uint64_t sct = first; sct <= last; ++sct) sectors.push_back(sct);
    }
    std::sort(sectors.begin(), sectors.end());
    sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
    const size_t shown = std::min<size_t>(sectors.size(), 32);
    label(ImVec2(origin.x, target_y + box + ImGui::GetTextLineHeight() + 4),
          "32-byte sectors moved (in address order; a 128-byte line is 4 sectors)");
    for (size_t k = 0; k < shown; ++k) {
      const float x = origin.x + float(k) * lane_w;
      const bool line_start = k == 0 || sectors[k] / 4 != sectors[k - 1] / 4;
      dl->AddRectFilled(ImVec2(x, target_y), ImVec2(x + box, target_y + box), kTarget);
      if (line_start)
        dl->AddLine(ImVec2(x - 1, target_y - 4), ImVec2(x - 1, target_y + box + 4),
                    IM_COL32(230, 230, 230, 255), 2.0f);
    }
    for (int i = 0; i < n; ++i) {
      const auto at = std::lower_bound(sectors.begin(), sectors.end(), address(lanes[i]) / 32);
      const size_t k = size_t(at - sectors.begin());
      if (k >= shown) continue;
      const float x0 = origin.x + float(lanes[i].lane) * lane_w + box / 2;
      const float x1 = origin.x + float(k) * lane_w + box / 2;
      dl->AddLine(ImVec2(x0, lane_y + box), ImVec2(x1, target_y), kLane);
    }
    char text[320];
    std::snprintf(text, sizeof(text),
                  "%llu sector%s of 32 bytes moved for %llu bytes asked: %.0f %% of what moved "
                  "was used%s%s",
                  (unsigned long long)c.sectors, c.sectors == 1 ? "" : "s",
                  (unsigned long long)c.bytes, c.efficiency(),
                  c.efficiency() < 50 ? " (scattered lanes: not coalesced)" : "",
                  sectors.size() > shown ? "; the first 32 sectors drawn" : "");
    said = text;
  }
  ImGui::Dummy(ImVec2(width, target_y + box + 2 * ImGui::GetTextLineHeight() + 12 - origin.y));
  ImGui::TextWrapped("%s", said.c_str());
  ImGui::TextWrapped(
      "Nsight Compute counts the same per line: sectors per request for global memory "
      "(4 when a warp reads 32 consecutive floats), wavefronts per request for shared memory "
      "(1 without bank conflicts). The 'Metrics per line' tab sums them over the launch.");
}

void Views::refresh_line(const Selection& s) {
  if (line_launch_ == s.launch && line_columns_ == s.columns && line_of_ == s.line &&
      line_cells_.size() == memory_.buffers.size())
    return;
  line_launch_ = s.launch;
  line_columns_ = s.columns;
  line_of_ = s.line;
  line_cells_.assign(memory_.buffers.size(), {});
  if (s.line.empty()) return;
  const auto& l = trace_.launches[size_t(s.launch)];
  // The code addresses of that line, then the cells whose accesses have one.
  std::vector<uint64_t> pcs;
  for (const auto& [pc, site] : trace_.sites)
    if (trace_.where(pc) == s.line) pcs.push_back(pc);
  for (size_t b = 0; b < memory_.buffers.size(); ++b) {
    const BufferMap& h = memory_.buffers[b];
    line_cells_[b].assign(h.cells, 0);
    for (size_t c = 0; c < h.cells; ++c)
      for (uint32_t k = h.first[c]; k < h.first[c + 1] && !line_cells_[b][c]; ++k) {
        const uint64_t pc = l.requests[size_t(h.touches[k] >> 5)].pc;
        line_cells_[b][c] = std::find(pcs.begin(), pcs.end(), pc) != pcs.end();
      }
  }
}

// The kernel's source, as the trace names it, with each line's figures and
// findings; click a line to mark the cells it touched in the heatmaps.
void Views::draw_source(Selection& s) {
  if (metrics_launch_ != s.launch) {
    metrics_ = trace::launch_metrics(trace_, trace_.launches[size_t(s.launch)]);
    metrics_launch_ = s.launch;
  }
  const auto& l = trace_.launches[size_t(s.launch)];
  // The files of this launch's lines (the simulator's own headers left out).
  std::vector<std::string> files;
  for (const trace::LineMetrics& m : metrics_.lines) {
    if (m.simulator_header) continue;
    for (const auto& [pc, site] : trace_.sites)
      if (trace_.where(pc) == m.where &&
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
    } else if (results_ && results_->sources.count(path)) {
      in << results_->sources.at(path);
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
      for (const trace::LineMetrics& m : metrics_.lines) {
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
        source_scrolled_to_ = s.line;  // picked here: in sight already
      }
      note_place("source:" + where);
      // A line picked elsewhere (--line, an access clicked): scrolled to, once.
      if (s.line == where && source_scrolled_to_ != where) {
        ImGui::SetScrollHereY(0.3f);
        source_scrolled_to_ = where;
      }
      if (!found.empty()) {
        ImGui::SameLine();
        ImGui::TextUnformatted(found.c_str());
        ImGui::PopStyleColor();
      }
    }
  }
}

void Views::draw_test_list(Selection& s) {
  if (!results_ || results_->tests.empty()) return;
  const auto& r = *results_;
  const size_t passed = size_t(std::count_if(r.tests.begin(), r.tests.end(),
                                             [](const auto& t) { return t.status == "passed"; }));
  char header[256];
  std::snprintf(header, sizeof(header), "Graded tests of %s: %zu of %zu passed###tests",
                r.file.c_str(), passed, r.tests.size());
  ImGui::Separator();
  if (!ImGui::CollapsingHeader(header, ImGuiTreeNodeFlags_DefaultOpen)) return;
  // Six rows at most, scrolled: the launches and findings stay in sight.
  const float row = ImGui::GetTextLineHeightWithSpacing();
  ImGui::BeginChild("test list", ImVec2(0, row * float(std::min<size_t>(r.tests.size(), 6)) + 4));
  for (size_t i = 0; i < r.tests.size(); ++i) {
    const auto& t = r.tests[i];
    const bool ok = t.status == "passed";
    char label[400];
    std::snprintf(label, sizeof(label), "%s %4.1f/%-4.1f %s%s##test%zu", ok ? "pass" : "FAIL",
                  t.score, t.max_score, t.name.c_str(),
                  t.name == r.shown         ? "   <- this trace"
                  : t.name == r.traced_test ? "   (its run)"
                                            : "",
                  i);
    ImGui::PushStyleColor(ImGuiCol_Text, ok ? kPassedText : kMissedText);
    if (ImGui::Selectable(label, s.test == int(i))) {
      s.test = int(i);
      test_tab_asked_ = true;
    }
    note_place("test:" + t.name);
    ImGui::PopStyleColor();
    if (t.name == r.shown && ImGui::IsWindowAppearing()) ImGui::SetScrollHereY();
  }
  ImGui::EndChild();
}

void Views::draw_graded_test(Selection& s) {
  if (!results_ || results_->tests.empty()) {
    ImGui::TextWrapped(
        "No graded tests go with this trace. `cudalab check LESSON --viz` runs the lesson's tests "
        "on your file, records the first visible test that fails and opens it here, with every "
        "test's result beside it.");
    return;
  }
  const auto& r = *results_;
  refresh(s);
  if (compared_launch_.size() != r.compared.size()) {
    compared_launch_.clear();
    for (const auto& c : r.compared)
      compared_launch_.push_back(c.allocation ? last_launch_touching(trace_, c.allocation) : -1);
  }
  size_t shown = 0;
  while (shown < r.tests.size() && r.tests[shown].name != r.shown) ++shown;
  if (s.test >= 0 && size_t(s.test) < r.tests.size()) shown = size_t(s.test);
  if (shown >= r.tests.size()) shown = 0;
  const auto& t = r.tests[shown];
  const bool ok = t.status == "passed";
  ImGui::TextColored(ok ? kPassedText : kMissedText, "%s  %.1f/%.1f  %s: %s", ok ? "pass" : "FAIL",
                     t.score, t.max_score, t.name.c_str(), t.description.c_str());
  if (!ok && !t.verdict.empty()) ImGui::Text("verdict: %s", t.verdict.c_str());
  if (t.name == r.shown && t.name != r.traced_test)
    ImGui::TextWrapped("This method rubric measured test %s's run, which this trace is of.",
                       r.traced_test.c_str());
  if (t.name == r.traced_test || t.name == r.shown) {
    ImGui::TextWrapped(
        "This trace is of this test. Its comparisons of the kernel's results with the CPU's, "
        "element by element:");
    if (r.compared.empty())
      ImGui::TextWrapped(
          "(none: the test compares no arrays, or the kernel stopped before they were compared)");
    const auto& l = trace_.launches[size_t(s.launch)];
    for (size_t k = 0; k < r.compared.size(); ++k) {
      const trace::Comparison& c = r.compared[k];
      ImGui::PushID(int(k));
      if (c.wrong == 0) {
        ImGui::TextColored(kPassedText, "%s: all %llu elements right", c.name.c_str(),
                           (unsigned long long)c.count);
        ImGui::PopID();
        continue;
      }
      ImGui::TextColored(kWrongText, "%s: %llu of %llu elements wrong", c.name.c_str(),
                         (unsigned long long)c.wrong, (unsigned long long)c.count);
      const int launch = compared_launch_[k];
      if (launch < 0) {
        ImGui::SameLine();
        ImGui::TextDisabled("(no recorded launch touched it)");
      } else if (launch != s.launch) {
        ImGui::SameLine();
        if (ImGui::SmallButton("show its launch")) {
          s.launch = launch;
          s.block = 0;
          s.thread = -1;
          s.access = -1;
        }
      } else {
        ImGui::SameLine();
        if (ImGui::SmallButton("show on the heatmap")) heatmap_tab_asked_ = true;
      }
      // Expected against actual, with the thread that wrote each last.
      const BufferMap* h = nullptr;
      if (launch == s.launch)
        for (const BufferMap& b : memory_.buffers)
          if (b.allocation->id == c.allocation) h = &b;
      if (ImGui::BeginTable(
              "wrong", 4, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY,
              ImVec2(0, std::min(260.f, 24.f * float(c.elements.size() + 2))))) {
        ImGui::TableSetupScrollFreeze(0, 1);
        const float number = ImGui::CalcTextSize("-0.000000000e+00").x;
        ImGui::TableSetupColumn("element", ImGuiTableColumnFlags_WidthFixed, number);
        ImGui::TableSetupColumn("is", ImGuiTableColumnFlags_WidthFixed, number);
        ImGui::TableSetupColumn("expected", ImGuiTableColumnFlags_WidthFixed, number);
        ImGui::TableSetupColumn("last written by (click to select the thread)",
                                ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableHeadersRow();
        ImGuiListClipper clipper;
        clipper.Begin(int(c.elements.size()));
        while (clipper.Step())
          for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
            const trace::WrongElement& e = c.elements[size_t(row)];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("%s[%llu]", c.name.c_str(), (unsigned long long)e.index);
            ImGui::TableNextColumn();
            ImGui::TextColored(kWrongText, "%s", e.got.c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%s", e.want.c_str());
            ImGui::TableNextColumn();
            // The element's own last write (a cell may hold several elements).
            const uint64_t word = (c.offset + e.index * c.element_bytes) / 4;
            const uint64_t cell = h ? word / h->per_cell : 0;
            std::optional<trace::Access> writer;
            if (h && cell < h->cells)
              for (uint32_t at = h->first[cell]; at < h->first[cell + 1]; ++at)
                if (const trace::Access x = access_of(l, h->touches[at]);
                    x.write && x.offset / 4 == word)
                  writer = x;
            if (!writer) {
              ImGui::TextDisabled(h ? "no thread of this launch wrote it" : "-");
            } else if (ImGui::Selectable((who(l, *writer) + "##w" + std::to_string(row)).c_str())) {
              s.block = int(writer->block);
              s.thread = int(writer->thread);
              s.access = -1;
            }
            if (writer) note_place("writer:" + c.name + "[" + std::to_string(e.index) + "]");
          }
        ImGui::EndTable();
      }
      if (c.elements.size() < c.wrong)
        ImGui::Text("(the first %zu wrong elements are listed; all are framed on the heatmap)",
                    c.elements.size());
      ImGui::PopID();
    }
  } else if (!ok) {
    ImGui::TextWrapped("This trace is of test %s; this one's values are not in it.",
                       r.traced_test.c_str());
  }
  ImGui::Separator();
  if (t.output.empty())
    ImGui::TextDisabled(t.visibility == "hidden" ? "(a hidden test: only its verdict is shown)"
                                                 : "(the test said nothing)");
  else
    ImGui::TextWrapped("%s", t.output.c_str());
}

void Views::draw_thread_accesses(Selection& s) {
  note_window_text();
  ImGui::Begin("Selected thread", nullptr, ImGuiWindowFlags_NoCollapse);
  if (trace_.launches.empty() || s.thread < 0) {
    ImGui::TextWrapped(
        "Click a thread in 'Threads of the block' to see its global-memory "
        "accesses here and framed in the heatmap.");
    ImGui::End();
    return;
  }
  const auto& l = trace_.launches[size_t(s.launch)];
  const auto b = trace::unflatten(uint32_t(s.block), l.grid);
  const auto t = trace::unflatten(uint32_t(s.thread), l.block);
  ImGui::Text("thread (%u,%u,%u) of block (%u,%u,%u)", t.x, t.y, t.z, b.x, b.y, b.z);
  refresh(s);
  if (l.faulted && l.fault.known && l.fault.block == uint32_t(s.block) &&
      l.fault.thread == uint32_t(s.thread))
    ImGui::TextColored(kMissedText, "this thread faulted: %s", l.fault.what.c_str());
  if (!thread_accesses_.empty())
    ImGui::TextWrapped(
        "Click an access for its warp instruction: the 32 lanes against "
        "sectors or banks.");
  int shown = 0;
  for (size_t i = 0; i < thread_accesses_.size(); ++i) {
    const trace::Access& x = thread_accesses_[i];
    if (++shown > 200) {
      ImGui::Text("...");
      break;
    }
    const char* what = x.atomic ? "atomic" : x.write ? "write" : "read";
    char label[320];
    if (x.shared())
      std::snprintf(label, sizeof(label), "%zu. %-6s shared [%llu]  %s  (%uB at +%llu)##a%zu",
                    i + 1, what, (unsigned long long)(x.offset / 4), trace_.where(x.pc).c_str(),
                    x.size, (unsigned long long)x.offset, i);
    else if (trace_.missed(x))
      std::snprintf(label, sizeof(label), "%zu. %-6s %s  %s  (out of bounds)##a%zu", i + 1, what,
                    miss_words(x).c_str(), trace_.where(x.pc).c_str(), i);
    else
      std::snprintf(label, sizeof(label), "%zu. %-6s alloc %u [%llu]  %s  (%uB at +%llu)##a%zu",
                    i + 1, what, x.allocation, (unsigned long long)(x.offset / 4),
                    trace_.where(x.pc).c_str(), x.size, (unsigned long long)x.offset, i);
    const bool missed = !x.shared() && trace_.missed(x);
    if (missed) ImGui::PushStyleColor(ImGuiCol_Text, kMissedText);
    if (ImGui::Selectable(label, s.access == int(i))) {
      s.access = int(i);
      s.line = trace_.where(x.pc);
      warp_tab_asked_ = true;
    }
    note_place("access:" + std::to_string(i));
    if (missed) ImGui::PopStyleColor();
  }
  if (shown == 0) ImGui::Text("this thread touched no global memory");
  ImGui::End();
}

}  // namespace cudalab::viz
