#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "places.h"
#include "views/each_view.h"

namespace cudalab::viz {
namespace {

// One colour meaning for this view: what the block did to a cell.
constexpr ImU32 kRead = IM_COL32(80, 150, 255, 255), kWritten = IM_COL32(255, 190, 60, 255),
                kBoth = IM_COL32(90, 220, 120, 255), kEarlier = IM_COL32(80, 80, 92, 255);

// While playing: on to the next phase every 0.8 seconds, round to the first
// after the last.
void play(StepsState& state, Selection& s, int last) {
  if (s.playing && ImGui::GetTime() - state.last_step_time > 0.8) {
    s.phase = s.phase >= last ? 0 : s.phase + 1;
    state.last_step_time = ImGui::GetTime();
  }
}

// The finding selected, when it is of this block; else null.
const trace::Finding* finding_of_block(const trace::Launch& l, const Selection& s) {
  const trace::Finding* finding = s.finding >= 0 && size_t(s.finding) < l.findings.size()
                                      ? &l.findings[size_t(s.finding)]
                                      : nullptr;
  if (finding && finding->block != s.block) finding = nullptr;
  return finding;
}

// Whether `thread` made an access at the line `where` in phase `ph`.
bool made_at(const Shared& shared, const StepsState& state, uint32_t ph, int64_t thread,
             const std::string& where) {
  for (const trace::Access& x : state.steps.by_phase[ph])
    if (int64_t(x.thread) == thread && same_line(where, shared.trace.where(x.pc))) return true;
  return false;
}

// A finding asked for: the phase where both of a race's accesses are (the
// race happens there), else the first where the finding's thread made its
// access; the playing stops there.
void go_to_finding(const Shared& shared, const StepsState& state, Selection& s,
                   const trace::Finding& finding) {
  int first = -1, both = -1;
  for (uint32_t ph = 0; ph < state.steps.phases && both < 0; ++ph) {
    if (!made_at(shared, state, ph, finding.thread, finding.where)) continue;
    if (first < 0) first = int(ph);
    if (finding.other_thread >= 0 && finding.other_block == s.block &&
        made_at(shared, state, ph, finding.other_thread, finding.where_other))
      both = int(ph);
  }
  if (both >= 0 || first >= 0) {
    s.phase = both >= 0 ? both : first;
    s.playing = false;
  }
}

// Whether key `k` was pressed, not while a value is typed in.
bool key(ImGuiKey k, bool repeat = true) {
  return !ImGui::GetIO().WantTextInput && ImGui::IsKeyPressed(ImGui::GetKeyIndex(k), repeat);
}

// The phase's buttons and slider: previous, play or pause, next. Left and
// Right step too, Space plays.
void draw_phase_controls(StepsState& state, Selection& s, int last) {
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
}

// Within the phase, one warp instruction at a time: its buttons and
// slider. -1 is the whole phase; past the phase's last instruction, "next"
// goes on into the next phase's first.
void draw_instruction_controls(StepsState& state, Selection& s, int last) {
  const int instructions = int(state.steps.instruction_first[size_t(s.phase)].size());
  // Another phase (its slider, its buttons, play): the whole of it first.
  if (state.instruction_phase >= 0 && state.instruction_phase != s.phase) s.instruction = -1;
  s.instruction = std::clamp(s.instruction, -1, instructions - 1);
  if (ImGui::Button("< instruction")) s.instruction = std::max(-1, s.instruction - 1);
  note_place("steps:previous-instruction");
  ImGui::SameLine();
  if (ImGui::Button("instruction >")) {
    if (s.instruction + 1 < instructions) {
      ++s.instruction;
    } else if (s.phase < last) {
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
  // The phase may have moved on under the instruction.
  if (size_t(s.instruction) >= state.steps.instruction_first[size_t(s.phase)].size())
    s.instruction = -1;
  state.instruction_phase = s.phase;
}

// Which of the phase's accesses are drawn: those before `end` (as far as
// the instruction shown), and the instruction's own, own_begin to own_end,
// framed in white (none when the whole phase is shown).
struct Shown {
  size_t end = 0, own_begin = 0, own_end = 0;
};

Shown shown_of(const StepsState& state, const Selection& s) {
  const auto& accesses = state.steps.by_phase[size_t(s.phase)];
  Shown shown{accesses.size()};
  if (s.instruction < 0) return shown;
  const auto& first = state.steps.instruction_first[size_t(s.phase)];
  shown.own_begin = first[size_t(s.instruction)];
  shown.own_end =
      size_t(s.instruction) + 1 < first.size() ? first[size_t(s.instruction) + 1] : accesses.size();
  shown.end = shown.own_end;
  return shown;
}

// The instruction shown: its warp, what it did where, and how many lanes.
void say_instruction(const Shared& shared, const StepsState& state, const Selection& s,
                     const Shown& shown) {
  const trace::Access& x = state.steps.by_phase[size_t(s.phase)][shown.own_begin];
  ImGui::TextWrapped(
      "Warp instruction %d of %d in phase %d: warp %u %s %s at %s (%zu lanes), "
      "framed in white; the ones before it in this phase are coloured. (The order is the "
      "trace's, warp after warp; on a GPU warps interleave in any order up to the barrier.)",
      s.instruction, int(state.steps.instruction_first[size_t(s.phase)].size()), s.phase,
      x.thread / 32,
      x.atomic  ? "adds atomically to"
      : x.write ? "writes"
                : "reads",
      x.shared() ? "shared memory" : "global memory", shared.trace.where(x.pc).c_str(),
      shown.own_end - shown.own_begin);
}

// What each colour and frame of this view means.
void draw_legend() {
  legend_item(kRead, "read in this phase");
  legend_item(kWritten, "written");
  legend_item(kBoth, "read and written");
  legend_item(kEarlier, "touched in an earlier phase");
  legend_item(kMissed, "outside the buffer");
  legend_item(kSelected, "the instruction's or finding's", true);
  ImGui::NewLine();
}

// The finding shown: a barrier finding's block and line, or the accesses
// framed in white (a race: one thread's access and the other's it was not
// ordered with).
void say_finding(const trace::Launch& l, const trace::Finding* finding) {
  if (finding && finding->thread < 0) {
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
}

// Whether `x` is one of the finding's two accesses.
bool of_finding(const Shared& shared, const Selection& s, const trace::Finding* finding,
                const trace::Access& x) {
  if (!finding) return false;
  if (int64_t(x.thread) == finding->thread && same_line(finding->where, shared.trace.where(x.pc)))
    return true;
  return finding->other_block == s.block && int64_t(x.thread) == finding->other_thread &&
         same_line(finding->where_other, shared.trace.where(x.pc));
}

// A place the block may touch: its shared memory, or a global buffer.
struct Place {
  uint32_t id;
  std::string name;
  uint64_t bytes, per_cell;
};

std::vector<Place> places_of(const Shared& shared, const StepsState& state) {
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
  return places;
}

// What the block did to each cell of a place, up to the phase and
// instruction shown.
struct PlaceCells {
  std::vector<uint8_t> seen;                           // bit 0 earlier, 1 read, 2 written
  std::vector<std::vector<const trace::Access*>> now;  // the phase's first 8 accesses, per cell
  std::vector<const trace::Access*> missed;            // this phase's, outside the buffer
  std::vector<char> frame;                             // the instruction's or finding's accesses
};

PlaceCells place_cells(const Shared& shared, const StepsState& state, const Selection& s,
                       const Place& p, const Shown& shown, const trace::Finding* finding) {
  const uint64_t words = std::max<uint64_t>(1, (p.bytes + 3) / 4);
  const size_t cells = size_t((words + p.per_cell - 1) / p.per_cell);
  PlaceCells c{std::vector<uint8_t>(cells, 0), {}, {}, std::vector<char>(cells, 0)};
  for (int ph = 0; ph <= s.phase; ++ph)
    for (size_t k = 0; k < state.steps.by_phase[size_t(ph)].size(); ++k) {
      if (ph == s.phase && k >= shown.end) break;  // not yet made
      const trace::Access& x = state.steps.by_phase[size_t(ph)][k];
      if (x.allocation != p.id) continue;
      if (!x.shared() && shared.trace.missed(x)) {
        if (ph == s.phase) c.missed.push_back(&x);
        continue;
      }
      const uint64_t at = x.offset / 4 / p.per_cell;
      if (at >= cells) continue;
      if (ph < s.phase) {
        c.seen[at] |= 1;
        continue;
      }
      c.seen[at] |= x.write ? 4 : 2;
      if (of_finding(shared, s, finding, x) ||
          (s.instruction >= 0 && k >= shown.own_begin && k < shown.own_end))
        c.frame[at] = 1;
      if (c.now.empty()) c.now.resize(cells);
      if (c.now[at].size() < 8) c.now[at].push_back(&x);
    }
  return c;
}

// A place's heatmap: its title, its cells coloured by what the block did,
// the frames, the tooltip of the cell under the mouse, and this phase's
// accesses outside it. Nothing for a place the block has not touched yet.
void draw_place(const Shared& shared, const trace::Launch& l, const Selection& s, const Place& p,
                const PlaceCells& c) {
  if (c.missed.empty() &&
      std::all_of(c.seen.begin(), c.seen.end(), [](uint8_t v) { return v == 0; }))
    return;
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
  draw_cells(("step" + std::to_string(p.id)).c_str(), int(c.seen.size()), columns, cell,
             [&](int i) {
               const uint8_t v = c.seen[size_t(i)];
               if ((v & 6) == 6) return kBoth;
               if (v & 4) return kWritten;
               if (v & 2) return kRead;
               return v & 1 ? kEarlier : kUntouched;
             },
             -1, &hovered);
  note_place("steps:" + p.name, cell, columns);
  for (size_t i = 0; i < c.frame.size(); ++i)
    if (c.frame[i])
      frame_cell(ImGui::GetWindowDrawList(), origin, i, columns, cell, kSelected, 2.0f, true);
  if (hovered >= 0 && !c.now.empty() && !c.now[size_t(hovered)].empty()) {
    ImGui::BeginTooltip();
    ImGui::Text("[%llu] in phase %d:", (unsigned long long)(uint64_t(hovered) * p.per_cell),
                s.phase);
    for (const trace::Access* x : c.now[size_t(hovered)])
      ImGui::Text("%s", shared.who(l, *x).c_str());
    ImGui::EndTooltip();
    note_window_text();
  }
  if (!c.missed.empty()) {
    ImGui::TextColored(kMissedText, "%zu access%s outside it in this phase:", c.missed.size(),
                       c.missed.size() == 1 ? "" : "es");
    for (size_t i = 0; i < c.missed.size() && i < 4; ++i)
      ImGui::TextColored(kMissedText, "  %s: %s", shared.who(l, *c.missed[i]).c_str(),
                         shared.miss_words(*c.missed[i]).c_str());
  }
}

}  // namespace

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
  play(state, s, last);
  const trace::Finding* finding = finding_of_block(l, s);
  if (finding && s.finding_asked) go_to_finding(shared, state, s, *finding);
  s.finding_asked = false;
  s.phase = std::clamp(s.phase, 0, last);
  ImGui::TextWrapped(
      "Block (%u,%u,%u) in barrier phases: phase 0 runs from the block's start to its first "
      "__syncthreads(), phase 1 from there to the next, and so on (%u in all). Pick a block in "
      "'Grid of blocks'; hover a cell for who touched it in this phase.",
      b.x, b.y, b.z, state.steps.phases);
  draw_phase_controls(state, s, last);
  draw_instruction_controls(state, s, last);
  const Shown shown = shown_of(state, s);
  if (s.instruction >= 0) say_instruction(shared, state, s, shown);
  draw_legend();
  say_finding(l, finding);
  // The places this block touched: its shared memory, then global buffers.
  for (const Place& p : places_of(shared, state))
    draw_place(shared, l, s, p, place_cells(shared, state, s, p, shown, finding));
}

}  // namespace cudalab::viz
