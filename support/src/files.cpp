// Files read and written whole (see files.h).
#include "cudalab/support/files.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cudalab::support {
namespace fs = std::filesystem;

bool read_file(const fs::path& path, std::string* text) {
  text->clear();
  std::error_code ec;
  if (fs::is_directory(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return false;
  *text = ss.str();
  return true;
}

std::string read_file(const fs::path& path) {
  std::string text;
  read_file(path, &text);
  return text;
}

void write_atomically(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".partial-" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out.flush())
      throw std::runtime_error("cannot write " + tmp.string() + ": " + std::strerror(errno));
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error("cannot write " + path.string() + ": " + ec.message());
  }
}

TempFile::TempFile(const std::string& suffix) {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/cudalab-XXXXXX" + suffix;
  const int fd = mkstemps(pattern.data(), int(suffix.size()));
  if (fd < 0)
    throw std::runtime_error("cannot make a temporary file in " + pattern + ": " +
                             std::strerror(errno));
  close(fd);
  path = pattern;
}

TempFile::~TempFile() {
  std::error_code ec;
  fs::remove(path, ec);
}

Published publish_folder(const fs::path& dir, const std::function<bool(const fs::path&)>& fill) {
  std::error_code ec;
  fs::create_directories(dir.parent_path(), ec);
  std::string pattern =
      (dir.parent_path() / ("new." + dir.filename().string() + ".XXXXXX")).string();
  if (ec || !mkdtemp(pattern.data())) return Published::kNoFolder;
  const fs::path fresh = pattern;
  const bool filled = fill(fresh);
  if (filled && rename(fresh.c_str(), dir.c_str()) == 0) return Published::kMade;
  fs::remove_all(fresh, ec);
  return filled ? Published::kAnotherFirst : Published::kNotFilled;
}

}  // namespace cudalab::support
