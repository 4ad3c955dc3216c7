#include "views.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>

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
    const float x = origin.x + float(i % columns) * cell, y = origin.y + float(i / columns) * cell;
    dl->AddRectFilled(ImVec2(x, y), ImVec2(x + cell - 1, y + cell - 1), color_of(i));
    if (i == highlighted)
      dl->AddRect(ImVec2(x - 1, y - 1), ImVec2(x + cell, y + cell), kSelected, 0, 0, 2.0f);
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
        if (f.thread >= 0 && f.block >= 0 &&
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
  if (ImGui::BeginTabBar("memory views")) {
    if (ImGui::BeginTabItem("Who touched each element", nullptr,
                            chosen(!metrics_first && !steps_first && !warp_first))) {
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
      "%s that last touched it (the colours of 'Grid of blocks'%s); dark: untouched; white "
      "frames: the selected thread's accesses; cyan frames: the line picked in 'Source'; red: "
      "accesses outside the buffer. Hover a cell for every access to it, in order; click to "
      "select the thread.",
      s.color_by_thread ? "thread" : "block",
      s.color_by_thread ? ", by thread number in the block" : "");
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
  if (memory_.buffers.empty() && !memory_.no_buffer_count)
    ImGui::Text("this launch touched no global memory that was recorded");
  std::vector<char> mine;
  refresh_line(s);
  for (size_t buffer = 0; buffer < memory_.buffers.size(); ++buffer) {
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
    for (const trace::Access& x : thread_accesses_)
      if (x.allocation == a.id && x.offset / 4 / h.per_cell < drawn)
        mine[size_t(x.offset / 4 / h.per_cell)] = 1;
    const float cell = std::clamp(ImGui::GetContentRegionAvail().x / float(columns), 2.f, 16.f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
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
      for (size_t i = 0; i < h.cells; ++i) {
        if (!line_cells_[buffer][i]) continue;
        const float x = origin.x + float(i % size_t(columns)) * cell,
                    y = origin.y + float(i / size_t(columns)) * cell;
        dl->AddRect(ImVec2(x, y), ImVec2(x + cell - 1, y + cell - 1), kLine, 0, 0, 1.5f);
      }
    for (size_t i = 0; i < drawn; ++i) {
      if (!mine[i]) continue;
      const float x = origin.x + float(i % size_t(columns)) * cell,
                  y = origin.y + float(i / size_t(columns)) * cell;
      dl->AddRect(ImVec2(x - 1, y - 1), ImVec2(x + cell, y + cell), kSelected, 0, 0, 2.0f);
    }
    // Hover: every access to the cell, in order; click: select its last thread.
    if (hovered >= 0 && size_t(hovered) < h.cells) {
      const size_t c = size_t(hovered);
      ImGui::BeginTooltip();
      ImGui::Text("%s[%llu]%s", a.name.empty() ? "element " : a.name.c_str(),
                  (unsigned long long)(c * h.per_cell),
                  h.per_cell > 1
                      ? (" and the " + std::to_string(h.per_cell - 1) + " after it").c_str()
                      : "");
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
    for (uint32_t ph = 0; ph < steps_.phases && s.finding_asked; ++ph)
      for (const trace::Access& x : steps_.by_phase[ph])
        if (int64_t(x.thread) == finding->thread && same_line(finding->where, trace_.where(x.pc))) {
          s.phase = int(ph);
          s.playing = false;
          s.finding_asked = false;
          break;
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
  // One colour meaning for this view, its legend first.
  const ImU32 kRead = IM_COL32(80, 150, 255, 255), kWritten = IM_COL32(255, 190, 60, 255),
              kBoth = IM_COL32(90, 220, 120, 255), kEarlier = IM_COL32(80, 80, 92, 255);
  auto legend = [](ImU32 c, const char* what) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetTextLineHeight();
    ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + h, p.y + h), c);
    ImGui::Dummy(ImVec2(h, h));
    ImGui::SameLine();
    ImGui::TextUnformatted(what);
    ImGui::SameLine(0, 18);
  };
  legend(kRead, "read in this phase");
  legend(kWritten, "written");
  legend(kBoth, "read and written");
  legend(kEarlier, "touched in an earlier phase");
  legend(kMissed, "outside the buffer");
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
  if (finding) {
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
      for (const trace::Access& x : steps_.by_phase[size_t(ph)]) {
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
        if (framed(x)) frame[c] = 1;
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
      if (frame[i]) {
        const float x = origin.x + float(i % size_t(columns)) * cell,
                    y = origin.y + float(i / size_t(columns)) * cell;
        ImGui::GetWindowDrawList()->AddRect(ImVec2(x - 1, y - 1), ImVec2(x + cell, y + cell),
                                            kSelected, 0, 0, 2.0f);
      }
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
    std::ifstream in(path);
    ImGui::Separator();
    if (!in) {
      ImGui::TextWrapped("%s: not found on this machine (the trace was recorded elsewhere)",
                         path.c_str());
      continue;
    }
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
      if (ImGui::Selectable(row, s.line == where)) s.line = s.line == where ? "" : where;
      note_place("source:" + where);
      if (!found.empty()) {
        ImGui::SameLine();
        ImGui::TextUnformatted(found.c_str());
        ImGui::PopStyleColor();
      }
    }
  }
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
      std::snprintf(label, sizeof(label), "%-6s shared [%llu]  %s  (%uB at +%llu)##a%zu", what,
                    (unsigned long long)(x.offset / 4), trace_.where(x.pc).c_str(), x.size,
                    (unsigned long long)x.offset, i);
    else if (trace_.missed(x))
      std::snprintf(label, sizeof(label), "%-6s %s  %s  (out of bounds)##a%zu", what,
                    miss_words(x).c_str(), trace_.where(x.pc).c_str(), i);
    else
      std::snprintf(label, sizeof(label), "%-6s alloc %u [%llu]  %s  (%uB at +%llu)##a%zu", what,
                    x.allocation, (unsigned long long)(x.offset / 4), trace_.where(x.pc).c_str(),
                    x.size, (unsigned long long)x.offset, i);
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
