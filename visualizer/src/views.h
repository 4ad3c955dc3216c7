// The visualizer's views over one trace, drawn with Dear ImGui. The state is
// only what is selected; everything shown is derived from the trace.
#pragma once

#include <string>
#include <vector>

#include "cudalab/trace/metrics.h"
#include "cudalab/trace/trace.h"

namespace cudalab::viz {

struct Selection {
  int launch = 0;                // index into trace.launches
  int block = 0;                 // linear block index
  int thread = -1;               // linear thread index in the block, -1: none
  bool color_by_thread = false;  // heatmap: colour by thread (lane) instead of block
  bool show_metrics = false;     // the memory window shows the metrics per line
  int columns = 0;               // heatmap: elements per row (a matrix's width); 0: 64 cells
};

class Views {
 public:
  explicit Views(const trace::Trace& t) : trace_(t) {}
  // Draws every window; `width`/`height` is the framebuffer size.
  void draw(Selection& s, int width, int height);

 private:
  void draw_launches(Selection& s);
  void draw_grid(Selection& s);
  void draw_block(Selection& s);
  void draw_memory(Selection& s);
  void draw_heatmaps(Selection& s);
  void draw_metrics(const Selection& s);
  void draw_thread_accesses(const Selection& s);
  // What the memory views show for one selection, computed once when the
  // selection changes rather than every frame (traces hold millions of
  // accesses).
  struct Heatmap {
    const trace::Allocation* allocation = nullptr;
    uint64_t per_cell = 1;
    std::vector<int64_t> who;  // block or thread per cell, -1: untouched
    std::vector<char> mine;    // touched by the selected thread
  };
  void refresh(const Selection& s);

  const trace::Trace& trace_;
  bool cached_ = false;
  Selection cached_for_;
  std::vector<Heatmap> heatmaps_;
  bool tab_chosen_ = false;
  int metrics_launch_ = -1;  // the launch metrics_ are of
  trace::KernelMetrics metrics_;
  std::vector<trace::Access> thread_accesses_;  // the selected thread's, in its order
};

// Colour of warp `w`, block `b`... as ImU32 (a hue wheel).
unsigned hue_color(uint32_t index, float saturation = 0.65f, float value = 0.9f);

}  // namespace cudalab::viz
