#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "places.h"
#include "views/each_view.h"

namespace cudalab::viz {

// The selected block phase by phase: what it read and wrote between two
// barriers, in global memory and in its shared memory, so that a tile's
// load, the barrier and its use can be watched one after another.
void draw_steps(Shared& shared, StepsState& state, Selection& s) {
  shared.refresh(s);
  const auto& l = shared.trace.launches[size_t(s.launch)];
  if (state.launch != s.launch || state.block != s.block) {
    state.steps = block_steps(l, shared.memory(), uint32_t(s.block));
    state.launch = s.launch;
    state.block = s.block;
  }
  const auto b = trace::unflatten(uint32_t(s.block), l.grid);
  if (state.steps.phases == 0) {
    ImGui::TextWrapped("Block (%u,%u,%u) made no recorded memory access.", b.x, b.y, b.z);
    return;
  }
  const int last = int(state.steps.phases) - 1;
  if (s.playing && ImGui::GetTime() - state.last_step_time > 0.8) {
    s.phase = s.phase >= last ? 0 : s.phase + 1;
    state.last_step_time = ImGui::GetTime();
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
      for (const trace::Access& x : state.steps.by_phase[ph])
        if (int64_t(x.thread) == thread && same_line(where, shared.trace.where(x.pc))) return true;
      return false;
    };
    int first = -1, both = -1;
    for (uint32_t ph = 0; ph < state.steps.phases && both < 0; ++ph) {
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
      b.x, b.y, b.z, state.steps.phases);
  // Keys: Left and Right step, Space plays (not while a value is typed in).
  auto key = [](ImGuiKey k, bool repeat = true) {
    return !ImGui::GetIO().WantTextInput && ImGui::IsKeyPressed(ImGui::GetKeyIndex(k), repeat);
  };
  if ((ImGui::Button("< previous") || key(ImGuiKey_LeftArrow)) && s.phase > 0) --s.phase;
  note_place("steps:previous");
  ImGui::SameLine();
  if (ImGui::Button(s.playing ? "pause" : "play") || key(ImGuiKey_Space, false)) {
    s.playing = !s.playing;
    state.last_step_time = ImGui::GetTime();
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
  const auto& starts = state.steps.instruction_first[size_t(s.phase)];
  const int instructions = int(starts.size());
  // Another phase (its slider, its buttons, play): the whole of it first.
  if (state.instruction_phase >= 0 && state.instruction_phase != s.phase) s.instruction = -1;
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
      state.instruction_phase = s.phase;
    }
  }
  note_place("steps:next-instruction");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(std::max(120.f, ImGui::GetContentRegionAvail().x));
  ImGui::SliderInt("##instruction", &s.instruction, -1, instructions - 1,
                   s.instruction < 0 ? "the whole phase (slide for one warp instruction at a time)"
                                     : "up to warp instruction %d of the phase");
  note_place("steps:instruction-slider");
  if (size_t(s.instruction) >= state.steps.instruction_first[size_t(s.phase)].size())
    s.instruction = -1;
  state.instruction_phase = s.phase;
  size_t shown_end = state.steps.by_phase[size_t(s.phase)].size(), own_begin = 0, own_end = 0;
  if (s.instruction >= 0) {
    const auto& first =
        state.steps.instruction_first[size_t(s.phase)];  // the phase may have moved on
    own_begin = first[size_t(s.instruction)];
    own_end = size_t(s.instruction) + 1 < first.size()
                  ? first[size_t(s.instruction) + 1]
                  : state.steps.by_phase[size_t(s.phase)].size();
    shown_end = own_end;
    const trace::Access& x = state.steps.by_phase[size_t(s.phase)][own_begin];
    ImGui::TextWrapped(
        "Warp instruction %d of %d in phase %d: warp %u %s %s at %s (%zu lanes), "
        "framed in white; the ones before it in this phase are coloured. (The order is the "
        "trace's, warp after warp; on a GPU warps interleave in any order up to the barrier.)",
        s.instruction, int(first.size()), s.phase, x.thread / 32,
        x.atomic  ? "adds atomically to"
        : x.write ? "writes"
                  : "reads",
        x.shared() ? "shared memory" : "global memory", shared.trace.where(x.pc).c_str(),
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
    if (int64_t(x.thread) == finding->thread && same_line(finding->where, shared.trace.where(x.pc)))
      return true;
    return finding->other_block == s.block && int64_t(x.thread) == finding->other_thread &&
           same_line(finding->where_other, shared.trace.where(x.pc));
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
  if (state.steps.static_shared_bytes)
    places.push_back({trace::Request::kStaticShared, "__shared__ memory of this block",
                      state.steps.static_shared_bytes, 1});
  if (state.steps.dynamic_shared_bytes)
    places.push_back({trace::Request::kDynamicShared, "dynamic shared memory of this block",
                      state.steps.dynamic_shared_bytes, 1});
  for (const BufferMap& h : shared.memory().buffers)
    places.push_back({h.allocation->id,
                      h.allocation->name.empty() ? "allocation " + std::to_string(h.allocation->id)
                                                 : h.allocation->name,
                      h.allocation->size, h.per_cell});
  for (const Place& p : places) {
    const uint64_t words = std::max<uint64_t>(1, (p.bytes + 3) / 4);
    const size_t cells = size_t((words + p.per_cell - 1) / p.per_cell);
    std::vector<uint8_t> seen(cells, 0);  // bit 0 earlier, 1 read, 2 written
    std::vector<std::vector<const trace::Access*>> now;
    std::vector<const trace::Access*> missed;  // this phase's, outside the buffer
    std::vector<char> frame(cells, 0);         // the finding's accesses in this phase
    for (int ph = 0; ph <= s.phase; ++ph)
      for (size_t k = 0; k < state.steps.by_phase[size_t(ph)].size(); ++k) {
        if (ph == s.phase && k >= shown_end) break;  // not yet made
        const trace::Access& x = state.steps.by_phase[size_t(ph)][k];
        if (x.allocation != p.id) continue;
        if (!x.shared() && shared.trace.missed(x)) {
          if (ph == s.phase) missed.push_back(&x);
          continue;
        }
        const uint64_t c = x.offset / 4 / p.per_cell;
        if (c >= cells) continue;
        if (ph < s.phase) {
          seen[c] |= 1;
          continue;
        }
        seen[c] |= x.write ? 4 : 2;
        if (framed(x) || (s.instruction >= 0 && k >= own_begin && k < own_end)) frame[c] = 1;
        if (now.empty()) now.resize(cells);
        if (now[c].size() < 8) now[c].push_back(&x);
      }
    if (missed.empty() && std::all_of(seen.begin(), seen.end(), [](uint8_t v) { return v == 0; }))
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
                 const uint8_t v = seen[size_t(i)];
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
      for (const trace::Access* x : now[size_t(hovered)])
        ImGui::Text("%s", shared.who(l, *x).c_str());
      ImGui::EndTooltip();
      note_window_text();
    }
    if (!missed.empty()) {
      ImGui::TextColored(kMissedText, "%zu access%s outside it in this phase:", missed.size(),
                         missed.size() == 1 ? "" : "es");
      for (size_t i = 0; i < missed.size() && i < 4; ++i)
        ImGui::TextColored(kMissedText, "  %s: %s", shared.who(l, *missed[i]).c_str(),
                           shared.miss_words(*missed[i]).c_str());
    }
  }
}

}  // namespace cudalab::viz
