// cudalab-viz's window (GLFW, OpenGL 3, Dear ImGui): draws the views each
// frame until it is closed, or once for --screenshot; F12 saves a snapshot
// with --snapshots.
#pragma once

#include "cudalab/trace/test_results.h"
#include "cudalab/trace/trace.h"
#include "options.h"
#include "selection.h"

namespace cudalab::viz {

// Opens the window at `options`' size on `trace` (and its graded tests,
// or null), selection `sel` first; returns the exit status: 1 when no
// window can be opened or a screenshot cannot be written.
int run_window(const Options& options, const trace::Trace& trace, const trace::TestResults* results,
               Selection& sel);

}  // namespace cudalab::viz
