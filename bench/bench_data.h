// What the benchmark programs share with their peers (bench/peers/): the same
// inputs and the same check of the result, so that each times the same work.
#pragma once

#include <cmath>
#include <vector>

// Vector add: a[i] = i % 1000, b[i] = 2.
inline void fill_vector_add_inputs(std::vector<float>& a, std::vector<float>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = float(i % 1000);
    b[i] = 2.0f;
  }
}

// Matmul of n x n: small exact values, so that sums are the same in any order.
inline void fill_matmul_inputs(std::vector<float>& a, std::vector<float>& b, int n) {
  for (int i = 0; i < n * n; ++i) a[i] = float(i % 7) * 0.5f, b[i] = float(i % 5) - 2.0f;
}

// The elements of c = a x b, on a grid of rows and columns, that differ from
// the CPU's.
inline int matmul_wrong(const std::vector<float>& a, const std::vector<float>& b,
                        const std::vector<float>& c, int n) {
  int wrong = 0;
  for (int i = 0; i < n; i += 37)
    for (int j = 0; j < n; j += 41) {
      float want = 0;
      for (int k = 0; k < n; ++k) want += a[i * n + k] * b[k * n + j];
      wrong += std::abs(want - c[i * n + j]) > 1e-3f * std::abs(want) + 1e-3f;
    }
  return wrong;
}

// Block sum: zeros and ones, so that every float sum (at most 2^23) is
// exact in any order.
inline void fill_block_sum_input(std::vector<float>& in) {
  for (size_t i = 0; i < in.size(); ++i) in[i] = float(i % 2);
}

// Shortest paths by relaxation (Floyd-Warshall's step k, as HeCBench's
// floydwarshall writes it): a 1024-node graph whose edge i -> j costs
// 1 + (i * 7 + j * 13) % 97, and 0 on the diagonal; integers, so that any
// order gives the same result.
inline void fill_relax_input(std::vector<int>& d, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) d[size_t(i) * n + j] = i == j ? 0 : 1 + (i * 7 + j * 13) % 97;
}
// The rows of `got` that differ from the distances after steps
// k = 0 .. steps - 1, among rows 0 .. steps - 1 (which every step reads)
// and every 37th row: the CPU's check stays small beside the work timed.
inline int relax_wrong(std::vector<int> d, const std::vector<int>& got, int n, int steps) {
  std::vector<int> rows;
  for (int i = 0; i < n; ++i)
    if (i < steps || i % 37 == 0) rows.push_back(i);
  for (int k = 0; k < steps; ++k)
    for (int i : rows)
      for (int j = 0; j < n; ++j) {
        const int via = d[size_t(i) * n + k] + d[size_t(k) * n + j];
        if (via < d[size_t(i) * n + j]) d[size_t(i) * n + j] = via;
      }
  int wrong = 0;
  for (int i : rows)
    for (int j = 0; j < n; ++j) wrong += got[size_t(i) * n + j] != d[size_t(i) * n + j];
  return wrong;
}
