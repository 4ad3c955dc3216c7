// The visualizer's views over one trace, drawn with Dear ImGui. The state is
// only what is selected; everything shown is derived from the trace.
#pragma once

#include <string>
#include <vector>

#include "cudalab/trace/metrics.h"
#include "cudalab/trace/trace.h"
#include "launch_memory.h"

namespace cudalab::viz {

struct Selection {
  int launch = 0;                // index into trace.launches
  int block = 0;                 // linear block index
  int thread = -1;               // linear thread index in the block, -1: none
  bool color_by_thread = false;  // heatmap: colour by thread (lane) instead of block
  bool show_metrics = false;     // the memory window shows the metrics per line
  bool show_steps = false;       // the memory window steps through the block's phases
  int phase = 0;                 // the block's barrier phase shown by the steps
  int instruction = -1;          // ... up to its warp instruction this (-1: all of the phase)
  bool playing = false;          // the steps advance on their own
  // The warp instruction shown: the selected thread's access number
  // `access` (-1: none), its lanes against sectors or banks.
  int access = -1;
  bool show_warp = false;      // the memory window opens on it
  int finding = -1;            // the launch's finding shown on the pictures (-1: none)
  bool finding_asked = false;  // step to it: its block, thread and phase
  std::string line;            // the source line picked ("file.cu:12"): its accesses marked
  bool show_source = false;    // the memory window opens on the source
  int columns = 0;             // heatmap: elements per row (a matrix's width); 0: 64 cells
  int test = -1;               // the graded test shown in its tab (-1: the traced one)
  bool show_test = false;      // the memory window opens on it
};

class Views {
 public:
  // `results`: the graded tests that go with the trace, or null.
  explicit Views(const trace::Trace& t, const trace::TestResults* results = nullptr)
      : trace_(t), results_(results) {}
  // Draws every window; `width`/`height` is the framebuffer size.
  void draw(Selection& s, int width, int height);

 private:
  void draw_launches(Selection& s);
  void draw_grid(Selection& s);
  void draw_block(Selection& s);
  void draw_memory(Selection& s);
  void draw_heatmaps(Selection& s);
  void draw_metrics(const Selection& s);
  void draw_thread_accesses(Selection& s);
  void draw_warp_instruction(Selection& s);
  void draw_source(Selection& s);
  // The cells of each of memory_'s buffers that the picked line touched.
  void refresh_line(const Selection& s);
  void draw_steps(Selection& s);
  // The graded tests, listed in the launches window; one of them in its tab:
  // what it said, and its comparisons' wrong elements against the values
  // expected.
  void draw_test_list(Selection& s);
  void draw_graded_test(Selection& s);
  // The launch's memory (launch_memory.h), made when the launch or the row
  // width changes; the selected thread's accesses, when the thread does.
  void refresh(const Selection& s);
  // "thread (3,0,0) of block (1,0,0) wrote at file.cu:9" for hover lists.
  std::string who(const trace::Launch& l, const trace::Access& x) const;
  // How far outside its buffer a missed access fell, in words.
  std::string miss_words(const trace::Access& x) const;

  const trace::Trace& trace_;
  const trace::TestResults* results_;
  std::vector<std::vector<WrongCell>> wrong_;  // per buffer of memory_: the wrong elements
  // Per buffer of memory_: the cells of races' accesses, with their finding.
  std::vector<std::vector<std::pair<uint64_t, int>>> race_cells_;
  bool test_tab_asked_ = false, heatmap_tab_asked_ = false;
  std::vector<int> compared_launch_;  // per comparison: the last launch touching it, -1: none
  int memory_launch_ = -1, memory_columns_ = -1;  // what memory_ is of
  LaunchMemory memory_;
  int accesses_launch_ = -1, accesses_block_ = -1, accesses_thread_ = -1;
  int steps_launch_ = -1, steps_block_ = -1;  // what steps_ are of
  BlockSteps steps_;
  double last_step_time_ = 0;
  int instruction_phase_ = -1;  // the phase Selection::instruction counts in
  bool tab_chosen_ = false;
  int metrics_launch_ = -1;  // the launch metrics_ are of
  trace::KernelMetrics metrics_;
  std::vector<trace::Access> thread_accesses_;  // the selected thread's, in its order
  std::vector<uint32_t> thread_requests_;       // the request of each
  bool warp_tab_asked_ = false;                 // an access was clicked: show its tab
  std::string line_of_;                         // what line_cells_ are of
  std::string source_scrolled_to_;              // the picked line the Source tab scrolled to
  int scrolled_to_missed_ = -1;                 // the launch the heatmap scrolled to its red for
  int line_launch_ = -1, line_columns_ = -1;
  std::vector<std::vector<char>> line_cells_;  // per buffer of memory_, per cell
};

// Colour of warp `w`, block `b`... as ImU32 (a hue wheel).
unsigned hue_color(uint32_t index, float saturation = 0.65f, float value = 0.9f);

}  // namespace cudalab::viz
