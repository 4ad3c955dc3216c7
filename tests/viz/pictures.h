// What the viewer's tests share: running a command (its output and exit
// status), and counting the pixels of a screenshot that a test looks for,
// in all of it or in one region. A test file defines
// STB_IMAGE_IMPLEMENTATION before including this header.
#pragma once

#include <stb/stb_image.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace viz_test {

// `cmd` through the shell, stderr with stdout; its exit status (-1 when it
// did not exit).
inline int run(const std::string& cmd, std::string* out = nullptr) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  std::string all;
  while (size_t n = fread(buf, 1, sizeof(buf), p)) all.append(buf, n);
  int st = pclose(p);
  if (out) *out = all;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
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
