// The graded tests that go with the trace: listed in the launches window,
// and one of them in the "Graded test" tab.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "places.h"
#include "views/each_view.h"

namespace cudalab::viz {

bool draw_test_list(const Shared& shared, Selection& s) {
  if (!shared.results || shared.results->tests.empty()) return false;
  const auto& r = *shared.results;
  const size_t passed = size_t(std::count_if(r.tests.begin(), r.tests.end(),
                                             [](const auto& t) { return t.status == "passed"; }));
  char header[256];
  std::snprintf(header, sizeof(header), "Graded tests of %s: %zu of %zu passed###tests",
                r.file.c_str(), passed, r.tests.size());
  ImGui::Separator();
  if (!ImGui::CollapsingHeader(header, ImGuiTreeNodeFlags_DefaultOpen)) return false;
  // Six rows at most, scrolled: the launches and findings stay in sight.
  const float row = ImGui::GetTextLineHeightWithSpacing();
  ImGui::BeginChild("test list", ImVec2(0, row * float(std::min<size_t>(r.tests.size(), 6)) + 4));
  bool asked = false;
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
      asked = true;
    }
    note_place("test:" + t.name);
    ImGui::PopStyleColor();
    if (t.name == r.shown && ImGui::IsWindowAppearing()) ImGui::SetScrollHereY();
  }
  ImGui::EndChild();
  return asked;
}

bool draw_graded_test(Shared& shared, GradedTestState& state, Selection& s) {
  if (!shared.results || shared.results->tests.empty()) {
    ImGui::TextWrapped(
        "No graded tests go with this trace. `cudalab check LESSON --viz` runs the lesson's tests "
        "on your file, records the first visible test that fails and opens it here, with every "
        "test's result beside it.");
    return false;
  }
  const auto& r = *shared.results;
  shared.refresh(s);
  bool asked = false;
  if (state.compared_launch.size() != r.compared.size()) {
    state.compared_launch.clear();
    for (const auto& c : r.compared)
      state.compared_launch.push_back(
          c.allocation ? last_launch_touching(shared.trace, c.allocation) : -1);
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
    const auto& l = shared.trace.launches[size_t(s.launch)];
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
      const int launch = state.compared_launch[k];
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
        if (ImGui::SmallButton("show on the heatmap")) asked = true;
      }
      // Expected against actual, with the thread that wrote each last.
      const BufferMap* h = nullptr;
      if (launch == s.launch)
        for (const BufferMap& b : shared.memory().buffers)
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
            } else if (ImGui::Selectable(
                           (shared.who(l, *writer) + "##w" + std::to_string(row)).c_str())) {
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
  return asked;
}

}  // namespace cudalab::viz
