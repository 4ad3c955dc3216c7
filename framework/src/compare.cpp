// Result comparison with a student-readable account of what is wrong.
#include "cudalab/framework/compare.h"

#include <cuda_runtime.h>

#include <cmath>
#include <sstream>
#include <type_traits>

#include "channel.h"
#include "cudalab/trace/comparison_json.h"
#ifdef CUDALAB_SIMULATOR
#include "cudalab/sim.h"
#endif

namespace cudalab {

std::string describe_writer(const void* device_address) {
  if (grading::judging()) return grading::remote_writer(device_address);
#ifdef CUDALAB_SIMULATOR
  if (!sim::instrumented()) return "";
  sim::Writer w = sim::last_writer(device_address);
  if (!w.known)
    return "no thread wrote it: it holds what was there before the launch (copied in with "
           "cudaMemcpy, or left from an earlier step)";
  std::ostringstream s;
  s << "written by thread (" << w.thread.x << "," << w.thread.y << "," << w.thread.z
    << ") of block (" << w.block.x << "," << w.block.y << "," << w.block.z << ")";
  return s.str();
#else
  (void)device_address;
  return "";
#endif
}

bool track_writers() {
  if (grading::judging()) return grading::remote_track_writers();
#ifdef CUDALAB_SIMULATOR
  if (!sim::instrumented()) return false;
  sim::track_writers(true);
  return true;
#else
  return false;
#endif
}

namespace {

// A value for JSON, which has no NaN or infinity: those as words.
template <class T>
nlohmann::json json_value(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  }
  return v;
}

// A kept comparison lists the values of its first wrong elements, and where
// all of them are as runs of consecutive indices (up to a limit).
constexpr size_t kKeptValues = 1024, kKeptRuns = size_t(1) << 16;

// Any element type: floating-point values within the tolerance, whole
// numbers equal (their tolerance is zero).
template <class T>
CompareResult compare_values(const T* got, const T* want, size_t n, Tolerance tol,
                             const std::string& name, const void* device, std::ostream& out,
                             size_t show, size_t row_length) {
  CompareResult r;
  r.checked = n;
  nlohmann::json kept = nlohmann::json::array();    // [index, got, expected] of the first wrong
  std::vector<std::pair<uint64_t, uint64_t>> runs;  // [first index, count] of all wrong
  const bool keep = device && grading::keeping_comparisons();
  for (size_t i = 0; i < n; ++i) {
    bool finite = true;
    if constexpr (std::is_floating_point_v<T>) {
      const double g = got[i], w = want[i];
      finite = std::isfinite(g);
      const double allowed = tol.absolute + tol.relative * std::fabs(w);
      if (finite && std::fabs(g - w) <= allowed) continue;
    } else if (got[i] == want[i]) {
      continue;
    }
    if (keep && kept.size() < kKeptValues)
      kept.push_back({i, json_value(got[i]), json_value(want[i])});
    if (keep && !runs.empty() && runs.back().first + runs.back().second == i)
      ++runs.back().second;
    else if (keep && runs.size() < kKeptRuns)
      runs.emplace_back(i, 1);
    if (r.wrong++ < show) {
      out << "  " << name << "[" << i << "] is " << got[i];
      if (!finite) out << " (not a finite number)";
      out << ", expected " << want[i];
      if (device) {
        std::string who = describe_writer(static_cast<const char*>(device) + i * sizeof(T));
        if (!who.empty()) out << "; " << who;
      }
      out << "\n";
    }
  }
  if (r.wrong > show) out << "  ... and " << (r.wrong - show) << " more wrong elements\n";
  if (r.wrong) out << "  " << r.wrong << " of " << n << " elements are wrong (first at the top)\n";
  if (keep) {
    uint64_t offset = 0;
    const uint32_t allocation = grading::remote_allocation_id(device, &offset);
    trace::Comparison c;
    c.name = name;
    c.allocation = allocation;
    c.offset = offset;
    c.element_bytes = sizeof(T);
    c.row_length = row_length;
    c.count = n;
    c.wrong = r.wrong;
    c.absolute = tol.absolute;
    c.relative = tol.relative;
    c.runs = std::move(runs);
    grading::note_comparison(trace::comparison_json(c, std::move(kept)));
  }
  return r;
}

}  // namespace

CompareResult compare(const float* got, const float* want, size_t n, Tolerance tol,
                      const std::string& name, const void* device, std::ostream& out, size_t show,
                      size_t row_length) {
  return compare_values(got, want, n, tol, name, device, out, show, row_length);
}
CompareResult compare(const double* got, const double* want, size_t n, Tolerance tol,
                      const std::string& name, const void* device, std::ostream& out, size_t show,
                      size_t row_length) {
  return compare_values(got, want, n, tol, name, device, out, show, row_length);
}
CompareResult compare(const int32_t* got, const int32_t* want, size_t n, const std::string& name,
                      const void* device, std::ostream& out, size_t show, size_t row_length) {
  return compare_values(got, want, n, {}, name, device, out, show, row_length);
}
CompareResult compare(const uint32_t* got, const uint32_t* want, size_t n, const std::string& name,
                      const void* device, std::ostream& out, size_t show, size_t row_length) {
  return compare_values(got, want, n, {}, name, device, out, show, row_length);
}

namespace {

// splitmix64: the next of a sequence of well-mixed 64-bit values. Fast
// enough for 64M-element tests (the standard distributions take a second
// for 16M).
uint64_t next_mixed(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<int32_t> random_ints(size_t n, uint64_t seed, int32_t lo, int32_t hi) {
  const uint64_t range = uint64_t(int64_t(hi) - lo) + 1;
  std::vector<int32_t> v(n);
  uint64_t state = seed;
  for (auto& x : v) x = int32_t(int64_t(lo) + int64_t(next_mixed(state) % range));
  return v;
}

std::vector<float> random_floats(size_t n, uint64_t seed, float lo, float hi) {
  std::vector<float> v(n);
  uint64_t state = seed;
  for (auto& x : v) {
    const float unit = float(next_mixed(state) >> 40) * 0x1p-24f;  // 24 bits: [0, 1)
    x = lo + (hi - lo) * unit;
    if (x >= hi) x = lo;  // rounding can reach hi
  }
  return v;
}

bool device_available(std::string* why) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    if (why) *why = e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device";
    cudaGetLastError();
    return false;
  }
  return true;
}

cudaError_t last_call_error() {
  if (grading::judging()) return grading::remote_last_error();
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  return e;
}

std::string launch_problem() {
  const cudaError_t e = last_call_error();
  if (e == cudaSuccess) return "";
  return std::string("the kernel did not finish: ") + cudaGetErrorName(e) + " (" +
         cudaGetErrorString(e) + ")\n";
}

}  // namespace cudalab
