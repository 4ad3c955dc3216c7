// A floor for HeCBench's binomial at its fixed sizes: 1000 passes, each
// pricing 1024 European call options on a binomial tree of 2048 steps (the
// CUDA program runs a block of 128 threads an option, 16 tree nodes a
// thread, two barriers a step). Here each option's tree is one loop nest,
// the options spread over the machine's cores (OpenMP), the inner loop left
// for the compiler to vectorize. No simulator can run the CUDA program faster
// than this runs its work.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kSteps = 2048, kOptions = 1024;

struct Option {
  float s, x, t;
};

float price(const Option& o, std::vector<float>& call) {
  const float r = 0.06f, v = 0.10f;
  const float dt = o.t / kSteps, v_dt = v * std::sqrt(dt), r_dt = r * dt;
  const float growth = std::exp(r_dt), discount = std::exp(-r_dt);
  const float up = std::exp(v_dt), down = std::exp(-v_dt);
  const float p_up = (growth - down) / (up - down), p_down = 1.0f - p_up;
  const float pu_df = p_up * discount, pd_df = p_down * discount;
  for (int i = 0; i <= kSteps; ++i)
    call[size_t(i)] = std::max(o.s * std::exp(v_dt * float(2 * i - kSteps)) - o.x, 0.0f);
  float* c = call.data();
  for (int i = kSteps; i > 0; --i)
    for (int j = 0; j < i; ++j) c[j] = pu_df * c[j + 1] + pd_df * c[j];
  return c[0];
}

// The same option in closed form (Black and Scholes), which a tree of 2048
// steps approaches: the check the CUDA program makes too.
double black_scholes(const Option& o) {
  const double r = 0.06, v = 0.10, sqrt_t = std::sqrt(double(o.t));
  const double d1 = (std::log(double(o.s) / o.x) + (r + 0.5 * v * v) * o.t) / (v * sqrt_t);
  const double d2 = d1 - v * sqrt_t;
  auto normal_cdf = [](double d) { return 0.5 * std::erfc(-d / std::sqrt(2.0)); };
  return o.s * normal_cdf(d1) - o.x * std::exp(-r * o.t) * normal_cdf(d2);
}

}  // namespace

int main(int argc, char** argv) {
  // The passes (default 1000, the CUDA program's): fewer for a quick floor.
  const int passes = argc > 1 ? std::atoi(argv[1]) : 1000;
  if (passes < 1) {
    std::fprintf(stderr, "usage: binomial_loop [PASSES >= 1]\n");
    return 2;
  }
  std::vector<Option> options(kOptions);
  for (int i = 0; i < kOptions; ++i)
    options[size_t(i)] = {5.0f + 25.0f * float(i % 97) / 97, 1.0f + 99.0f * float(i % 89) / 89,
                          0.25f + 9.75f * float(i % 83) / 83};
  std::vector<float> prices(kOptions);
  const auto start = std::chrono::steady_clock::now();
  for (int pass = 0; pass < passes; ++pass) {
#pragma omp parallel
    {
      std::vector<float> call(kSteps + 1);
#pragma omp for schedule(dynamic, 8)
      for (int i = 0; i < kOptions; ++i) prices[size_t(i)] = price(options[size_t(i)], call);
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double sum = 0, off = 0;
  for (int i = 0; i < kOptions; ++i) {
    sum += prices[size_t(i)];
    off += std::fabs(prices[size_t(i)] - black_scholes(options[size_t(i)]));
  }
  const bool ok = off / sum < 1e-3;
  std::printf(
      "binomial (plain loops): %d passes of %d options in %.3f s, %s (L1 distance "
      "from Black-Scholes %.2e)\n",
      passes, kOptions, seconds, ok ? "as Black-Scholes" : "WRONG", off / sum);
  return !ok;
}
