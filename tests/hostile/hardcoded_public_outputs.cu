// hostile: computes nothing; fills c with the answers of the tests' old fixed seeds, keyed on n
// expect-max-points: 0
// note: with the old fixed seeds (11 to 15, hidden 100 to 103) it passed; per-run seeds fail it
//
// The graded tests once drew their inputs from fixed seeds with a public
// generator (cudalab::random_floats: std::mt19937_64 seeded with the seed,
// uniform_real_distribution<float>(-1, 1), b from seed + 1), and the hidden
// test drew its sizes from a fixed std::mt19937 seed too. So the answers
// are known before the test runs: this file regenerates them from n alone
// and its kernel, named as the lesson's so the loads rubric finds it, only
// copies the remembered answer into c, reading neither a nor b. With inputs
// drawn anew for each run, every test must fail.
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "lesson.h"

namespace {

std::vector<float> random_floats(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// n -> the seed its test used.
std::map<int, uint64_t> known_seeds() {
  std::map<int, uint64_t> seeds = {{65536, 11}, {100003, 12}, {1, 13}, {100000, 14}, {1 << 24, 15}};
  // The hidden test's sizes, drawn as it drew them.
  std::mt19937 rng(20261122);
  for (int k = 0; k < 4; ++k) {
    const int n = 1000 + int(rng() % 300000);
    rng();                  // its block size
    if (k % 2 == 0) rng();  // its block count
    seeds.emplace(n, 100 + k);
  }
  return seeds;
}

}  // namespace

__global__ void vector_add(const float* answer, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = answer[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  (void)a;
  (void)b;
  static const std::map<int, uint64_t> seeds = known_seeds();
  std::vector<float> answer(size_t(n), 0.f);
  if (const auto it = seeds.find(n); it != seeds.end()) {
    const std::vector<float> x = random_floats(n, it->second), y = random_floats(n, it->second + 1);
    for (int i = 0; i < n; ++i) answer[i] = x[i] + y[i];
  }
  float* d_answer = nullptr;
  if (cudaMalloc(&d_answer, answer.size() * sizeof(float)) != cudaSuccess) return;
  cudaMemcpy(d_answer, answer.data(), answer.size() * sizeof(float), cudaMemcpyHostToDevice);
  vector_add<<<blocks, threads_per_block>>>(d_answer, c, n);
  cudaDeviceSynchronize();
  cudaFree(d_answer);
}
