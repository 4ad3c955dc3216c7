// The "Time on a GPU" tab: the selected launch predicted on a GPU, its bound,
// each limit's time and the launch on the GPU's roofline.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "places.h"
#include "views/each_view.h"

namespace cudalab::viz {
namespace {

constexpr ImU32 kAxes = IM_COL32(150, 150, 150, 255), kDramRoof = IM_COL32(90, 170, 255, 255),
                kL2Roof = IM_COL32(120, 220, 140, 255), kPoint = IM_COL32(255, 140, 40, 255);

// The launch on the GPU's roofline: FLOP/s against FLOPs per byte of DRAM
// traffic, both axes logarithmic; the roofs are DRAM's and L2's bandwidth up
// to the arithmetic peak.
void draw_chart(const predict::Work& w, const predict::Prediction& p, const predict::Gpu& gpu) {
  const double flops = w.flops_single + w.flops_double,
               bytes = w.dram_read_bytes + w.dram_written_bytes;
  const bool fp64 = w.flops_double > w.flops_single;
  const double peak = gpu.figure(fp64 ? "fp64_fma" : "fp32_fma") * 1e12,
               dram = gpu.figure("dram_copy") * 1e9, l2 = gpu.figure("l2_read") * 1e9;
  if (flops <= 0 || bytes <= 0 || peak <= 0 || dram <= 0) {
    ImGui::TextWrapped(
        "No point on the roofline: the launch %s. Its time is set by the limit named above.",
        flops <= 0 ? "does no floating-point arithmetic" : "moves no byte to or from DRAM");
    return;
  }
  const double intensity = flops / bytes, achieved = flops / p.kernel_seconds;
  // Axes: 2^-6 to 2^10 FLOP a byte; from a thousandth of the peak (or the
  // point, when lower) to twice the peak.
  const double x0 = std::log10(1.0 / 64), x1 = std::log10(1024.0);
  const double y1 = std::log10(peak * 2),
               y0 = std::min(std::log10(peak / 1000), std::log10(achieved) - 0.5);
  const ImVec2 size(std::max(320.0f, ImGui::GetContentRegionAvail().x - 20), 300);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const float left = at.x + 70, bottom = at.y + size.y - 30, right = at.x + size.x, top = at.y + 10;
  auto px = [&](double x) {
    return left + float((std::log10(x) - x0) / (x1 - x0)) * (right - left);
  };
  auto py = [&](double y) {
    return bottom - float((std::log10(y) - y0) / (y1 - y0)) * (bottom - top);
  };
  ImDrawList* d = ImGui::GetWindowDrawList();
  d->AddLine(ImVec2(left, top), ImVec2(left, bottom), kAxes);
  d->AddLine(ImVec2(left, bottom), ImVec2(right, bottom), kAxes);
  for (double x : {1.0 / 16, 1.0 / 4, 1.0, 4.0, 16.0, 64.0, 256.0, 1024.0}) {
    char label[16];
    std::snprintf(label, sizeof(label), x < 1 ? "1/%.0f" : "%.0f", x < 1 ? 1 / x : x);
    d->AddText(ImVec2(px(x) - 10, bottom + 4), kAxes, label);
  }
  for (double y = std::pow(10, std::ceil(y0)); y <= peak * 2; y *= 10) {
    char label[16];
    std::snprintf(label, sizeof(label), "%.0e", y);
    d->AddText(ImVec2(at.x, py(y) - 7), kAxes, label);
  }
  // A roof: bandwidth times intensity, up to the peak.
  auto roof = [&](double bandwidth, ImU32 colour, const char* name) {
    const double ridge = peak / bandwidth, from = 1.0 / 64, to = 1024.0;
    const double lo = std::max(from, std::pow(10, y0) / bandwidth);
    if (ridge > lo)
      d->AddLine(ImVec2(px(lo), py(bandwidth * lo)),
                 ImVec2(px(std::min(ridge, to)), py(std::min(peak, bandwidth * to))), colour, 2);
    d->AddText(ImVec2(px(lo) + 4, py(bandwidth * lo) - 16), colour, name);
  };
  roof(dram, kDramRoof, "DRAM");
  if (l2 > dram) roof(l2, kL2Roof, "L2");
  d->AddLine(ImVec2(px(std::max(1.0 / 64, peak / std::max(l2, dram))), py(peak)),
             ImVec2(right, py(peak)), kAxes, 2);
  d->AddText(ImVec2(right - 150, py(peak) - 16), kAxes, fp64 ? "FP64 peak" : "FP32 peak");
  const ImVec2 point(px(std::clamp(intensity, 1.0 / 64, 1024.0)), py(achieved));
  d->AddCircleFilled(point, 7, kPoint);
  d->AddText(ImVec2(point.x + 10, point.y - 7), kPoint, "this launch");
  d->AddText(ImVec2(left + 10, top), kAxes, "FLOP/s");
  d->AddText(ImVec2(right - 260, bottom - 18), kAxes, "FLOPs per byte of DRAM traffic");
  ImGui::Dummy(size);
  ImGui::Text("%.3g FLOPs a byte of DRAM traffic, %.3g TFLOP/s predicted (%.1f %% of the peak)",
              intensity, achieved / 1e12, 100 * achieved / peak);
}

}  // namespace

void draw_roofline(const Shared& shared, RooflineState& state, const Selection& s) {
  if (state.gpu_key.empty()) {
    state.gpu_key = predict::chosen_gpu();
    state.gpu = predict::load_gpu(state.gpu_key, &state.no_gpu);
  }
  ImGui::TextWrapped(
      "The launch's time on a GPU, predicted from what the simulator counted in this trace "
      "(bytes at each level of memory, wavefronts, operations, barriers) against the GPU's "
      "limits measured once (predict/README.md has the model; CUDALAB_DEVICE names the GPU). "
      "This trace's sizes are the run's: a small test's launch is mostly the launch's own "
      "microseconds.");
  if (!state.gpu) {
    ImGui::PushStyleColor(ImGuiCol_Text, kMissedText);
    ImGui::TextWrapped("No prediction: %s", state.no_gpu.c_str());
    ImGui::PopStyleColor();
    return;
  }
  if (state.launch != s.launch) {
    state.launch = s.launch;
    state.prediction =
        predict::predict_launch(shared.trace, size_t(s.launch), *state.gpu, &state.work);
  }
  const trace::Launch& l = shared.trace.launches[size_t(s.launch)];
  const predict::Prediction& p = state.prediction;
  ImGui::Separator();
  if (!p.covered) {
    ImGui::PushStyleColor(ImGuiCol_Text, kMissedText);
    ImGui::TextWrapped("%s on an %s: no prediction, %s.", l.kernel.c_str(), state.gpu->name.c_str(),
                       p.not_covered.c_str());
    ImGui::PopStyleColor();
    return;
  }
  ImGui::Text("%s on an %s: %s (%s with the launch, as CUDA events measure it)", l.kernel.c_str(),
              state.gpu->name.c_str(), predict::time_text(p.kernel_seconds).c_str(),
              predict::time_text(p.event_seconds).c_str());
  ImGui::TextColored(ImVec4(1, 0.55f, 0.16f, 1), "bound by %s", p.bound.c_str());
  if (!state.gpu->derived.empty())
    ImGui::TextWrapped("The GPU's figures: %s.", state.gpu->derived.c_str());
  draw_chart(state.work, p, *state.gpu);
  constexpr ImGuiTableFlags kFlags =
      ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("limits", 3, kFlags)) return;
  for (const char* h : {"limit", "time at it alone", "the work, at the GPU's rate"})
    ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  for (const predict::Term& t : p.terms) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(t.name.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(predict::time_text(t.seconds).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(t.figures.c_str());
  }
  ImGui::EndTable();
}

}  // namespace cudalab::viz
