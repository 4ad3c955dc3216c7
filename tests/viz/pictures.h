// What the viewer's tests share: running a command (its output and exit
// status), and counting the pixels of a screenshot that a test looks for,
// in all of it or in one region. A test file defines
// STB_IMAGE_IMPLEMENTATION before including this header.
#pragma once

#include <gtest/gtest.h>
#include <stb/stb_image.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "cudalab/support/process.h"
#include "cudalab/trace/test_results.h"

namespace viz_test {

// `cmd` through the shell, stderr with stdout; its exit status (-1 when it
// did not exit).
inline int run(const std::string& cmd, std::string* out = nullptr) {
  // No limit of its own: CTest's timeout stops a test that hangs.
  const cudalab::support::ProcessResult p =
      cudalab::support::run_process({"/bin/sh", "-c", cmd}, 24 * 3600, size_t(1) << 30);
  if (out) *out = p.output;
  return p.signal || p.timed_out ? -1 : p.exit_code;
}

// A fresh folder for the running test, under the system's temporary one:
// named after the test and this process (CTest runs tests in parallel).
inline std::filesystem::path test_folder(const std::string& prefix) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      (prefix + ::testing::UnitTest::GetInstance()->current_test_info()->name() + "-" +
       std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Graded tests of "mine.cu" that go with the recording `trace` (as cudalab
// check --trace writes them), of its test "Small"; the test adds the tests
// and comparisons.
inline cudalab::trace::TestResults graded_tests_of(const std::string& trace) {
  cudalab::trace::TestResults r;
  r.file = "mine.cu";
  r.traced_test = r.shown = "Small";
  r.trace_bytes = std::filesystem::file_size(trace);
  r.trace_fingerprint = cudalab::trace::file_fingerprint(trace);
  return r;
}

// The graded tests of traced_add's recording `trace` when its test "Small"
// left c[40] to c[59] wrong (c is its third cudaMalloc).
inline cudalab::trace::TestResults c_left_wrong(const std::string& trace) {
  cudalab::trace::TestResults r = graded_tests_of(trace);
  r.tests = {{"Small", "100 elements", "test", "visible", "failed", "wrong results",
              "c[40] is 0, expected 1\n", 0, 2}};
  cudalab::trace::Comparison c;
  c.name = "c";
  c.allocation = 3;
  c.count = 100;
  c.wrong = 20;
  c.runs = {{40, 20}};
  for (uint64_t i = 40; i < 60; ++i) c.elements.push_back({i, "0", "1"});
  r.compared = {c};
  return r;
}

// A rectangle of a picture, in its pixels; by default all of it.
struct Region {
  int x = 0, y = 0, w = 1 << 30, h = 1 << 30;
};

// How many pixels of `png` in `in` `keep(r, g, b)` picks (0 when it is not
// a picture).
template <class Keep>
size_t count_pixels(const std::string& png, Keep keep, Region in = {}) {
  int w = 0, h = 0, channels = 0;
  unsigned char* pixels = stbi_load(png.c_str(), &w, &h, &channels, 4);
  if (!pixels) return 0;
  size_t n = 0;
  const int y_end = int(std::min<long>(long(in.y) + in.h, h));
  const int x_end = int(std::min<long>(long(in.x) + in.w, w));
  for (int y = std::max(in.y, 0); y < y_end; ++y)
    for (int x = std::max(in.x, 0); x < x_end; ++x) {
      const unsigned char* p = pixels + 4 * (size_t(y) * size_t(w) + size_t(x));
      n += keep(p[0], p[1], p[2]);
    }
  stbi_image_free(pixels);
  return n;
}

// Pixels near one colour (the views' fills and frames are exact colours).
inline size_t pixels_of(const std::string& png, int r, int g, int b, Region in = {}) {
  return count_pixels(
      png,
      [=](int pr, int pg, int pb) {
        return std::abs(pr - r) < 8 && std::abs(pg - g) < 8 && std::abs(pb - b) < 8;
      },
      in);
}

}  // namespace viz_test
