// Where a submission's code runs: a bubblewrap sandbox with no network, a
// read-only view of only the toolchain, a private writable folder
// (/submission), its own PID namespace (all of it ends with the test) and
// rlimits; or, when the instructor asks for it, unconfined with the rlimits
// alone.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace cudalab::cli {

struct SandboxLimits {
  double cpu_seconds = 120;
  size_t memory_mib = 4096;  // address space
  int processes = 64;        // of the sandbox's user, machine-wide
  size_t file_mib = 256;
  int open_files = 256;
};

class Sandbox {
 public:
  // `scratch` becomes /submission inside; `read_only` paths (files or
  // folders) are seen at their own paths; `hidden` paths are covered up if
  // they lie under a path that is seen.
  // As root, the sandbox runs as user `uid` (one per sandbox running at the
  // same time, so that their process limits do not add up).
  Sandbox(std::filesystem::path scratch, std::vector<std::string> read_only,
          std::vector<std::string> hidden, bool confined, bool gpu, int uid);
  // The command line that runs `argv` (a path inside the sandbox) in it,
  // with `env` (NAME=value) as its whole environment beside the defaults.
  std::vector<std::string> wrap(const std::vector<std::string>& argv,
                                const std::vector<std::string>& env,
                                const SandboxLimits& limits) const;
  // A path of the scratch folder as the submission sees it.
  std::string inside(const std::string& name) const { return "/submission/" + name; }
  const std::filesystem::path& scratch() const { return scratch_; }
  bool confined() const { return confined_; }
  // Makes the scratch folder the sandbox's user's.
  void hand_over() const;

 private:
  std::filesystem::path scratch_;
  std::vector<std::string> read_only_, hidden_;
  bool confined_, gpu_;
  int uid_;
};

// "" when bubblewrap can make a sandbox here, otherwise why not.
std::string sandbox_problem();

// The first of 256 sandbox users (uids from 60000: one per concurrent
// grading of a run, -j 256 at most) that no other run on this machine holds:
// held, through a lock file in /tmp, until this process ends, so that two
// runs at once (two commands, two Slurm tasks on one node) never share a
// user and its process limit.
int claim_sandbox_uids();

}  // namespace cudalab::cli
