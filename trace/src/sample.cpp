#include "cudalab/trace/sample.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace cudalab::trace {
namespace {

// An index's class in a dimension of `g`: 0 the first, 2 the last, 1 between.
int position(uint32_t i, uint32_t g) { return i == 0 ? 0 : i + 1 == g ? 2 : 1; }

// The indices of class `c` in a dimension of `g`: [first, first + count).
std::pair<uint32_t, uint32_t> range(int c, uint32_t g) {
  if (c == 0) return {0, 1};
  if (c == 2) return {g - 1, g > 1 ? 1 : 0};
  return {1, g > 2 ? g - 2 : 0};
}

int class_of(uint32_t linear, uint32_t gx, uint32_t gy, uint32_t gz) {
  const uint32_t x = linear % gx, y = (linear / gx) % gy, z = linear / (gx * gy);
  return position(x, gx) * 9 + position(y, gy) * 3 + position(z, gz);
}

uint64_t class_size(int c, uint32_t gx, uint32_t gy, uint32_t gz) {
  return uint64_t(range(c / 9, gx).second) * range(c / 3 % 3, gy).second * range(c % 3, gz).second;
}

}  // namespace

size_t sample_kinds(uint32_t gx, uint32_t gy, uint32_t gz) {
  gx = std::max(gx, 1u), gy = std::max(gy, 1u), gz = std::max(gz, 1u);
  size_t kinds = 0;
  for (int c = 0; c < 27; ++c) kinds += class_size(c, gx, gy, gz) > 0;
  return kinds;
}

std::vector<uint32_t> sample_blocks(uint32_t gx, uint32_t gy, uint32_t gz, uint64_t wanted) {
  gx = std::max(gx, 1u), gy = std::max(gy, 1u), gz = std::max(gz, 1u);
  const uint64_t blocks = uint64_t(gx) * gy * gz;
  std::vector<uint32_t> out;
  if (wanted == 0 || wanted >= blocks) {
    out.resize(blocks);
    for (uint64_t i = 0; i < blocks; ++i) out[i] = uint32_t(i);
    return out;
  }
  std::vector<uint32_t> rest;  // after each class's first
  for (int c = 0; c < 27; ++c) {
    const uint64_t size = class_size(c, gx, gy, gz);
    if (size == 0) continue;
    const auto [x0, nx] = range(c / 9, gx);
    const auto [y0, ny] = range(c / 3 % 3, gy);
    const auto [z0, nz] = range(c % 3, gz);
    const uint64_t take = std::clamp<uint64_t>(
        uint64_t(std::llround(double(wanted) * double(size) / double(blocks))), 1, size);
    for (uint64_t k = 0; k < take; ++k) {
      // Evenly through the class, in the middle of each share.
      const uint64_t j = uint64_t((double(k) + 0.5) * double(size) / double(take));
      const uint64_t x = x0 + j % nx, y = y0 + (j / nx) % ny, z = z0 + j / (uint64_t(nx) * ny);
      (k == 0 ? out : rest).push_back(uint32_t(x + y * gx + z * uint64_t(gx) * gy));
    }
  }
  std::sort(rest.begin(), rest.end());
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

std::vector<double> sample_weights(uint32_t gx, uint32_t gy, uint32_t gz,
                                   const std::vector<uint32_t>& sample) {
  gx = std::max(gx, 1u), gy = std::max(gy, 1u), gz = std::max(gz, 1u);
  std::array<uint64_t, 27> in_sample{};
  for (uint32_t b : sample) ++in_sample[size_t(class_of(b, gx, gy, gz))];
  std::vector<double> w;
  w.reserve(sample.size());
  for (uint32_t b : sample) {
    const int c = class_of(b, gx, gy, gz);
    w.push_back(double(class_size(c, gx, gy, gz)) / double(in_sample[size_t(c)]));
  }
  return w;
}

}  // namespace cudalab::trace
