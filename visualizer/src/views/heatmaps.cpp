// The "Who touched each element" tab: one heatmap per buffer of the block
// (or thread) that last touched each element, the bugs drawn on it: the
// accesses that missed a buffer, a graded test's wrong elements, the races
// in global memory; and the selected thread's and the picked line's cells.
#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "headline.h"
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

// Buffers of at most this many cells are drawn in one row of big cells,
// their races named beside them.
constexpr size_t kSmallBuffer = 16;

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

// How to read the view, then what each colour and frame in it means.
void draw_legend(const Selection& s) {
  ImGui::TextWrapped(
      "Each cell is one 4-byte element (or a run of them for large buffers), coloured by the "
      "%s that last touched it (the colours of 'Grid of blocks'%s). Hover a cell for every "
      "access to it, in order; click to select the thread.",
      s.color_by_thread ? "thread" : "block",
      s.color_by_thread ? ", by thread number in the block" : "");
  legend_item(hue_color(0, 0.6f, 0.85f),
              s.color_by_thread ? "a thread's colour" : "a block's colour");
  legend_item(kUntouched, "untouched");
  legend_item(kSelected, "the selected thread's, numbered in its order", true);
  legend_item(kLine, "the picked line's", true);
  legend_item(kWrong, "a wrong value", true);
  legend_item(kMissed, "outside the buffer");
  legend_item(kMissed, "a race (check finding)", true);
  ImGui::NewLine();
}

// The accesses outside a buffer, or outside every buffer, said above the
// heatmaps so that they are seen without scrolling.
void say_misses(const Shared& shared, const trace::Launch& l) {
  const LaunchMemory& memory = shared.memory();
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
}

