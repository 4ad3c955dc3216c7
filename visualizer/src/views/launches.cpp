// The "Launches" window: the program, its launches (click one), the selected
// launch's fault and its check findings, and the graded tests (tests.cpp).
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "places.h"
#include "views/each_view.h"

namespace cudalab::viz {

bool draw_launches(const Shared& shared, Selection& s) {
  note_window_text();
  ImGui::Begin("Launches", nullptr, ImGuiWindowFlags_NoCollapse);
  ImGui::TextWrapped("Program: %s", shared.trace.program.c_str());
  ImGui::Text("%zu launches, %zu allocations, %llu accesses recorded", shared.trace.launches.size(),
              shared.trace.allocations.size(), (unsigned long long)shared.trace.accesses_total);
  for (const auto& n : shared.trace.notes)
    ImGui::TextColored(ImVec4(1, 0.7f, 0.3f, 1), "%s", n.c_str());
  const bool test_asked = draw_test_list(shared, s);
  ImGui::Separator();
  for (int i = 0; i < int(shared.trace.launches.size()); ++i) {
    const auto& l = shared.trace.launches[size_t(i)];
    char label[512];
    std::snprintf(label, sizeof(label), "#%u %s<<<%s, %s>>>%s##launch%d", l.id, l.kernel.c_str(),
                  dims(l.grid).c_str(), dims(l.block).c_str(),
                  !l.faulted            ? ""
                  : l.fault.never_ended ? "  STOPPED"
                                        : "  FAULTED",
                  i);
    if (ImGui::Selectable(label, s.launch == i)) {
      s.launch = i;
      s.block = 0;
      s.thread = -1;
      s.access = -1;
    }
    note_place("launch:" + std::to_string(i + 1));
  }
  if (!shared.trace.launches.empty()) {
    const auto& l = shared.trace.launches[size_t(s.launch)];
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
      ImGui::TextWrapped("%s: thread (%u,%u,%u) of block (%u,%u,%u) at %s",
                         l.fault.never_ended ? "STOPPED" : "FAULTED", ft.x, ft.y, ft.z, fb.x, fb.y,
                         fb.z, where.c_str());
      ImGui::TextWrapped("%s", l.fault.what.c_str());
      ImGui::PopStyleColor();
      if (ImGui::SmallButton(l.fault.never_ended ? "select that thread"
                                                 : "select the faulting thread")) {
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
  return test_asked;
}

}  // namespace cudalab::viz
