// The work of the lessons' warp-shuffle stages at their --bench sizes, as
// plain C++ loop nests on one thread (clang -O2): what bench/warp_loops.py
// times the simulator's plain runs of those stages against.
//
//   reduction   the sum of 16,777,216 floats (stage 4 sums them with warp
//               shuffles and one atomicAdd a block)
//   scan        the inclusive scan of 16,777,216 ints (stages 3 and 4 scan
//               tiles with warp shuffles: reduce-then-scan, single pass)
//   softmax     the softmax of each row of 4096 x 4096 floats: its max, the
//               sum of exp(x - max), then exp(x - max) / sum (stages 3 and 4
//               reduce a row with warp shuffles)
//
// Each prints the milliseconds of one pass, the best of `reps` passes after
// one warm-up, as the lesson programs print theirs; and a result, so that no
// pass is optimized away.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

template <class Pass>
double best_ms(int reps, Pass&& pass) {
  pass();
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    pass();
    best = std::min(
        best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                  .count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 3;
  if (reps < 1) {
    std::fprintf(stderr, "usage: %s [REPS]  (passes timed after a warm-up, at least 1)\n", argv[0]);
    return 2;
  }
  const int n = 1 << 24;
  std::vector<float> floats(n);
  std::vector<int> ints(n), scanned(n);
  for (int i = 0; i < n; ++i) {
    floats[i] = float((i * 2654435761u) >> 8) * (1.0f / 16777216.0f);
    ints[i] = int((i * 2246822519u) >> 24) - 128;
  }

  volatile float sum_seen = 0;
  const double reduction = best_ms(reps, [&] {
    float sum = 0;
    for (int i = 0; i < n; ++i) sum += floats[i];
    sum_seen = sum;
  });

  volatile int last_seen = 0;
  const double scan = best_ms(reps, [&] {
    int run = 0;
    for (int i = 0; i < n; ++i) scanned[i] = run += ints[i];
    last_seen = scanned[n - 1];
  });

  const int rows = 4096, cols = 4096;
  std::vector<float> out(size_t(rows) * cols);
  const double softmax = best_ms(reps, [&] {
    for (int r = 0; r < rows; ++r) {
      const float* x = floats.data() + size_t(r) * cols;
      float* o = out.data() + size_t(r) * cols;
      float m = -INFINITY;
      for (int c = 0; c < cols; ++c) m = std::fmax(m, x[c]);
      float s = 0;
      for (int c = 0; c < cols; ++c) s += std::exp(x[c] - m);
      for (int c = 0; c < cols; ++c) o[c] = std::exp(x[c] - m) / s;
    }
  });

  std::printf("reduction %.3f ms\nscan %.3f ms\nsoftmax %.3f ms\n", reduction, scan, softmax);
  std::printf("(sum %.1f, last prefix %d, out[0] %g)\n", double(sum_seen), int(last_seen),
              double(out[0]));
  return 0;
}
