// Known-wrong submissions are kept as unified diffs of the solution
// (`diff -u solution.cu mine.cu`): this applies one, hunk by hunk, and
// says which hunk no longer fits. Kept apart (no other dependency) so that
// it is unit tested and fuzzed on its own.
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "cli.h"

namespace cudalab::cli {

namespace {
std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}
}  // namespace

std::string apply_to_solution(const std::string& solution, const std::string& diff) {
  std::vector<std::string> lines = split_lines(solution);
  const std::vector<std::string> patch = split_lines(diff);
  size_t i = 0;
  while (i < patch.size() && patch[i].rfind("@@ ", 0) != 0) ++i;
  if (i == patch.size()) throw std::runtime_error("it holds no change (no @@ hunk)");
  long shift = 0;  // lines the hunks so far added, less those they removed
  while (i < patch.size()) {
    // "@@ -12,7 +12,6 @@": the hunk's old lines start at line 12.
    const std::string& head = patch[i];
    const long old_start = std::strtol(head.c_str() + 4, nullptr, 10);
    if (old_start < 0 || old_start > (1L << 30))  // no arithmetic past long's range
      throw std::runtime_error("the hunk at " + head +
                               " no longer fits the solution: remake the file with diff -u");
    std::vector<std::string> before, after;
    for (++i; i < patch.size() && patch[i].rfind("@@ ", 0) != 0; ++i) {
      const std::string& l = patch[i];
      const char kind = l.empty() ? ' ' : l[0];
      const std::string text = l.empty() ? "" : l.substr(1);
      if (kind == ' ' || kind == '-') before.push_back(text);
      if (kind == ' ' || kind == '+') after.push_back(text);
      if (kind != ' ' && kind != '-' && kind != '+' && kind != '\\')
        throw std::runtime_error("line '" + l + "' of the hunk at " + head +
                                 " is not a line of a unified diff");
    }
    const long at = old_start - 1 + shift + (before.empty() ? 1 : 0);
    const bool fits = at >= 0 && size_t(at) + before.size() <= lines.size() &&
                      std::equal(before.begin(), before.end(), lines.begin() + at);
    if (!fits)
      throw std::runtime_error("the hunk at " + head +
                               " no longer fits the solution: remake the file with diff -u");
    lines.erase(lines.begin() + at, lines.begin() + at + long(before.size()));
    lines.insert(lines.begin() + at, after.begin(), after.end());
    shift += long(after.size()) - long(before.size());
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

}  // namespace cudalab::cli