// Per buffer that the graded test found wrong: the test, and how many of
// its elements were wrong.
void say_wrong_values(const Shared& shared, const HeatmapsState& state) {
  if (!shared.results) return;
  for (size_t b = 0; b < shared.memory().buffers.size() && b < state.wrong.size(); ++b) {
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
}

// That racecheck found races in global memory, when it did.
void say_races(const HeatmapsState& state) {
  size_t races = 0;
  for (const auto& cells : state.race_cells) races += cells.size();
  if (races)
    ImGui::TextColored(kMissedText,
                       "Races in global memory (racecheck): the cells of their accesses are "
                       "framed red; the findings are listed under the launch.");
}

// The buffers in the order they are drawn: those with a bug first, in the
// headline's order (accesses outside them, then races on them, then wrong
// values), so that the bug is seen without scrolling; the others in their
// order. (A race on a one-word total whose value the judge got back by a
// copy has no wrong cell: without its race it would come last.)
std::vector<size_t> bugs_first(const LaunchMemory& memory, const HeatmapsState& state) {
  std::vector<size_t> order(memory.buffers.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto rank = [&](size_t b) {
    if (memory.buffers[b].missed_count) return 0;
    if (b < state.race_cells.size() && !state.race_cells[b].empty()) return 1;
    if (b < state.wrong.size() && std::any_of(state.wrong[b].begin(), state.wrong[b].end(),
                                              [](WrongCell w) { return w.comparison >= 0; }))
      return 2;
    return 3;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return rank(a) < rank(b); });
  return order;
}

// One buffer's heatmap as laid out on the screen.
struct BufferGrid {
  int columns = 64;
  size_t past = 0;             // cells drawn past the buffer's end, where the launch missed it
  size_t drawn = 0;            // the buffer's cells, then those past its end
  std::vector<char> missed;    // per cell drawn: an access missed the buffer there
  std::vector<uint32_t> mine;  // per cell drawn: the selected thread's first access to it (from 1)
  float cell = 0;              // a cell's side, in pixels
  ImVec2 origin;               // the first cell's top left corner on the screen
};

// The buffer's name, size and where it was allocated, above its heatmap.
void draw_buffer_title(const BufferMap& h, bool by_writer) {
  const trace::Allocation& a = *h.allocation;
  ImGui::Separator();
  std::string site = a.site;
  if (auto slash = site.rfind('/'); slash != std::string::npos) site = site.substr(slash + 1);
  ImGui::Text("allocation %u%s%s: %llu bytes, allocated at %s", a.id, a.name.empty() ? "" : " ",
              a.name.c_str(), (unsigned long long)a.size, site.c_str());
  if (h.per_cell > 1) ImGui::Text("(each cell: %llu elements)", (unsigned long long)h.per_cell);
  if (by_writer)
    ImGui::TextColored(kWrongText,
                       "coloured by the block that wrote each element last (dark: no thread "
                       "wrote it)");
}

// The buffer's grid at the cursor: its rows, and the cells past its end
// where the launch missed it, drawn red up to 4 rows' worth beyond its last
// cell.
BufferGrid lay_out(const Shared& shared, const BufferMap& h, const Selection& s) {
  BufferGrid g;
  g.columns = s.columns > 0 && h.per_cell == 1 ? s.columns : 64;
  for (const trace::Access& x : h.missed)
    if (int64_t(x.offset) >= 0)
      g.past = std::max<size_t>(g.past,
                                size_t(std::min<uint64_t>(x.offset / 4 / h.per_cell + 1 - h.cells,
                                                          uint64_t(g.columns) * 4)));
  g.drawn = h.cells + g.past;
  // A small buffer (a counter, a few sums) is one row of big cells, so that
  // its bug is seen at a glance, not a few pixels of a 64-column row.
  const bool small = h.per_cell == 1 && g.drawn <= kSmallBuffer && s.columns <= 0;
  if (small) g.columns = int(std::max<size_t>(g.drawn, 1));
  g.mine.assign(g.drawn, 0);
  g.missed.assign(g.drawn, 0);
  for (const trace::Access& x : h.missed)
    if (int64_t(x.offset) >= 0 && x.offset / 4 / h.per_cell < g.drawn)
      g.missed[size_t(x.offset / 4 / h.per_cell)] = 1;
  for (size_t k = 0; k < shared.thread_accesses().size(); ++k) {
    const trace::Access& x = shared.thread_accesses()[k];
    if (x.allocation == h.allocation->id && x.offset / 4 / h.per_cell < g.drawn &&
        !g.mine[size_t(x.offset / 4 / h.per_cell)])
      g.mine[size_t(x.offset / 4 / h.per_cell)] = uint32_t(k + 1);
  }
  g.cell =
      std::clamp(ImGui::GetContentRegionAvail().x / float(g.columns), 2.f, small ? 48.f : 16.f);
  g.origin = ImGui::GetCursorScreenPos();
  return g;
}

// A launch opened with accesses past a buffer's end (and no wrong values,
// which sit where the buffer starts): scrolled down to the first red row
// once, so that the bug is in sight.
void scroll_to_missed(HeatmapsState& state, const Selection& s, const BufferGrid& g, size_t buffer,
                      bool drawn_first) {
  if (state.scrolled_to_missed == s.launch || g.past == 0 || !drawn_first ||
      (buffer < state.wrong.size() && !state.wrong[buffer].empty()))
    return;
  state.scrolled_to_missed = s.launch;
  const size_t first_red =
      size_t(std::find(g.missed.begin(), g.missed.end(), 1) - g.missed.begin());
  const float y = g.origin.y + float(first_red / size_t(g.columns)) * g.cell;
  if (y > ImGui::GetWindowPos().y + ImGui::GetWindowHeight() * 0.8f)
    ImGui::SetScrollFromPosY(y - ImGui::GetWindowPos().y, 0.6f);
}

// The cells, each in the colour of the block (or thread) that last touched
// it (`by_writer`: that last wrote it, untouched when none did); past the
// end, red where missed. Returns the cell clicked, or -1; *hovered gets the
// cell under the mouse, or -1.
int draw_buffer_cells(const BufferMap& h, const Selection& s, const BufferGrid& g, bool by_writer,
                      int* hovered) {
  const trace::Allocation& a = *h.allocation;
  const std::vector<int64_t>& blocks = by_writer ? h.last_writer_block : h.last_block;
  const std::vector<int64_t>& threads = by_writer ? h.last_writer_thread : h.last_thread;
  const int hit =
      draw_cells(("mem" + std::to_string(a.id)).c_str(), int(g.drawn), g.columns, g.cell,
                 [&](int i) {
                   if (size_t(i) >= h.cells)
                     return g.missed[size_t(i)] ? kMissed : IM_COL32(70, 30, 30, 255);
                   const int64_t w = s.color_by_thread ? threads[size_t(i)] : blocks[size_t(i)];
                   return w < 0 ? kUntouched : hue_color(uint32_t(w), 0.6f, 0.85f);
                 },
                 -1, hovered);
  note_place("heatmap:" + (a.name.empty() ? "allocation " + std::to_string(a.id) : a.name), g.cell,
             g.columns);
  return hit;
}

// A selected thread's cell framed, with its number in the thread's order
// (as 'Selected thread' lists them) where the cell has room for it.
void number_thread_cell(ImDrawList* dl, const BufferGrid& g, size_t i) {
  frame_cell(dl, g.origin, i, g.columns, g.cell, kSelected, 2.0f, true);
  const ImVec2 corner = cell_corner(g.origin, i, g.columns, g.cell);
  const float x = corner.x, y = corner.y;
  const std::string number = std::to_string(g.mine[i]);
  const ImVec2 size = ImGui::CalcTextSize(number.c_str());
  if (size.x + 2 <= g.cell && size.y <= g.cell + 2) {
    dl->AddRectFilled(ImVec2(x, y), ImVec2(x + size.x + 1, y + std::min(size.y, g.cell - 1)),
                      IM_COL32(0, 0, 0, 170));
    dl->AddText(ImVec2(x + 1, y - 1), kSelected, number.c_str());
    note_text(ImVec2(x + 1, y - 1), number.c_str());
  }
}

// The frames over the cells: the picked line's, the wrong values', the
// selected thread's, and last the races', over every other frame (the bug).
void draw_frames(const HeatmapsState& state, const BufferMap& h, size_t buffer,
                 const BufferGrid& g) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (buffer < state.line_cells.size() && state.line_cells[buffer].size() == h.cells)
    for (size_t i = 0; i < h.cells; ++i)
      if (state.line_cells[buffer][i]) frame_cell(dl, g.origin, i, g.columns, g.cell, kLine, 1.5f);
  if (buffer < state.wrong.size() && state.wrong[buffer].size() == h.cells)
    for (size_t i = 0; i < h.cells; ++i) {
      if (state.wrong[buffer][i].comparison < 0) continue;
      // Yellow with a dark edge inside: seen on yellow and orange blocks too.
      frame_cell(dl, g.origin, i, g.columns, g.cell, kWrong, 1.5f);
      const ImVec2 p = cell_corner(g.origin, i, g.columns, g.cell);
      if (g.cell >= 6)
        dl->AddRect(ImVec2(p.x + 1.5f, p.y + 1.5f),
                    ImVec2(p.x + g.cell - 2.5f, p.y + g.cell - 2.5f), IM_COL32(0, 0, 0, 200));
    }
  for (size_t i = 0; i < g.drawn; ++i)
    if (g.mine[i]) number_thread_cell(dl, g, i);
  if (buffer < state.race_cells.size())
    for (const auto& race : state.race_cells[buffer])
      frame_cell(dl, g.origin, race.first, g.columns, g.cell, kMissed, 2.0f);
}

