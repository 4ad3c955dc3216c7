// cudalab-viz: opens a trace recorded with CUDALAB_TRACE and shows the grid,
// the threads of a block by warp, and which thread touched each element of
// global memory.
//
//   cudalab-viz out.trace
//   cudalab-viz out.trace --screenshot shot.png [--size 1280x800]
//               [--launch N] [--block N] [--thread N]
//   cudalab-viz out.trace --snapshots DIR    (F12 saves what is shown)
#include <cstdio>

#include "load.h"
#include "opening.h"
#include "options.h"
#include "window.h"

int main(int argc, char** argv) {
  namespace viz = cudalab::viz;
  viz::Options options;
  if (const auto stop = viz::parse_options(argc, argv, &options)) return viz::print_stop(*stop);
  viz::Loaded loaded;
  if (const auto stop = viz::load(options, &loaded)) return viz::print_stop(*stop);
  if (!loaded.warning.empty()) std::fprintf(stderr, "cudalab-viz: %s\n", loaded.warning.c_str());
  const cudalab::trace::TestResults* results = loaded.results ? &*loaded.results : nullptr;
  viz::Opening opening;
  if (const auto stop = viz::choose_opening(options, loaded.trace, results, &opening))
    return viz::print_stop(*stop);
  viz::place_test_findings(opening, loaded.trace);
  return viz::run_window(options, loaded.trace, results, opening.selection);
}
