// A floor for HeCBench's jacobi (a 2048 x 2048 five-point relaxation, run
// until the root-mean-square change is below 1e-5, at most 10,000 steps): the
// same arithmetic and stopping rule as a plain C++ loop nest, rows in memory
// order, spread over the machine's cores with OpenMP. No simulator can run
// the CUDA program faster than this loop runs the work. An argument caps the
// steps (the CUDA program's max_iters, 10,000), for shorter runs of the same
// steps side by side (bench/warp_loops.py).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

int main(int argc, char** argv) {
  constexpr int n = 2048;
  const int max_steps = argc > 1 ? std::atoi(argv[1]) : 10000;
  if (max_steps < 1) {
    std::fprintf(stderr, "usage: %s [MAX_STEPS]  (at least 1; default 10000)\n", argv[0]);
    return 2;
  }
  auto boundary = [](std::vector<float>& f) {
    const double pi = std::acos(-1.0);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        float v = 0.0f;
        if (i == 0 || i == n - 1)
          v = std::sin(float(j * 2 * pi / (n - 1)));
        else if (j == 0 || j == n - 1)
          v = std::sin(float(i * 2 * pi / (n - 1)));
        f[size_t(i) + size_t(j) * n] = v;
      }
  };
  std::vector<float> a(size_t(n) * n), b(size_t(n) * n);
  boundary(a);
  boundary(b);
  float* next = a.data();
  float* old = b.data();
  float error = 1e30f;
  int steps = 0;
  const auto start = std::chrono::steady_clock::now();
  while (error > 1e-5f && steps < max_steps) {
    float sum = 0.0f;
#pragma omp parallel for reduction(+ : sum)
    for (int j = 1; j < n - 1; ++j)
      for (int i = 1; i < n - 1; ++i) {
        const size_t at = size_t(i) + size_t(j) * n;
        const float t = 0.25f * (old[at + 1] + old[at - 1] + old[at + n] + old[at - n]);
        const float d = t - old[at];
        next[at] = t;
        sum += d * d;
      }
    std::swap(next, old);
    error = std::sqrt(sum / float(n * n));
    ++steps;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("jacobi 2048^2 (plain loop): %d steps to an error of %g in %.1f s\n", steps, error,
              seconds);
  return error <= 1e-5f || steps == max_steps ? 0 : 1;
}
