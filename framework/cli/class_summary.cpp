// cudalab grade's class summary as a picture (summary.png): the totals'
// histogram, each test's pass rate and the most common findings, drawn
// pixel by pixel with stb's font, written with stb_image_write.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_easy_font.h>
#include <stb/stb_image_write.h>

#include "class_grading.h"
#include "one_submission.h"

namespace cudalab::cli {
namespace {

class Canvas {
 public:
  Canvas(int w, int h) : w_(w), h_(h), px_(size_t(w) * h * 3, 255) {}
  void rect(int x0, int y0, int x1, int y1, uint32_t rgb) {
    for (int y = std::max(0, y0); y < std::min(h_, y1); ++y)
      for (int x = std::max(0, x0); x < std::min(w_, x1); ++x) {
        uint8_t* p = &px_[(size_t(y) * w_ + x) * 3];
        p[0] = uint8_t(rgb >> 16), p[1] = uint8_t(rgb >> 8), p[2] = uint8_t(rgb);
      }
  }
  // Text with stb's easy font (quads), scaled up.
  void text(int x, int y, const std::string& s, int scale, uint32_t rgb) {
    static char buffer[200000];
    const int quads =
        stb_easy_font_print(0, 0, const_cast<char*>(s.c_str()), nullptr, buffer, sizeof(buffer));
    const float* v = reinterpret_cast<const float*>(buffer);
    for (int q = 0; q < quads; ++q) {
      const float* k = v + q * 16;  // 4 vertices of x, y, z, colour
      rect(x + int(k[0] * scale), y + int(k[1] * scale), x + int(k[8] * scale),
           y + int(k[9] * scale), rgb);
    }
  }
  int text_width(const std::string& s, int scale) {
    return stb_easy_font_width(const_cast<char*>(s.c_str())) * scale;
  }
  bool save(const fs::path& p) {
    return stbi_write_png(p.c_str(), w_, h_, 3, px_.data(), w_ * 3) != 0;
  }

 private:
  int w_, h_;
  std::vector<uint8_t> px_;
};

}  // namespace

void draw_summary(const Summary& s, const fs::path& png) {
  const int W = 1600, H = 900;
  Canvas c(W, H);
  c.text(40, 24, "cudalab: " + s.lesson + ", " + std::to_string(s.students) + " students", 4,
         0x202020);
  // Left: the histogram of totals, one bar per point.
  const int bins = std::max(1, int(std::ceil(s.max_score))) + 1;
  std::vector<int> count(size_t(bins), 0);
  for (double t : s.totals) count[size_t(std::clamp(int(std::floor(t)), 0, bins - 1))]++;
  const int top = *std::max_element(count.begin(), count.end());
  const int x0 = 60, y0 = 120, w = 700, h = 620;
  c.text(x0, y0 - 40, "students by total points", 3, 0x404040);
  c.rect(x0, y0 + h, x0 + w, y0 + h + 2, 0x404040);
  const int bw = w / bins;
  for (int b = 0; b < bins; ++b) {
    const int bh = top ? int(double(count[size_t(b)]) / top * (h - 30)) : 0;
    c.rect(x0 + b * bw + 3, y0 + h - bh, x0 + (b + 1) * bw - 3, y0 + h, 0x3b7dd8);
    if (count[size_t(b)])
      c.text(x0 + b * bw + bw / 2 - 6, y0 + h - bh - 22, std::to_string(count[size_t(b)]), 2,
             0x202020);
    if (bins <= 25 || b % 2 == 0)
      c.text(x0 + b * bw + bw / 2 - 6, y0 + h + 10, std::to_string(b), 2, 0x202020);
  }
  // Right: the pass rate of each test.
  const int rx = 840, rw = 720;
  c.text(rx, y0 - 40, "pass rate per test", 3, 0x404040);
  const int rows = int(s.pass_rate.size());
  const int rh = rows ? std::min(40, (h - 10) / rows) : 40;
  for (int i = 0; i < rows; ++i) {
    const auto& [name, rate] = s.pass_rate[size_t(i)];
    const int y = y0 + i * rh;
    c.text(rx, y + rh / 2 - 8, name.substr(0, 26), 2, 0x202020);
    const int bx = rx + 330, full = rw - 330 - 70;
    c.rect(bx, y + 4, bx + full, y + rh - 4, 0xe6e6e6);
    c.rect(bx, y + 4, bx + int(rate * full), y + rh - 4, rate >= 0.5 ? 0x4caf50 : 0xe8833a);
    c.text(bx + full + 8, y + rh / 2 - 8, std::to_string(int(std::lround(rate * 100))) + "%", 2,
           0x202020);
  }
  if (!s.findings.empty())
    c.text(60, H - 70,
           "most common finding: " + s.findings[0].first + " (" +
               std::to_string(s.findings[0].second) + " students)",
           2, 0x802020);
  c.save(png);
}

std::string summary_text(const Summary& sum, uint64_t seed,
                         const std::vector<std::string>& problems) {
  std::ostringstream text;
  text << "cudalab: lesson " << sum.lesson << ", " << sum.students << " students (seed " << seed
       << ")\n\n";
  double mean = 0;
  for (double t : sum.totals) mean += t;
  mean = sum.totals.empty() ? 0 : mean / double(sum.totals.size());
  std::vector<double> sorted = sum.totals;
  std::sort(sorted.begin(), sorted.end());
  text << "total points: mean " << points_text(std::round(mean * 10) / 10) << ", median "
       << points_text(sorted.empty() ? 0 : sorted[sorted.size() / 2]) << " of "
       << points_text(sum.max_score) << "\n";
  for (const auto& [status, n] : sum.statuses) text << "  " << status << ": " << n << "\n";
  text << "\npoints  students\n";
  const int bins = int(std::ceil(sum.max_score)) + 1;
  std::vector<int> hist(size_t(std::max(bins, 1)), 0);
  for (double t : sum.totals) hist[size_t(std::clamp(int(std::floor(t)), 0, bins - 1))]++;
  for (int b = 0; b < bins; ++b)
    text << (b < 10 ? "     " : "    ") << b << "  " << std::string(size_t(hist[size_t(b)]), '#')
         << " " << hist[size_t(b)] << "\n";
  text << "\npass rate per test\n";
  for (const auto& [name, rate] : sum.pass_rate) {
    char line[200];
    std::snprintf(line, sizeof(line), "  %-28s %3.0f%%\n", name.c_str(), rate * 100);
    text << line;
  }
  text << "\nmost common findings of the checks (students)\n";
  if (sum.findings.empty()) text << "  none\n";
  for (size_t i = 0; i < std::min<size_t>(10, sum.findings.size()); ++i)
    text << "  " << sum.findings[i].first << ": " << sum.findings[i].second << "\n";
  // The class by predicted time: the ten fastest and the slowest
  // (ranking.csv has everyone).
  for (const auto& [what, times] : sum.predicted) {
    text << "\nranked by predicted time: " << what << ", fastest first\n";
    if (times.empty()) text << "  none predicted (its test must pass, and launch the kernel)\n";
    for (size_t i = 0; i < times.size(); ++i) {
      if (i == 10 && times.size() > 11) {
        text << "  ... " << times.size() - 11 << " more in ranking.csv\n";
        i = times.size() - 1;
      }
      char line[200];
      std::snprintf(line, sizeof(line), "  %3zu. %-28s %10.4g us\n", i + 1, times[i].first.c_str(),
                    times[i].second);
      text << line;
    }
  }
  for (const auto& p : problems) text << "\nnot graded: " << p << "\n";
  return text.str();
}

}  // namespace cudalab::cli
