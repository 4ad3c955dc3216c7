// What the lessons' programs share for --bench: stopping with a clear
// message on a CUDA error, and timing launches with CUDA events. On the
// simulator the events time the CPU; on a GPU, the GPU.
#pragma once

#include <cuda_runtime.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace cudalab {

// Ends the program, naming what failed and why, when `e` is an error.
inline void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "%s: %s failed: %s (%s)\n", program_invocation_short_name, what,
               cudaGetErrorString(e), cudaGetErrorName(e));
  std::exit(1);
}

// Whether a --bench run takes a GPU's sizes: on a GPU, and on the simulator
// when `cudalab predict` runs it (only a sample of each launch's blocks
// runs, CUDALAB_TRACE_SAMPLE), so that the time predicted is of the same
// work as the GPU's run. A lesson whose --bench is smaller on the simulator
// asks this.
inline bool gpu_sized_run() {
#ifdef CUDALAB_SIMULATOR
  // (A sample of 0 is every block: the CPU would run the GPU's sizes whole.)
  const char* sample = std::getenv("CUDALAB_TRACE_SAMPLE");
  return sample && std::atol(sample) > 0;
#else
  return true;
#endif
}

#ifdef CUDALAB_SIMULATOR
// Said once a program, before the first timing of a benchmark (several
// calls): a GPU-sized --bench takes long on the CPU, and its times are not a
// GPU's. (Not in cudalab predict's own run of a sample of the blocks, which
// it reports on.) One function for every average_ms, whose lambdas make each
// call a function of its own.
inline void say_simulator_times_are_the_cpus() {
  static bool said = false;
  if (said || std::getenv("CUDALAB_TRACE_SAMPLE")) return;
  said = true;
  std::fprintf(stderr,
               "%s: on the simulator these times are the CPU's, not a GPU's, and a GPU-sized "
               "run takes long; each kernel's time on a GPU, predicted in seconds: cudalab run "
               "%s --predict -- --bench\n",
               program_invocation_short_name, program_invocation_short_name);
}
#endif

// Milliseconds per call of run(), averaged over `reps` calls after one
// warm-up call; `what` names the work if it fails.
template <class Run>
float average_ms(Run&& run, int reps, const char* what) {
#ifdef CUDALAB_SIMULATOR
  if (reps > 1) say_simulator_times_are_the_cpus();
#endif
  run();
  check(cudaGetLastError(), what);
  check(cudaDeviceSynchronize(), what);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  for (int r = 0; r < reps; ++r) run();
  cudaEventRecord(stop);
  check(cudaEventSynchronize(stop), what);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms / float(reps);
}

// The machine's memory limit: GB/s of a device-to-device copy of `bytes`,
// counting what it reads and what it writes.
inline double copy_gbs(void* to, const void* from, size_t bytes, int reps) {
  const float ms = average_ms([&] { cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToDevice); }, reps,
                              "a device copy");
  return 2.0 * double(bytes) / (double(ms) * 1e-3) / 1e9;
}

// Milliseconds per call of run() on the host (one CPU core), averaged over
// `reps` calls after one warm-up call: the CPU's time beside a kernel's.
template <class Run>
double host_ms(Run&& run, int reps) {
  run();
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) run();
  const std::chrono::duration<double, std::milli> spent = std::chrono::steady_clock::now() - start;
  return spent.count() / reps;
}

// Where this build's kernels run, for a program's report of its times.
inline const char* kernels_run_on() {
#ifdef CUDALAB_SIMULATOR
  return "the cudalab simulator (CPU threads)";
#else
  return "the GPU";
#endif
}

}  // namespace cudalab
