// Rewritten copies of the local headers a .cu file includes (see
// local_headers.h).
#include "rewriter/local_headers.h"

#include <fstream>
#include <regex>
#include <sstream>

#include "rewriter/rewrite.h"

namespace cudalab::rewriter {

namespace fs = std::filesystem;

LocalHeaders::LocalHeaders(std::vector<fs::path> include_dirs, fs::path root)
    : include_dirs_(std::move(include_dirs)), root_(std::move(root)) {}

namespace {
// A path as a C string literal, for #line and #include.
std::string quoted(const fs::path& path) {
  std::string text = "\"";
  for (char c : path.string()) {
    if (c == '"' || c == '\\') text += '\\';
    text += c;
  }
  return text + '"';
}
}  // namespace

std::vector<LocalHeaders::Problem> LocalHeaders::rewrite_included(const fs::path& original,
                                                                  const std::string& text,
                                                                  const fs::path& out_dir) {
  std::vector<Problem> problems;
  forwards_.clear();
  visit(original, text, out_dir, "", problems);
  // A copy's quoted includes are looked for beside the copy first: what it
  // includes from beside the original, and has no copy of its own, gets a
  // forwarding header there that includes the original (src/a.cuh's copy including
  // "b.cuh", the src/b.cuh beside it).
  for (const Forward& forward : forwards_) {
    if (!written_.count(forward.includer_key) || written_.count(forward.target_key) ||
        written_paths_.count(forward.at.string()))
      continue;
    fs::create_directories(forward.at.parent_path());
    std::ofstream(forward.at, std::ios::binary) << "#include " << quoted(forward.target) << "\n";
    written_paths_.insert(forward.at.string());
  }
  return problems;
}

bool LocalHeaders::visit(const fs::path& original, const std::string& text, const fs::path& out_dir,
                         const std::string& includer_key, std::vector<Problem>& problems) {
  bool any_written = false;
  static const std::regex include_re(R"re(^[ \t]*#[ \t]*include[ \t]*"([^"]+)")re");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, include_re)) continue;
    const std::string name = m[1];
    std::vector<fs::path> candidates = {original.parent_path() / name};
    for (const auto& d : include_dirs_) candidates.push_back(d / name);
    fs::path found;
    for (const auto& c : candidates) {
      std::error_code ec;
      if (fs::is_regular_file(c, ec)) {
        found = fs::weakly_canonical(c);
        break;
      }
    }
    const std::string key = found.string() + "|" + out_dir.string();
    if (found.empty()) continue;
    const fs::path copy = (out_dir / name).lexically_normal();
    const fs::path inside = copy.lexically_relative(root_);
    const bool in_root =
        !fs::path(name).is_absolute() && !inside.empty() && *inside.begin() != "..";
    // Every include of a header that may get a copy, visited or not before.
    if (in_root && !includer_key.empty()) forwards_.push_back({includer_key, copy, key, found});
    if (!done_.insert(key).second) {
      any_written = any_written || written_.count(key);
      continue;
    }
    read_.insert(found.string());
    std::ifstream in(found, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string header = ss.str();
    const bool needs =
        std::regex_search(header, std::regex("<[ \t]*<[ \t]*<")) ||
        header.find("__shared__") != std::string::npos ||
        header.find("__global__") != std::string::npos ||
        header.find("clock") != std::string::npos || header.find("asm") != std::string::npos ||
        // warp-synchronous code (rewrite.cpp's warp_synchronous_line)
        header.find("volatile") != std::string::npos || header.find('^') != std::string::npos;
    if (!in_root) continue;
    if (needs) {
      Result r = rewrite(header, found.string());
      for (const auto& p : r.problems) problems.push_back({found.string(), p.line, p.message});
      if (r.problems.empty() && (r.launches || r.dynamic_shared || r.registered_kernels ||
                                 r.clock_calls || r.inline_ptx || r.warp_synchronous_line)) {
        fs::create_directories(copy.parent_path());
        // Without the #include <cuda_runtime.h> line, which the .cu has
        // already; from the #line directive on, so messages name the
        // original header.
        std::ofstream(copy, std::ios::binary) << r.text.substr(r.text.find('\n') + 1);
        written_.insert(key);
        written_paths_.insert(copy.string());
      }
    }
    // Headers that include each other (each behind its include guard):
    // once round the cycle is enough.
    if (!visiting_.insert(found.string()).second) continue;
    const bool below = visit(found, header, copy.parent_path(), key, problems);
    visiting_.erase(found.string());
    if (below && !written_.count(key)) {
      // Unchanged, but beside the rewritten headers it includes.
      fs::create_directories(copy.parent_path());
      std::ofstream(copy, std::ios::binary) << "#line 1 " << quoted(found) << "\n" << header;
      written_.insert(key);
      written_paths_.insert(copy.string());
    }
    any_written = any_written || written_.count(key);
  }
  return any_written;
}

}  // namespace cudalab::rewriter
