// What the viewer's memory views cost on a trace (visualizer/src/launch_memory.h):
// reading it, building a launch's heatmaps and hover lists (once per
// launch), and selecting a thread (what a click costs).
//   viz_bench TRACE
#include <chrono>
#include <cstdio>
#include <random>

#include "cudalab/trace/trace.h"
#include "launch_memory.h"

namespace {
double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: viz_bench TRACE\n");
    return 2;
  }
  auto t0 = std::chrono::steady_clock::now();
  cudalab::trace::Trace t;
  try {
    t = cudalab::trace::read_trace(argv[1]);
  } catch (const cudalab::trace::TraceError& e) {
    std::fprintf(stderr, "viz_bench: %s\n", e.what());
    return 1;
  }
  std::printf("read: %.3f s (%llu accesses)\n", seconds_since(t0),
              (unsigned long long)t.accesses_total);
  double build = 0, worst_click = 0, clicks = 0;
  int clicked = 0;
  std::mt19937 rng(1);
  for (const auto& l : t.launches) {
    t0 = std::chrono::steady_clock::now();
    const auto m = cudalab::viz::launch_memory(t, l, 2048);
    build += seconds_since(t0);
    for (int i = 0; i < 100; ++i) {
      const uint32_t block = uint32_t(rng() % l.grid.count());
      const uint32_t thread = uint32_t(rng() % l.block.count());
      t0 = std::chrono::steady_clock::now();
      const auto mine = cudalab::viz::thread_accesses(l, m, block, thread);
      const double s = seconds_since(t0);
      clicks += s;
      worst_click = std::max(worst_click, s);
      ++clicked;
    }
  }
  std::printf("heatmaps and hover lists of every launch: %.3f s (%zu launches)\n", build,
              t.launches.size());
  std::printf("select a thread: %.2f ms on average, %.2f ms at most (%d clicks)\n",
              1e3 * clicks / std::max(clicked, 1), 1e3 * worst_click, clicked);
  return 0;
}
