// The local headers of a .cu file that need the rewriter too: a quoted
// include that holds a launch, extern __shared__, a kernel or a call of
// clock() (the GPU's cycle counter in device code) or inline PTX gets a
// rewritten copy in the folder of the rewritten source, where the compiler
// looks first. cudalab-cc and cudalab-rewrite (for CMake builds) both use it,
// so a kernel in a .cuh builds the same way with either.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace cudalab::rewriter {

class LocalHeaders {
 public:
  struct Problem {
    std::string file;
    int line = 0;
    std::string message;
  };
  // Headers are looked for next to the file that includes them, then in
  // `include_dirs` (the -I folders). Copies are written only inside `root`:
  // an include by an absolute name, or one climbing out of it, is compiled
  // as it is, never written over.
  LocalHeaders(std::vector<std::filesystem::path> include_dirs, std::filesystem::path root);
  // Rewrites what `text` (the file at `original`) includes, and what they
  // include in turn, into `out_dir` (the folder of `original`'s rewritten
  // copy). Returns what could not be rewritten.
  std::vector<Problem> rewrite_included(const std::filesystem::path& original,
                                        const std::string& text,
                                        const std::filesystem::path& out_dir);
  // Every local header read so far (for a build system's dependencies).
  const std::set<std::string>& read() const { return read_; }

 private:
  // Returns whether a copy of a header it includes, directly or not, was
  // written (its includer then needs a copy beside it, so that the compiler,
  // which looks next to the including file first, finds the rewritten one).
  // `includer_key` names the copy `original` would have (empty for the
  // source file itself).
  bool visit(const std::filesystem::path& original, const std::string& text,
             const std::filesystem::path& out_dir, const std::string& includer_key,
             std::vector<Problem>& problems);
  // A quoted include of a header copy: where the compiler looks for it
  // beside the copy, and what it names.
  struct Forward {
    std::string includer_key;
    std::filesystem::path at;
    std::string target_key;
    std::filesystem::path target;
  };
  std::vector<Forward> forwards_;
  std::vector<std::filesystem::path> include_dirs_;
  std::filesystem::path root_;
  std::set<std::string> done_;      // header|folder pairs already written
  std::set<std::string> visiting_;  // the headers being visited: a cycle stops there
  std::set<std::string> read_;
  std::set<std::string> written_;        // header|folder pairs with a copy written
  std::set<std::string> written_paths_;  // the copies' and forwarding headers' paths
};

}  // namespace cudalab::rewriter
