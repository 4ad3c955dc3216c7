// The "Selected thread" window: the thread's accesses in its order; click
// one for its warp instruction.
#include <imgui.h>

#include <cstdio>
#include <string>

#include "places.h"
#include "views/each_view.h"

namespace cudalab::viz {

bool draw_thread_accesses(Shared& shared, Selection& s) {
  note_window_text();
  ImGui::Begin("Selected thread", nullptr, ImGuiWindowFlags_NoCollapse);
  if (shared.trace.launches.empty() || s.thread < 0) {
    ImGui::TextWrapped(
        "Click a thread in 'Threads of the block' to see its global-memory "
        "accesses here and framed in the heatmap.");
    ImGui::End();
    return false;
  }
  const auto& l = shared.trace.launches[size_t(s.launch)];
  const auto b = trace::unflatten(uint32_t(s.block), l.grid);
  const auto t = trace::unflatten(uint32_t(s.thread), l.block);
  ImGui::Text("thread (%u,%u,%u) of block (%u,%u,%u)", t.x, t.y, t.z, b.x, b.y, b.z);
  shared.refresh(s);
  if (l.faulted && l.fault.known && l.fault.block == uint32_t(s.block) &&
      l.fault.thread == uint32_t(s.thread))
    ImGui::TextColored(kMissedText, "this thread %s: %s",
                       l.fault.never_ended ? "was here when the launch was stopped" : "faulted",
                       l.fault.what.c_str());
  if (!shared.thread_accesses().empty())
    ImGui::TextWrapped(
        "Click an access for its warp instruction: the 32 lanes against "
        "sectors or banks.");
  bool asked = false;
  int shown = 0;
  for (size_t i = 0; i < shared.thread_accesses().size(); ++i) {
    const trace::Access& x = shared.thread_accesses()[i];
    if (++shown > 200) {
      ImGui::Text("...");
      break;
    }
    const char* what = x.atomic ? "atomic" : x.write ? "write" : "read";
    char label[320];
    if (x.shared())
      std::snprintf(label, sizeof(label), "%zu. %-6s shared [%llu]  %s  (%uB at +%llu)##a%zu",
                    i + 1, what, (unsigned long long)(x.offset / 4),
                    shared.trace.where(x.pc).c_str(), x.size, (unsigned long long)x.offset, i);
    else if (shared.trace.missed(x))
      std::snprintf(label, sizeof(label), "%zu. %-6s %s  %s  (out of bounds)##a%zu", i + 1, what,
                    shared.miss_words(x).c_str(), shared.trace.where(x.pc).c_str(), i);
    else
      std::snprintf(label, sizeof(label), "%zu. %-6s alloc %u [%llu]  %s  (%uB at +%llu)##a%zu",
                    i + 1, what, x.allocation, (unsigned long long)(x.offset / 4),
                    shared.trace.where(x.pc).c_str(), x.size, (unsigned long long)x.offset, i);
    const bool missed = !x.shared() && shared.trace.missed(x);
    if (missed) ImGui::PushStyleColor(ImGuiCol_Text, kMissedText);
    if (ImGui::Selectable(label, s.access == int(i))) {
      s.access = int(i);
      s.line = shared.trace.where(x.pc);
      asked = true;
    }
    note_place("access:" + std::to_string(i));
    if (missed) ImGui::PopStyleColor();
  }
  if (shown == 0) ImGui::Text("this thread touched no global memory");
  ImGui::End();
  return asked;
}

}  // namespace cudalab::viz
