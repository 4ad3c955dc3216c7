#include "views.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace cudalab::viz {
namespace {

constexpr ImU32 kUntouched = IM_COL32(45, 45, 52, 255);
constexpr ImU32 kSelected = IM_COL32(255, 255, 255, 255);

// Cells of `count` squares laid out in rows of `columns`, each `cell` pixels.
// Returns the index under the mouse when clicked, -1 otherwise.
template <class ColorOf>
int draw_cells(const char* id, int count, int columns, float cell, ColorOf color_of,
               int highlighted) {
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
  if (ImGui::IsItemClicked()) {
    const ImVec2 m = ImGui::GetMousePos();
    const int cx = int((m.x - origin.x) / cell), cy = int((m.y - origin.y) / cell);
    const int index = cy * columns + cx;
    if (cx >= 0 && cx < columns && index >= 0 && index < count) return index;
  }
  return -1;
}

std::string dims(const trace::Dim3& d) {
  char b[64];
  std::snprintf(b, sizeof(b), "(%u,%u,%u)", d.x, d.y, d.z);
  return b;
}

}  // namespace

unsigned hue_color(uint32_t index, float s, float v) {
  // Golden-ratio hue steps keep neighbouring indices apart.
  const float h = std::fmod(float(index) * 0.618034f, 1.0f);
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
    }
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
    if (!l.findings.empty()) {
      ImGui::Separator();
      ImGui::TextColored(ImVec4(1, 0.45f, 0.35f, 1),
                         "%zu check finding%s (CUDALAB_CHECK):", l.findings.size(),
                         l.findings.size() == 1 ? "" : "s");
      for (const auto& f : l.findings) {
        std::string where = f.where;
        if (auto slash = where.rfind('/'); slash != std::string::npos)
          where = where.substr(slash + 1);
        ImGui::Bullet();
        ImGui::TextWrapped("%s %s at %s (x%llu)", f.tool.c_str(), f.kind.c_str(), where.c_str(),
                           (unsigned long long)f.count);
        ImGui::Indent();
        ImGui::TextWrapped("%s", f.message.c_str());
        ImGui::Unindent();
      }
    }
  }
  ImGui::Checkbox("heatmap: colour by thread instead of block", &s.color_by_thread);
  ImGui::End();
}

void Views::draw_grid(Selection& s) {
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
      "grid", count, columns, cell, [&](int i) { return hue_color(uint32_t(i), 0.45f, 0.75f); },
      s.block);
  if (hit >= 0) {
    s.block = hit;
    s.thread = -1;
  }
  ImGui::End();
}

void Views::draw_block(Selection& s) {
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
  if (hit >= 0) s.thread = hit;
  ImGui::End();
}

void Views::refresh(const Selection& s) {
  if (cached_ && cached_for_.launch == s.launch && cached_for_.block == s.block &&
      cached_for_.thread == s.thread && cached_for_.color_by_thread == s.color_by_thread)
    return;
  cached_ = true;
  cached_for_ = s;
  heatmaps_.clear();
  thread_accesses_.clear();
  if (trace_.launches.empty()) return;
  const auto& l = trace_.launches[size_t(s.launch)];
  std::map<uint32_t, size_t> index;  // allocation id -> heatmap
  l.for_each_access([&](const trace::Access& x) {
    if (int(x.block) == s.block && int(x.thread) == s.thread) thread_accesses_.push_back(x);
    const trace::Allocation* a = x.shared() ? nullptr : trace_.allocation(x.allocation);
    if (!a) return;
    auto [it, fresh] = index.emplace(x.allocation, heatmaps_.size());
    if (fresh) {
      Heatmap h;
      h.allocation = a;
      const uint64_t words = std::max<uint64_t>(1, (a->size + 3) / 4);
      // One element a cell when a row width is given (up to 64K cells).
      const uint64_t cells = std::min<uint64_t>(words, s.columns > 0 ? 65536 : 2048);
      h.per_cell = (words + cells - 1) / cells;
      h.who.assign(cells, -1);
      h.mine.assign(cells, 0);
      heatmaps_.push_back(std::move(h));
    }
    Heatmap& h = heatmaps_[it->second];
    const uint64_t c = std::min<uint64_t>(h.who.size() - 1, (x.offset / 4) / h.per_cell);
    h.who[c] = s.color_by_thread ? int64_t(x.thread) : int64_t(x.block);
    if (int(x.block) == s.block && int(x.thread) == s.thread) h.mine[c] = 1;
  });
  std::sort(heatmaps_.begin(), heatmaps_.end(),
            [](const Heatmap& x, const Heatmap& y) { return x.allocation->id < y.allocation->id; });
}