// In a cell's tooltip: the value the graded test found in it against the
// one expected, when it was wrong.
void say_wrong_value(const Shared& shared, const HeatmapsState& state, const BufferMap& h,
                     size_t buffer, size_t c) {
  if (buffer >= state.wrong.size() || state.wrong[buffer].size() != h.cells ||
      state.wrong[buffer][c].comparison < 0)
    return;
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

// Under a small buffer: each race on it, with the two threads and their
// lines, so that a racing counter says who raced without a hover.
void name_racers(const HeatmapsState& state, const trace::Launch& l, size_t buffer) {
  if (buffer >= state.race_cells.size()) return;
  std::vector<int> named;
  for (const auto& [cell, f] : state.race_cells[buffer]) {
    if (std::find(named.begin(), named.end(), f) != named.end() || named.size() == 4) continue;
    named.push_back(f);
    const trace::Finding& x = l.findings[size_t(f)];
    const int64_t block = std::max<int64_t>(x.block, 0);
    const std::string one = whose(l, block, std::max<int64_t>(x.thread, 0)),
                      other = whose(l, x.other_block >= 0 ? x.other_block : block,
                                    std::max<int64_t>(x.other_thread, 0));
    // Cells are 4 bytes whatever the buffer holds (a double is two): bytes.
    ImGui::TextColored(kMissedText, "bytes %zu to %zu: a %s race: %s at %s against %s at %s",
                       cell * 4, cell * 4 + 3, x.kind.c_str(), one.c_str(),
                       file_name(x.where).c_str(), other.c_str(), file_name(x.where_other).c_str());
  }
}

// In a cell's tooltip: the first race finding with an access to it.
void say_race(const HeatmapsState& state, const trace::Launch& l, size_t buffer, size_t c) {
  if (buffer >= state.race_cells.size()) return;
  for (const auto& [rc, f] : state.race_cells[buffer])
    if (rc == c) {
      const trace::Finding& x = l.findings[size_t(f)];
      ImGui::TextColored(kMissedText, "a race: %s %s at %s against %s (finding %d)", x.tool.c_str(),
                         x.kind.c_str(), file_name(x.where).c_str(),
                         file_name(x.where_other).c_str(), f + 1);
      return;
    }
}

// Hovering cell `c` of the buffer: every access to it, in order, and its
// bugs; clicking it selects the thread that touched it last.
void cell_tooltip(const Shared& shared, const HeatmapsState& state, Selection& s,
                  const trace::Launch& l, const BufferMap& h, size_t buffer, size_t c,
                  bool clicked) {
  const trace::Allocation& a = *h.allocation;
  ImGui::BeginTooltip();
  ImGui::Text(
      "%s[%llu]%s", a.name.empty() ? "element " : a.name.c_str(),
      (unsigned long long)(c * h.per_cell),
      h.per_cell > 1 ? (" and the " + std::to_string(h.per_cell - 1) + " after it").c_str() : "");
  say_wrong_value(shared, state, h, buffer, c);
  say_race(state, l, buffer, c);
  const uint32_t n = h.first[c + 1] - h.first[c];
  if (n == 0 && h.last_block[c] >= 0)
    ImGui::Text("touched, but the launch has too many accesses to list them here");
  else if (n == 0)
    ImGui::Text("no thread of this launch touched it");
  for (uint32_t k = 0; k < n && k < 16; ++k)
    ImGui::Text("%u. %s", k + 1, shared.who(l, access_of(l, h.touches[h.first[c] + k])).c_str());
  if (n > 16) ImGui::Text("... %u accesses in all", n);
  ImGui::EndTooltip();
  note_window_text();
  if (clicked && h.last_block[c] >= 0) {
    s.block = int(h.last_block[c]);
    s.thread = int(h.last_thread[c]);
    s.access = -1;
  }
}

// Hovering cell `c` past the buffer's end: the accesses that missed it
// there; clicking it selects the (last) thread that missed there.
void past_end_tooltip(const Shared& shared, Selection& s, const trace::Launch& l,
                      const BufferMap& h, uint64_t c, bool clicked) {
  const trace::Allocation& a = *h.allocation;
  ImGui::BeginTooltip();
  ImGui::TextColored(
      kMissedText, "%s[%llu]: past the end of %s, which has elements [0] to [%llu]",
      a.name.empty() ? "element " : a.name.c_str(), (unsigned long long)(c * h.per_cell),
      a.name.empty() ? "this buffer" : a.name.c_str(), (unsigned long long)((a.size + 3) / 4 - 1));
  int listed = 0;
  for (const trace::Access& x : h.missed)
    if (int64_t(x.offset) >= 0 && x.offset / 4 / h.per_cell == c) {
      if (listed++ < 16) ImGui::Text("%s", shared.who(l, x).c_str());
      if (clicked) {
        s.block = int(x.block);
        s.thread = int(x.thread);
        s.access = -1;
      }
    }
  ImGui::EndTooltip();
  note_window_text();
}

// Under the heatmap: the first of the accesses outside the buffer.
void list_misses(const Shared& shared, const trace::Launch& l, const BufferMap& h) {
  if (!h.missed_count) return;
  ImGui::TextColored(kMissedText, "%llu access%s outside this buffer (out of bounds):",
                     (unsigned long long)h.missed_count, h.missed_count == 1 ? "" : "es");
  for (size_t i = 0; i < h.missed.size() && i < 4; ++i)
    ImGui::TextColored(kMissedText, "  %s: %s", shared.who(l, h.missed[i]).c_str(),
                       shared.miss_words(h.missed[i]).c_str());
}

// One buffer: its title, its heatmap with the frames on it, the tooltip of
// the cell under the mouse, and the accesses outside it.
void draw_buffer(const Shared& shared, HeatmapsState& state, Selection& s, size_t buffer,
                 bool drawn_first) {
  const BufferMap& h = shared.memory().buffers[buffer];
  const auto& l = shared.trace.launches[size_t(s.launch)];
  // A buffer with wrong values is coloured by who wrote each element: the
  // reads of a neighbour (a halo) do not hide it.
  const bool by_writer = buffer < state.wrong.size() && has_writes(h) &&
                         std::any_of(state.wrong[buffer].begin(), state.wrong[buffer].end(),
                                     [](const WrongCell& w) { return w.comparison >= 0; });
  draw_buffer_title(h, by_writer);
  const BufferGrid g = lay_out(shared, h, s);
  scroll_to_missed(state, s, g, buffer, drawn_first);
  int hovered = -1;
  const int hit = draw_buffer_cells(h, s, g, by_writer, &hovered);
  draw_frames(state, h, buffer, g);
  if (hovered >= 0 && size_t(hovered) < h.cells)
    cell_tooltip(shared, state, s, l, h, buffer, size_t(hovered), hit >= 0);
  else if (hovered >= 0)
    past_end_tooltip(shared, s, l, h, uint64_t(hovered), hit >= 0);
  list_misses(shared, l, h);
  if (g.drawn <= kSmallBuffer) name_racers(state, l, buffer);
}

}  // namespace

void draw_heatmaps(Shared& shared, HeatmapsState& state, Selection& s) {
  shared.refresh(s);
  refresh_marks(shared, state, s);
  const LaunchMemory& memory = shared.memory();
  const auto& l = shared.trace.launches[size_t(s.launch)];
  draw_legend(s);
  // The bugs first, so that they are seen without scrolling.
  say_misses(shared, l);
  say_wrong_values(shared, state);
  say_races(state);
  if (memory.buffers.empty() && !memory.no_buffer_count)
    ImGui::Text("this launch touched no global memory that was recorded");
  refresh_line(shared, state, s);
  const std::vector<size_t> order = bugs_first(memory, state);
  for (const size_t buffer : order) draw_buffer(shared, state, s, buffer, buffer == order.front());
}

}  // namespace cudalab::viz
