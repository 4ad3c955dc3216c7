#include "views.h"

#include <imgui.h>

#include <cmath>

#include "places.h"

namespace cudalab::viz {

void Views::draw(Selection& s, int width, int height) {
  const float w = float(width);
  // The headline across the top, the windows under it.
  const float top = draw_headline(s, w);
  const float h = float(height) - top;
  const float left = std::floor(w * 0.30f);
  ImGui::SetNextWindowPos(ImVec2(0, top));
  ImGui::SetNextWindowSize(ImVec2(left, h * 0.45f));
  if (draw_launches(shared_, s)) test_tab_asked_ = true;
  ImGui::SetNextWindowPos(ImVec2(0, top + h * 0.45f));
  ImGui::SetNextWindowSize(ImVec2(left, h * 0.55f));
  if (draw_thread_accesses(shared_, s)) warp_tab_asked_ = true;
  ImGui::SetNextWindowPos(ImVec2(left, top));
  ImGui::SetNextWindowSize(ImVec2((w - left) * 0.5f, h * 0.40f));
  draw_grid(shared_, s);
  ImGui::SetNextWindowPos(ImVec2(left + (w - left) * 0.5f, top));
  ImGui::SetNextWindowSize(ImVec2((w - left) * 0.5f, h * 0.40f));
  draw_block(shared_, s);
  ImGui::SetNextWindowPos(ImVec2(left, top + h * 0.40f));
  ImGui::SetNextWindowSize(ImVec2(w - left, h * 0.60f));
  draw_memory(s);
}

float Views::draw_headline(Selection& s, float width) {
  if (shared_.trace.launches.empty()) return 0;
  if (headline_launch_ != s.launch) {
    shared_.refresh(s);
    headline_ = headline(shared_.trace, shared_.results, size_t(s.launch), shared_.memory());
    headline_launch_ = s.launch;
  }
  if (headline_.text.empty()) return 0;
  const ImVec2 pad = ImGui::GetStyle().WindowPadding;
  const float text_height =
      ImGui::CalcTextSize(headline_.text.c_str(), nullptr, false, width - 2 * pad.x).y;
  const float height = std::ceil(text_height + 2 * pad.y);
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(width, height));
  note_window_text();
  ImGui::Begin("What is wrong", nullptr,
               ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoCollapse);
  const ImVec4 colour = headline_.kind == HeadlineKind::kWrongValues ? kWrongText
                        : headline_.kind == HeadlineKind::kTest      ? ImVec4(1, 1, 1, 1)
                                                                     : kMissedText;
  ImGui::PushStyleColor(ImGuiCol_Text, colour);
  ImGui::TextWrapped("%s", headline_.text.c_str());
  ImGui::PopStyleColor();
  note_place("headline");
  ImGui::End();
  return height;
}

void Views::draw_memory(Selection& s) {
  note_window_text();
  ImGui::Begin("Memory", nullptr, ImGuiWindowFlags_NoCollapse);
  if (shared_.trace.launches.empty()) {
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
                            heatmap_asked
                                ? ImGuiTabItemFlags_SetSelected
                                : chosen(!metrics_first && !steps_first && !warp_first &&
                                         !s.show_source && !s.show_test && !s.show_roofline))) {
      s.show_metrics = s.show_steps = s.show_warp = false;
      draw_heatmaps(shared_, heatmaps_, s);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem(
            "Step through the block", nullptr,
            s.finding_asked ? ImGuiTabItemFlags_SetSelected : chosen(steps_first))) {
      s.show_metrics = s.show_warp = false;
      s.show_steps = true;
      draw_steps(shared_, steps_, s);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Warp instruction", nullptr,
                            warp_tab_asked_ ? ImGuiTabItemFlags_SetSelected : chosen(warp_first))) {
      s.show_metrics = s.show_steps = false;
      s.show_warp = true;
      draw_warp_instruction(shared_, s);
      ImGui::EndTabItem();
    }
    warp_tab_asked_ = false;
    if (ImGui::BeginTabItem("Source", nullptr, chosen(s.show_source))) {
      draw_source(shared_, source_, s);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Metrics per line", nullptr, chosen(metrics_first))) {
      s.show_metrics = true;
      s.show_steps = s.show_warp = false;
      draw_metrics(shared_, s);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Time on a GPU", nullptr, chosen(s.show_roofline))) {
      s.show_metrics = s.show_steps = s.show_warp = false;
      draw_roofline(shared_, roofline_, s);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Graded test", nullptr,
                            test_asked ? ImGuiTabItemFlags_SetSelected : chosen(s.show_test))) {
      if (draw_graded_test(shared_, graded_test_, s)) heatmap_tab_asked_ = true;
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  ImGui::End();
}

}  // namespace cudalab::viz