void Views::draw_memory(Selection& s) {
  ImGui::Begin("Memory", nullptr, ImGuiWindowFlags_NoCollapse);
  if (trace_.launches.empty()) {
    ImGui::End();
    return;
  }
  // The tab asked for on the command line is chosen once; then the user's.
  const bool choose = !tab_chosen_, metrics_first = s.show_metrics;
  tab_chosen_ = true;
  if (ImGui::BeginTabBar("memory views")) {
    if (ImGui::BeginTabItem("Who touched each element", nullptr,
                            choose && !metrics_first ? ImGuiTabItemFlags_SetSelected : 0)) {
      s.show_metrics = false;
      draw_heatmaps(s);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Metrics per line", nullptr,
                            choose && metrics_first ? ImGuiTabItemFlags_SetSelected : 0)) {
      s.show_metrics = true;
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
  ImGui::TextWrapped(
      "Each cell is one 4-byte element (or a run of them for large buffers), "
      "coloured by the %s that last touched it; grey: untouched. White frames: "
      "the selected thread's accesses.",
      s.color_by_thread ? "thread" : "block");
  if (heatmaps_.empty()) ImGui::Text("this launch touched no global memory that was recorded");
  for (const Heatmap& h : heatmaps_) {
    const trace::Allocation& a = *h.allocation;
    ImGui::Separator();
    std::string site = a.site;
    if (auto slash = site.rfind('/'); slash != std::string::npos) site = site.substr(slash + 1);
    ImGui::Text("allocation %u%s%s: %llu bytes, allocated at %s", a.id, a.name.empty() ? "" : " ",
                a.name.c_str(), (unsigned long long)a.size, site.c_str());
    if (h.per_cell > 1) ImGui::Text("(each cell: %llu elements)", (unsigned long long)h.per_cell);
    const int columns = s.columns > 0 && h.per_cell == 1 ? s.columns : 64;
    const float cell = std::clamp(ImGui::GetContentRegionAvail().x / float(columns), 2.f, 16.f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    draw_cells(("mem" + std::to_string(a.id)).c_str(), int(h.who.size()), columns, cell,
               [&](int i) {
                 return h.who[size_t(i)] < 0 ? kUntouched
                                             : hue_color(uint32_t(h.who[size_t(i)]), 0.6f, 0.85f);
               },
               -1);
    for (size_t i = 0; i < h.mine.size(); ++i) {
      if (!h.mine[i]) continue;
      const float x = origin.x + float(i % columns) * cell,
                  y = origin.y + float(i / columns) * cell;
      dl->AddRect(ImVec2(x - 1, y - 1), ImVec2(x + cell, y + cell), kSelected, 0, 0, 2.0f);
    }
  }
}

void Views::draw_thread_accesses(const Selection& s) {
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
  int shown = 0;
  for (const trace::Access& x : thread_accesses_) {
    if (++shown > 200) {
      ImGui::Text("...");
      break;
    }
    if (x.shared()) {
      ImGui::Text("%-6s shared [%llu]  %s  (%uB at +%llu)",
                  x.atomic  ? "atomic"
                  : x.write ? "write"
                            : "read",
                  (unsigned long long)(x.offset / 4), trace_.where(x.pc).c_str(), x.size,
                  (unsigned long long)x.offset);
      continue;
    }
    ImGui::Text("%-6s alloc %u [%llu]  %s  (%uB at +%llu)",
                x.atomic  ? "atomic"
                : x.write ? "write"
                          : "read",
                x.allocation, (unsigned long long)(x.offset / 4), trace_.where(x.pc).c_str(),
                x.size, (unsigned long long)x.offset);
  }
  if (shown == 0) ImGui::Text("this thread touched no global memory");
  ImGui::End();
}

}  // namespace cudalab::viz
