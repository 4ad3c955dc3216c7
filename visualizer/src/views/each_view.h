// Each view of the viewer, one file of views/ each: the function that
// draws it and, where it keeps something between frames, its state. The
// windows' places and the memory window's tabs are views.cpp's; what more
// than one view reads is in shared.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/predict/predict.h"
#include "launch_memory.h"
#include "selection.h"
#include "views/shared.h"

namespace cudalab::viz {

// launches.cpp, the "Launches" window: the program, its launches, the
// selected launch's fault and check findings, and the graded tests
// (draw_test_list). Returns whether a graded test was clicked: its tab is
// asked for.
bool draw_launches(const Shared& shared, Selection& s);

// grid.cpp, the "Grid of blocks" window: click a block.
void draw_grid(const Shared& shared, Selection& s);

// block.cpp, the "Threads of the block" window, coloured by warp: click a
// thread.
void draw_block(const Shared& shared, Selection& s);

// thread_accesses.cpp, the "Selected thread" window: its accesses in its
// order. Returns whether one was clicked: its warp instruction's tab is
// asked for.
bool draw_thread_accesses(Shared& shared, Selection& s);

// heatmaps.cpp, the "Who touched each element" tab: one heatmap per
// buffer of which block (or thread) last touched each element, with the
// misses, the graded test's wrong elements, the races and the picked
// line's cells framed.
struct HeatmapsState {
  int launch = -1, columns = -1;              // what wrong and race_cells are of
  std::vector<std::vector<WrongCell>> wrong;  // per buffer of the memory: the wrong elements
  // Per buffer of the memory: the cells of races' accesses, with their finding.
  std::vector<std::vector<std::pair<uint64_t, int>>> race_cells;
  int line_launch = -1, line_columns = -1;
  std::string line_of;                        // what line_cells are of
  std::vector<std::vector<char>> line_cells;  // per buffer of the memory, per cell
  int scrolled_to_missed = -1;                // the launch the heatmap scrolled to its red for
};
void draw_heatmaps(Shared& shared, HeatmapsState& state, Selection& s);

// steps.cpp, the "Step through the block" tab: the selected block's
// barrier phases one at a time, and within one, its warp instructions.
struct StepsState {
  int launch = -1, block = -1;  // what steps are of
  BlockSteps steps;
  double last_step_time = 0;
  int instruction_phase = -1;  // the phase Selection::instruction counts in
};
void draw_steps(Shared& shared, StepsState& state, Selection& s);

// warp_instruction.cpp, the "Warp instruction" tab: the selected access's
// warp, its 32 lanes against sectors or banks.
void draw_warp_instruction(Shared& shared, Selection& s);

// source.cpp, the "Source" tab: the kernel's lines with their figures and
// findings; click one to pick it.
struct SourceState {
  std::string scrolled_to;  // the picked line the tab scrolled to
};
void draw_source(Shared& shared, SourceState& state, Selection& s);

// metrics.cpp, the "Metrics per line" tab: the launch's figures per source
// line.
void draw_metrics(Shared& shared, const Selection& s);

// tests.cpp: the graded tests, listed in the launches window; one of them
// in the "Graded test" tab: what it said, and its comparisons' wrong
// elements against the values expected. draw_test_list returns whether a
// test was clicked; draw_graded_test whether "show on the heatmap" was.
bool draw_test_list(const Shared& shared, Selection& s);
struct GradedTestState {
  std::vector<int> compared_launch;  // per comparison: the last launch touching it, -1: none
};
bool draw_graded_test(Shared& shared, GradedTestState& state, Selection& s);

// roofline.cpp, the "Time on a GPU" tab: the selected launch's time
// predicted on the GPU CUDALAB_DEVICE names (else an H200), the limit that
// bounds it, the time at each limit and the launch on the GPU's roofline.
struct RooflineState {
  std::string gpu_key, no_gpu;  // the GPU chosen; why it has no data
  std::optional<predict::Gpu> gpu;
  int launch = -1;  // what work and prediction are of
  predict::Work work;
  predict::Prediction prediction;
};
void draw_roofline(const Shared& shared, RooflineState& state, const Selection& s);

}  // namespace cudalab::viz
