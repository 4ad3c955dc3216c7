// The "Who touched each element" tab: one heatmap per buffer of the block
// (or thread) that last touched each element, the bugs drawn on it: the
// accesses that missed a buffer, a graded test's wrong elements, the races
// in global memory; and the selected thread's and the picked line's cells.
#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "places.h"
#include "views/each_view.h"

namespace cudalab::viz {
namespace {

// The graded test's wrong cells and the races' cells on the launch's
// memory: made again with it (its launch or row width).
void refresh_marks(const Shared& shared, HeatmapsState& state, const Selection& s) {
  if (state.launch == s.launch && state.columns == s.columns) return;
  state.launch = s.launch;
  state.columns = s.columns;
  const LaunchMemory& memory = shared.memory();
  const auto& l = shared.trace.launches[size_t(s.launch)];
  state.wrong = shared.results ? wrong_cells(memory, shared.results->compared)
                               : std::vector<std::vector<WrongCell>>{};
  // The cells of each race finding's two accesses in global memory.
  state.race_cells.assign(memory.buffers.size(), {});
  for (size_t f = 0; f < l.findings.size(); ++f) {
    const trace::Finding& x = l.findings[f];
    if (x.tool != "racecheck" || x.space != "__global__") continue;
    auto mark = [&](int64_t block, int64_t thread, const std::string& where) {
      if (block < 0 || thread < 0 || uint64_t(block) >= l.grid.count()) return;
      for (const trace::Access& a : thread_accesses(l, memory, uint32_t(block), uint32_t(thread))) {
        if (a.shared() || shared.trace.missed(a) || !same_line(where, shared.trace.where(a.pc)))
          continue;
        for (size_t b = 0; b < memory.buffers.size(); ++b)
          if (memory.buffers[b].allocation->id == a.allocation)
            state.race_cells[b].emplace_back(a.offset / 4 / memory.buffers[b].per_cell, int(f));
      }
    };
    mark(x.block, x.thread, x.where);
    mark(x.other_block >= 0 ? x.other_block : x.block, x.other_thread, x.where_other);
  }
}

// The cells of each of the memory's buffers that the picked line touched.
void refresh_line(const Shared& shared, HeatmapsState& state, const Selection& s) {
  const LaunchMemory& memory = shared.memory();
  if (state.line_launch == s.launch && state.line_columns == s.columns && state.line_of == s.line &&
      state.line_cells.size() == memory.buffers.size())
    return;
  state.line_launch = s.launch;
  state.line_columns = s.columns;
  state.line_of = s.line;
  state.line_cells.assign(memory.buffers.size(), {});
  if (s.line.empty()) return;
  const auto& l = shared.trace.launches[size_t(s.launch)];
  // The code addresses of that line, then the cells whose accesses have one.
  std::vector<uint64_t> pcs;
  for (const auto& [pc, site] : shared.trace.sites)
    if (shared.trace.where(pc) == s.line) pcs.push_back(pc);
  for (size_t b = 0; b < memory.buffers.size(); ++b) {
    const BufferMap& h = memory.buffers[b];
    state.line_cells[b].assign(h.cells, 0);
    for (size_t c = 0; c < h.cells; ++c)
      for (uint32_t k = h.first[c]; k < h.first[c + 1] && !state.line_cells[b][c]; ++k) {
        const uint64_t pc = l.requests[size_t(h.touches[k] >> 5)].pc;
        state.line_cells[b][c] = std::find(pcs.begin(), pcs.end(), pc) != pcs.end();
      }
  }
}

}  // namespace

void draw_heatmaps(Shared& shared, HeatmapsState& state, Selection& s) {
  shared.refresh(s);
  refresh_marks(shared, state, s);
  const LaunchMemory& memory = shared.memory();
  const auto& l = shared.trace.launches[size_t(s.launch)];
  ImGui::TextWrapped(
      "Each cell is one 4-byte element (or a run of them for large buffers), coloured by the "
      "%s that last touched it (the colours of 'Grid of blocks'%s). Hover a cell for every "
      "access to it, in order; click to select the thread.",
      s.color_by_thread ? "thread" : "block",
      s.color_by_thread ? ", by thread number in the block" : "");
  // The legend: one meaning per colour in this view.
  legend_item(hue_color(0, 0.6f, 0.85f),
              s.color_by_thread ? "a thread's colour" : "a block's colour");
  legend_item(kUntouched, "untouched");
  legend_item(kSelected, "the selected thread's, numbered in its order", true);
  legend_item(kLine, "the picked line's", true);
  legend_item(kWrong, "a wrong value", true);
  legend_item(kMissed, "outside the buffer");
  legend_item(kMissed, "a race (check finding)", true);
  ImGui::NewLine();
  // The misses first, so that they are seen without scrolling.
  std::string misses;
  for (const BufferMap& h : memory.buffers)
    if (h.missed_count)
      misses += (misses.empty() ? "" : ", ") + std::to_string(h.missed_count) + " outside " +
                (h.allocation->name.empty() ? "allocation " + std::to_string(h.allocation->id)
                                            : h.allocation->name);
  if (!misses.empty())
    ImGui::TextColored(kMissedText,
                       "Out of bounds: %s (listed under each buffer, drawn red past "
                       "its end).",
                       misses.c_str());
  if (memory.no_buffer_count) {
    ImGui::TextColored(kMissedText, "%llu access%s to no buffer at all:",
                       (unsigned long long)memory.no_buffer_count,
                       memory.no_buffer_count == 1 ? "" : "es");
    for (size_t i = 0; i < memory.no_buffer.size() && i < 6; ++i)
      ImGui::TextColored(kMissedText, "  %s: %s", shared.who(l, memory.no_buffer[i]).c_str(),
                         shared.miss_words(memory.no_buffer[i]).c_str());
  }
  if (shared.results)
    for (size_t b = 0; b < memory.buffers.size() && b < state.wrong.size(); ++b) {
      if (state.wrong[b].empty()) continue;
      int c = -1;
      for (const WrongCell& w : state.wrong[b])
        if (w.comparison >= 0) c = w.comparison;
      if (c < 0) continue;
      const trace::Comparison& cmp = shared.results->compared[size_t(c)];
      uint64_t framed = 0;
      for (const auto& run : cmp.runs) framed += run.second;
      ImGui::TextColored(
          kWrongText,
          "Wrong at the end of test %s: %llu of the %llu elements of %s "
          "(yellow frames%s; hover one for its value and the value expected).",
          shared.results->traced_test.c_str(), (unsigned long long)cmp.wrong,
          (unsigned long long)cmp.count, cmp.name.c_str(),
          framed < cmp.wrong ? (", the first " + std::to_string(framed) + " of them").c_str() : "");
    }
  size_t races = 0;
  for (const auto& cells : state.race_cells) races += cells.size();
  if (races)
    ImGui::TextColored(kMissedText,
                       "Races in global memory (racecheck): the cells of their accesses are "
                       "framed red; the findings are listed under the launch.");
  if (memory.buffers.empty() && !memory.no_buffer_count)
    ImGui::Text("this launch touched no global memory that was recorded");
  std::vector<uint32_t> mine;  // per cell: the selected thread's first access to it (from 1)
  refresh_line(shared, state, s);
  // Buffers with a bug first (accesses outside them, wrong values), so
  // that the bug is seen without scrolling; the others in their order.
  std::vector<size_t> order(memory.buffers.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto has_bug = [&](size_t b) {
    if (memory.buffers[b].missed_count) return true;
    return b < state.wrong.size() && std::any_of(state.wrong[b].begin(), state.wrong[b].end(),
                                                 [](WrongCell w) { return w.comparison >= 0; });
  };
  std::stable_partition(order.begin(), order.end(), has_bug);
  for (const size_t buffer : order) {
    const BufferMap& h = memory.buffers[buffer];
    const trace::Allocation& a = *h.allocation;
    ImGui::Separator();
    std::string site = a.site;
    if (auto slash = site.rfind('/'); slash != std::string::npos) site = site.substr(slash + 1);
    ImGui::Text("allocation %u%s%s: %llu bytes, allocated at %s", a.id, a.name.empty() ? "" : " ",
                a.name.c_str(), (unsigned long long)a.size, site.c_str());
    if (h.per_cell > 1) ImGui::Text("(each cell: %llu elements)", (unsigned long long)h.per_cell);
    // Cells past the end where the launch missed the buffer: drawn red, up
    // to 4 rows' worth beyond its last cell.
    const int columns = s.columns > 0 && h.per_cell == 1 ? s.columns : 64;
    size_t past = 0;
    for (const trace::Access& x : h.missed)
      if (int64_t(x.offset) >= 0)
        past = std::max<size_t>(past,
                                size_t(std::min<uint64_t>(x.offset / 4 / h.per_cell + 1 - h.cells,
                                                          uint64_t(columns) * 4)));
    const size_t drawn = h.cells + past;
    mine.assign(drawn, 0);
    std::vector<char> missed(drawn, 0);
    for (const trace::Access& x : h.missed)
      if (int64_t(x.offset) >= 0 && x.offset / 4 / h.per_cell < drawn)
        missed[size_t(x.offset / 4 / h.per_cell)] = 1;
    for (size_t k = 0; k < shared.thread_accesses().size(); ++k) {
      const trace::Access& x = shared.thread_accesses()[k];
      if (x.allocation == a.id && x.offset / 4 / h.per_cell < drawn &&
          !mine[size_t(x.offset / 4 / h.per_cell)])
        mine[size_t(x.offset / 4 / h.per_cell)] = uint32_t(k + 1);
    }
    const float cell = std::clamp(ImGui::GetContentRegionAvail().x / float(columns), 2.f, 16.f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    // A launch opened with accesses past a buffer's end (and no wrong
    // values, which sit where the buffer starts): scrolled down to the
    // first red row once, so that the bug is in sight.
    if (state.scrolled_to_missed != s.launch && past > 0 && buffer == order.front() &&
        !(buffer < state.wrong.size() && !state.wrong[buffer].empty())) {
      state.scrolled_to_missed = s.launch;
      const size_t first_red = size_t(std::find(missed.begin(), missed.end(), 1) - missed.begin());
      const float y = origin.y + float(first_red / size_t(columns)) * cell;
      if (y > ImGui::GetWindowPos().y + ImGui::GetWindowHeight() * 0.8f)
        ImGui::SetScrollFromPosY(y - ImGui::GetWindowPos().y, 0.6f);
    }
    int hovered = -1;
    const int hit = draw_cells(("mem" + std::to_string(a.id)).c_str(), int(drawn), columns, cell,
                               [&](int i) {
                                 if (size_t(i) >= h.cells)
                                   return missed[size_t(i)] ? kMissed : IM_COL32(70, 30, 30, 255);
                                 const int64_t w = s.color_by_thread ? h.last_thread[size_t(i)]
                                                                     : h.last_block[size_t(i)];
                                 return w < 0 ? kUntouched : hue_color(uint32_t(w), 0.6f, 0.85f);
                               },
                               -1, &hovered);
    note_place("heatmap:" + (a.name.empty() ? "allocation " + std::to_string(a.id) : a.name), cell,
               columns);
    if (buffer < state.line_cells.size() && state.line_cells[buffer].size() == h.cells)
      for (size_t i = 0; i < h.cells; ++i)
        if (state.line_cells[buffer][i]) frame_cell(dl, origin, i, columns, cell, kLine, 1.5f);
    if (buffer < state.wrong.size() && state.wrong[buffer].size() == h.cells)
      for (size_t i = 0; i < h.cells; ++i) {
        if (state.wrong[buffer][i].comparison < 0) continue;
        // Yellow with a dark edge inside: seen on yellow and orange blocks too.
        frame_cell(dl, origin, i, columns, cell, kWrong, 1.5f);
        const ImVec2 p = cell_corner(origin, i, columns, cell);
        if (cell >= 6)
          dl->AddRect(ImVec2(p.x + 1.5f, p.y + 1.5f), ImVec2(p.x + cell - 2.5f, p.y + cell - 2.5f),
                      IM_COL32(0, 0, 0, 200));
      }
    for (size_t i = 0; i < drawn; ++i) {
      if (!mine[i]) continue;
      frame_cell(dl, origin, i, columns, cell, kSelected, 2.0f, true);
      const ImVec2 corner = cell_corner(origin, i, columns, cell);
      const float x = corner.x, y = corner.y;
      // Its number in the thread's order (as 'Selected thread' lists them),
      // where the cell has room for it.
      const std::string number = std::to_string(mine[i]);
      const ImVec2 size = ImGui::CalcTextSize(number.c_str());
      if (size.x + 2 <= cell && size.y <= cell + 2) {
        dl->AddRectFilled(ImVec2(x, y), ImVec2(x + size.x + 1, y + std::min(size.y, cell - 1)),
                          IM_COL32(0, 0, 0, 170));
        dl->AddText(ImVec2(x + 1, y - 1), kSelected, number.c_str());
        note_text(ImVec2(x + 1, y - 1), number.c_str());
      }
    }
    // Races (racecheck findings): the two accesses' cells framed red, over
    // every other frame (the bug).
    if (buffer < state.race_cells.size())
      for (const auto& race : state.race_cells[buffer])
        frame_cell(dl, origin, race.first, columns, cell, kMissed, 2.0f);
    // Hover: every access to the cell, in order; click: select its last thread.
    if (hovered >= 0 && size_t(hovered) < h.cells) {
      const size_t c = size_t(hovered);
      ImGui::BeginTooltip();
      ImGui::Text("%s[%llu]%s", a.name.empty() ? "element " : a.name.c_str(),
                  (unsigned long long)(c * h.per_cell),
                  h.per_cell > 1
                      ? (" and the " + std::to_string(h.per_cell - 1) + " after it").c_str()
                      : "");
      if (buffer < state.wrong.size() && state.wrong[buffer].size() == h.cells &&
          state.wrong[buffer][c].comparison >= 0) {
        const trace::Comparison& cmp =
            shared.results->compared[size_t(state.wrong[buffer][c].comparison)];
        if (const int32_t at = state.wrong[buffer][c].element; at >= 0) {
          const trace::WrongElement& e = cmp.elements[size_t(at)];
          ImGui::TextColored(kWrongText, "%s[%llu] is %s at the end of the test, expected %s",
                             cmp.name.c_str(), (unsigned long long)e.index, e.got.c_str(),
                             e.want.c_str());
        } else {
          ImGui::TextColored(kWrongText,
                             "wrong at the end of the test (the values of the first %zu wrong "
                             "elements are kept)",
                             cmp.elements.size());
        }
      }
      if (buffer < state.race_cells.size())
        for (const auto& [rc, f] : state.race_cells[buffer])
          if (rc == c) {
            const trace::Finding& x = l.findings[size_t(f)];
            ImGui::TextColored(kMissedText, "a race: %s %s at %s against %s (finding %d)",
                               x.tool.c_str(), x.kind.c_str(), file_name(x.where).c_str(),
                               file_name(x.where_other).c_str(), f + 1);
            break;
          }
      const uint32_t n = h.first[c + 1] - h.first[c];
      if (n == 0 && h.last_block[c] >= 0)
        ImGui::Text("touched, but the launch has too many accesses to list them here");
      else if (n == 0)
        ImGui::Text("no thread of this launch touched it");
      for (uint32_t k = 0; k < n && k < 16; ++k)
        ImGui::Text("%u. %s", k + 1,
                    shared.who(l, access_of(l, h.touches[h.first[c] + k])).c_str());
      if (n > 16) ImGui::Text("... %u accesses in all", n);
      ImGui::EndTooltip();
      note_window_text();
      if (hit >= 0 && h.last_block[c] >= 0) {
        s.block = int(h.last_block[c]);
        s.thread = int(h.last_thread[c]);
        s.access = -1;
      }
    } else if (hovered >= 0) {
      ImGui::BeginTooltip();
      ImGui::TextColored(kMissedText,
                         "%s[%llu]: past the end of %s, which has elements [0] to [%llu]",
                         a.name.empty() ? "element " : a.name.c_str(),
                         (unsigned long long)(uint64_t(hovered) * h.per_cell),
                         a.name.empty() ? "this buffer" : a.name.c_str(),
                         (unsigned long long)((a.size + 3) / 4 - 1));
      int listed = 0;
      for (const trace::Access& x : h.missed)
        if (int64_t(x.offset) >= 0 && x.offset / 4 / h.per_cell == uint64_t(hovered)) {
          if (listed++ < 16) ImGui::Text("%s", shared.who(l, x).c_str());
          if (hit >= 0) {  // clicked: select the (last) thread that missed here
            s.block = int(x.block);
            s.thread = int(x.thread);
            s.access = -1;
          }
        }
      ImGui::EndTooltip();
      note_window_text();
    }
    if (h.missed_count) {
      ImGui::TextColored(kMissedText, "%llu access%s outside this buffer (out of bounds):",
                         (unsigned long long)h.missed_count, h.missed_count == 1 ? "" : "es");
      for (size_t i = 0; i < h.missed.size() && i < 4; ++i)
        ImGui::TextColored(kMissedText, "  %s: %s", shared.who(l, h.missed[i]).c_str(),
                           shared.miss_words(h.missed[i]).c_str());
    }
  }
}

}  // namespace cudalab::viz
