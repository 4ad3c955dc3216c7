// The visualizer's windows over one trace, drawn with Dear ImGui: where
// each window goes, and the memory window's tabs. Each window and tab is
// drawn by its own file of views/ (each_view.h); the state here is what
// the user selected (selection.h) and each view's own caches, all derived
// from the trace.
#pragma once

#include "cudalab/trace/test_results.h"
#include "cudalab/trace/trace.h"
#include "headline.h"
#include "selection.h"
#include "views/each_view.h"
#include "views/shared.h"

namespace cudalab::viz {

class Views {
 public:
  // `results`: the graded tests that go with the trace, or null.
  explicit Views(const trace::Trace& t, const trace::TestResults* results = nullptr)
      : shared_(t, results) {}
  // Draws every window; `width`/`height` is the framebuffer size.
  void draw(Selection& s, int width, int height);

 private:
  // The "Memory" window: its tabs, each drawn by its view.
  void draw_memory(Selection& s);
  // The headline (headline.h) across the top, when something is wrong;
  // returns the height it took.
  float draw_headline(Selection& s, float width);

  Shared shared_;
  HeatmapsState heatmaps_;
  StepsState steps_;
  SourceState source_;
  GradedTestState graded_test_;
  RooflineState roofline_;
  // The tab the command line asked for is chosen once (tab_chosen_), then
  // the user's. A click in another view asks for a tab, chosen once.
  bool tab_chosen_ = false;
  bool warp_tab_asked_ = false, heatmap_tab_asked_ = false, test_tab_asked_ = false;
  // The selected launch's headline, made again when the launch changes.
  Headline headline_;
  int headline_launch_ = -1;
};

}  // namespace cudalab::viz
