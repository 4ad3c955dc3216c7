// Timing for the calibration's probes (histogram_atomics.cu,
// one_address_atomics.cu, shared_atomics.cu, model_gaps.cu, gather_lines.cu,
// divergence.cu): a launch
// between two CUDA events, `reps` times, each after `before` (a reset not
// timed), the best or the median of them in milliseconds.
#pragma once

#include <algorithm>
#include <vector>

template <class Before, class Launch>
std::vector<float> probe_times_ms(int reps, Before before, Launch launch) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    before();
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t;
}
template <class Before, class Launch>
float best_ms(int reps, Before before, Launch launch) {
  return probe_times_ms(reps, before, launch).front();
}
template <class Launch>
float median_ms(int reps, Launch launch) {
  const std::vector<float> t = probe_times_ms(
      reps, [] {}, launch);
  return t[t.size() / 2];
}
