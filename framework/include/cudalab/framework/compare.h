// Comparing a kernel's results with the CPU reference, and saying what is
// wrong in a student's words: the first wrong elements, their index, the
// value expected, and (on the simulator) the thread and block that wrote
// them, or that no thread did.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace cudalab {

struct Tolerance {
  double absolute = 0;
  double relative = 0;
};

struct CompareResult {
  size_t wrong = 0;  // elements outside the tolerance, NaN or Inf
  size_t checked = 0;
  bool ok() const { return wrong == 0; }
};

// Compares got[0..n) with want[0..n). `device` is where `got` was copied
// from; on the simulator it names the writer of each wrong element. Writes
// up to `show` wrong elements to `out`, as "name[i]". `row_length`: the
// elements of one row of a matrix or grid (0: a flat array), so that the
// viewer draws the wrong elements in rows.
CompareResult compare(const float* got, const float* want, size_t n, Tolerance tol,
                      const std::string& name, const void* device, std::ostream& out,
                      size_t show = 5, size_t row_length = 0);
CompareResult compare(const double* got, const double* want, size_t n, Tolerance tol,
                      const std::string& name, const void* device, std::ostream& out,
                      size_t show = 5, size_t row_length = 0);
// Whole numbers (a scan's sums, a histogram's counts) must be equal.
CompareResult compare(const int32_t* got, const int32_t* want, size_t n, const std::string& name,
                      const void* device, std::ostream& out, size_t show = 5,
                      size_t row_length = 0);
CompareResult compare(const uint32_t* got, const uint32_t* want, size_t n, const std::string& name,
                      const void* device, std::ostream& out, size_t show = 5,
                      size_t row_length = 0);

// A graded test's output buffer starts as 0xff bytes (NaN for floats, -1
// for ints) with `guard` more elements after its end, so that elements no
// thread wrote and writes past the end both show.
constexpr unsigned char kUnwritten = 0xff;

// Whether got[0..n) all still hold that marker: the kernel wrote nothing.
template <class T>
bool nothing_written(const T* got, size_t n) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(got);
  for (size_t i = 0; i < n * sizeof(T); ++i)
    if (bytes[i] != kUnwritten) return false;
  return true;
}

// The index of the first element after got[0..n) (of `guard`) that a kernel
// changed, or -1 when none.
template <class T>
long written_past_end(const T* got, size_t n, size_t guard) {
  for (size_t k = 0; k < guard; ++k)
    if (!nothing_written(got + n + k, 1)) return long(n + k);
  return -1;
}

// After a call of the student's code: "" when its kernels ran to their end,
// otherwise why not.
std::string launch_problem();
// The same as a CUDA error: the last launch error, else the error of waiting
// for the device (cudaSuccess when all went well). In the judge, the error
// the submission's process saw.
cudaError_t last_call_error();

// "thread (3,0,0) of block (12,0,0)", "no thread (never written)", or "" when
// the simulator cannot tell (a GPU build, or writer tracking off).
std::string describe_writer(const void* device_address);

// Starts remembering which thread writes each device byte (simulator,
// instrumented builds); a no-op elsewhere. Returns whether it is on.
bool track_writers();

// Deterministic test data: `n` floats in [lo, hi) from `seed`.
std::vector<float> random_floats(size_t n, uint64_t seed, float lo = -1.f, float hi = 1.f);
// `n` whole numbers in [lo, hi] from `seed`.
std::vector<int32_t> random_ints(size_t n, uint64_t seed, int32_t lo, int32_t hi);

// True when a CUDA device can run kernels (always on the simulator).
bool device_available(std::string* why);

}  // namespace cudalab
