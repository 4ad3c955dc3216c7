#include "views/shared.h"

#include <cmath>
#include <cstdio>

#include "places.h"

namespace cudalab::viz {

unsigned hue_color(uint32_t index, float s, float v) {
  // Golden-ratio hue steps keep neighbouring indices apart; the reds are
  // left out (red means out of bounds and faults).
  const float h = 0.1f + 0.8f * std::fmod(float(index) * 0.618034f, 1.0f);
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(h, s, v, r, g, b);
  return IM_COL32(int(r * 255), int(g * 255), int(b * 255), 255);
}

void Shared::refresh(const Selection& s) {
  if (trace.launches.empty()) return;
  const auto& l = trace.launches[size_t(s.launch)];
  if (memory_launch_ != s.launch || memory_columns_ != s.columns) {
    // One element a cell when a row width is given (up to 64K cells).
    memory_ = launch_memory(trace, l, s.columns > 0 ? 65536 : 2048);
    memory_launch_ = s.launch;
    memory_columns_ = s.columns;
    accesses_launch_ = -1;
  }
  if (accesses_launch_ != s.launch || accesses_block_ != s.block || accesses_thread_ != s.thread) {
    thread_accesses_ = s.thread < 0 ? std::vector<trace::Access>{}
                                    : viz::thread_accesses(l, memory_, uint32_t(s.block),
                                                           uint32_t(s.thread), &thread_requests_);
    accesses_launch_ = s.launch;
    accesses_block_ = s.block;
    accesses_thread_ = s.thread;
  }
}

const trace::KernelMetrics& Shared::metrics(int launch) {
  if (metrics_launch_ != launch) {
    metrics_ = trace::launch_metrics(trace, trace.launches[size_t(launch)]);
    metrics_launch_ = launch;
  }
  return metrics_;
}

std::string Shared::who(const trace::Launch& l, const trace::Access& x) const {
  const auto b = trace::unflatten(x.block, l.grid);
  const auto t = trace::unflatten(x.thread, l.block);
  char line[256];
  std::snprintf(line, sizeof(line), "thread (%u,%u,%u) of block (%u,%u,%u) %s at %s", t.x, t.y, t.z,
                b.x, b.y, b.z,
                x.atomic  ? "added atomically"
                : x.write ? "wrote"
                          : "read",
                trace.where(x.pc).c_str());
  return line;
}

std::string Shared::miss_words(const trace::Access& x) const {
  const trace::Allocation* a = trace.allocation(x.allocation);
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

void legend_item(ImU32 c, const char* what, bool frame) {
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

void frame_cell(ImDrawList* dl, ImVec2 origin, size_t i, int columns, float cell, ImU32 color,
                float width, bool around) {
  const ImVec2 p = cell_corner(origin, i, columns, cell);
  if (around)
    dl->AddRect(ImVec2(p.x - 1, p.y - 1), ImVec2(p.x + cell, p.y + cell), color, 0, 0, width);
  else
    dl->AddRect(p, ImVec2(p.x + cell - 1, p.y + cell - 1), color, 0, 0, width);
}

bool same_line(const std::string& where, const std::string& short_where) {
  return !where.empty() && file_name(where) == short_where;
}

std::string dims(const trace::Dim3& d) {
  char b[64];
  std::snprintf(b, sizeof(b), "(%u,%u,%u)", d.x, d.y, d.z);
  return b;
}

}  // namespace cudalab::viz
