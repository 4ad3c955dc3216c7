// Running other programs, without a shell: a command line (argv) with a
// time limit and its output kept, and where a program is. Also files
// written whole or not at all.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace cudalab::cli {

struct ProcessResult {
  int exit_code = -1;
  int signal = 0;
  bool timed_out = false;
  std::string output;  // stdout and stderr together, at most `keep` bytes of it (the end)
};

// Seconds on the steady clock (for measuring how long something took).
double now_s();

// Runs argv (found on PATH) with a wall-clock limit, keeping the last `keep`
// bytes it prints; at the limit its whole process group is killed.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s,
                          size_t keep = 1 << 20);

// The full path of `name` on PATH or in one of `more` folders; "" if none.
std::string find_program(const std::string& name, const std::vector<std::string>& more = {});

// 'text' quoted for a POSIX shell script.
std::string shell_quote(const std::string& text);

// Writes `text` to `path` through a temporary file and a rename, so that a
// reader finds the old file or the new one, never half of one.
void write_atomically(const std::filesystem::path& path, const std::string& text);

// A new empty file in $TMPDIR (or /tmp) whose name ends in `suffix`,
// removed with this object.
struct TempFile {
  explicit TempFile(const std::string& suffix);
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  std::filesystem::path path;
};

}  // namespace cudalab::cli
