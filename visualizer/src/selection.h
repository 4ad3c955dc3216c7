// What the viewer shows: the launch, block and thread selected, the memory
// window's tab and where it stands in it. The command line sets it first
// (opening.h), then the user's clicks and keys change it; the views draw
// from it. No drawing here, so the unit tests reach it.
#pragma once

#include <string>

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
  bool show_roofline = false;  // the memory window opens on the time predicted on a GPU
};

}  // namespace cudalab::viz
