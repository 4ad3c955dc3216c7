// Files read and written whole, and temporary files.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

namespace cudalab::support {

// The whole of the file at `path`; false (and `*text` empty) when it cannot
// be read.
bool read_file(const std::filesystem::path& path, std::string* text);
// The whole of the file, or "" when it cannot be read.
std::string read_file(const std::filesystem::path& path);

// Writes `text` to `path` through a temporary file of this process and a
// rename, so that a reader finds the old file or the new one, never half of
// one (and two processes writing it at once leave one of theirs, whole).
// Throws std::runtime_error when it cannot.
void write_atomically(const std::filesystem::path& path, const std::string& text);

// What publish_folder did.
enum class Published { kMade, kAnotherFirst, kNoFolder, kNotFilled };

// Puts folder `dir` in place whole or not at all: `fill` fills a fresh
// folder beside it (this user's alone, mode 700; false: it could not),
// which then takes the name. Another process sees the folder only once it
// is complete; the first of two to finish wins (kAnotherFirst: this one's
// is dropped). kNoFolder: the fresh folder could not be made.
Published publish_folder(const std::filesystem::path& dir,
                         const std::function<bool(const std::filesystem::path&)>& fill);

// A new empty file in $TMPDIR (or /tmp) whose name ends in `suffix`,
// removed with this object. Throws std::runtime_error when it cannot.
struct TempFile {
  explicit TempFile(const std::string& suffix);
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  std::filesystem::path path;
};

}  // namespace cudalab::support
