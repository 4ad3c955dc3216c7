#include "places.h"

#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace cudalab::viz {
namespace {

bool recording = false;  // inside a snapshot's frame
std::string places;      // its places so far
std::string text;        // the text of its windows ended so far

// Dear ImGui hands what it logged to the clipboard at each window's end:
// during a snapshot's frame, to this instead.
void (*set_clipboard)(void*, const char*) = nullptr;
void keep_text(void*, const char* logged) { text += logged; }

void add_place(std::string name, ImVec2 min, ImVec2 max, const char* extra = "") {
  std::replace(name.begin(), name.end(), ' ', '_');
  char line[128];
  std::snprintf(line, sizeof(line), " %ld %ld %ld %ld%s\n", std::lround(min.x), std::lround(min.y),
                std::lround(max.x - min.x), std::lround(max.y - min.y), extra);
  places += name + line;
}

// "Memory" of "Memory##2"; tooltips are all "tooltip".
std::string window_name(const ImGuiWindow& w) {
  if (w.Flags & ImGuiWindowFlags_Tooltip) return "tooltip";
  std::string name = w.Name;
  if (const auto hidden = name.find("##"); hidden != std::string::npos) name.resize(hidden);
  return name;
}

}  // namespace

void note_place(const std::string& name, float cell, int columns) {
  if (!recording) return;
  char extra[64] = "";
  if (cell > 0) std::snprintf(extra, sizeof(extra), " cell %.2f columns %d", cell, columns);
  add_place(name, ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), extra);
}

void note_text(ImVec2 at, const char* text) {
  if (ImGui::GetCurrentContext()->LogEnabled) ImGui::LogRenderedText(&at, text);
}

void note_window_text() {
  if (recording) ImGui::LogToClipboard();
}

void begin_frame_record() {
  recording = true;
  places.clear();
  text.clear();
  set_clipboard = ImGui::GetIO().SetClipboardTextFn;
  ImGui::GetIO().SetClipboardTextFn = keep_text;
  ImGui::LogToClipboard();
}

FrameRecord end_frame_record() {
  ImGuiContext& g = *ImGui::GetCurrentContext();
  add_place("window", ImVec2(0, 0), g.IO.DisplaySize);
  // Every window drawn this frame (not Dear ImGui's own fallback window,
  // nor the scrolled regions inside windows), then the tabs of every tab bar: no view has to note
  // those.
  for (const ImGuiWindow* w : g.Windows)
    if (w->Active && !w->Hidden && !w->IsFallbackWindow &&
        !(w->Flags & ImGuiWindowFlags_ChildWindow))
      add_place("window:" + window_name(*w), w->Pos,
                ImVec2(w->Pos.x + w->Size.x, w->Pos.y + w->Size.y));
  for (int i = 0; i < g.TabBars.GetMapSize(); ++i) {
    const ImGuiTabBar* bar = g.TabBars.TryGetMapData(i);
    if (!bar || bar->CurrFrameVisible != g.FrameCount) continue;
    for (const ImGuiTabItem& tab : bar->Tabs) {
      if (tab.LastFrameVisible != g.FrameCount || tab.NameOffset < 0) continue;
      // As ImGui::TabItemEx places it.
      const ImVec2 at(bar->BarRect.Min.x + std::floor(tab.Offset - bar->ScrollingAnim),
                      bar->BarRect.Min.y);
      add_place(std::string("tab:") + bar->GetTabName(&tab), at,
                ImVec2(at.x + tab.Width, bar->BarRect.Max.y));
    }
  }
  ImGui::LogFinish();
  g.IO.SetClipboardTextFn = set_clipboard;
  recording = false;
  FrameRecord r{std::move(text), std::move(places)};
  text.clear();
  places.clear();
  return r;
}

}  // namespace cudalab::viz
