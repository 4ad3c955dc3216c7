// hostile: creates files outside its scratch folder and appends to the repository's; a - b
// expect-max-points: 0
//
// Tries to leave a file named cudalab-hostile-wrote-write_outside_scratch in
// /tmp, /var/tmp, /dev/shm, $HOME, $TMPDIR, the password file's home, the
// repository and the folder it is in, the lesson's folder, the folder this file was compiled from,
// the parent folders of the current one, /etc and /; appends a line
// containing "cudalab-hostile-wrote" to the lesson's solution.cu, grade.cu
// and lesson.h and to /etc/passwd (it never truncates what exists); also
// goes through a symbolic link and a hard link made in the scratch folder,
// and through /proc/self/cwd and /proc/1/root. Prints "HOSTILE-WROTE:
// <path>" for each write that succeeded, for reading only: a write into the
// sandbox's own private /tmp or home is no escape. What counts is that no
// file named cudalab-hostile-wrote-* appears outside the sandbox and that
// no file of the repository changes. The kernel is wrong (a - b).
#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "lesson.h"

namespace {

constexpr const char* kName = "cudalab-hostile-wrote-write_outside_scratch";
constexpr const char* kLine = "// cudalab-hostile-wrote: this file was changed by a submission\n";

std::string dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string cwd() {
  char buf[4096] = {};
  return getcwd(buf, sizeof buf) ? buf : ".";
}

bool try_write(const std::string& path, int flags) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | flags, 0644);
  if (fd < 0) return false;
  const ssize_t w = write(fd, kLine, std::strlen(kLine));
  close(fd);
  if (w <= 0) return false;
  std::printf("HOSTILE-WROTE: %s\n", path.c_str());
  return true;
}

// A new file in `dir`.
void create_in(const std::string& dir) {
  if (dir.empty()) return;
  try_write(dir + "/" + kName, O_CREAT | O_APPEND);
  // And a folder with a file in it.
  const std::string sub = dir + "/" + kName + ".d";
  mkdir(sub.c_str(), 0755);
  try_write(sub + "/" + kName, O_CREAT | O_APPEND);
}

// A line at the end of an existing file.
void append_to(const std::string& file) { try_write(file, O_APPEND); }

}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] - b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  static bool done = false;
  if (!done) {
    done = true;
    const std::string here = cwd();
    const std::string compiled_in = dir_of(__FILE__);  // where this file was compiled from
    std::set<std::string> dirs = {"/tmp",
                                  "/var/tmp",
                                  "/dev/shm",
                                  "@REPOSITORY_PARENT@",
                                  "@REPOSITORY@",
                                  "@REPOSITORY@/lessons",
                                  "@REPOSITORY@/lessons/vector_add",
                                  "@REPOSITORY@/build",
                                  "/etc",
                                  "/",
                                  "/root",
                                  "/home",
                                  "/usr/local",
                                  "/opt",
                                  "..",
                                  "../..",
                                  "../../..",
                                  dir_of(here),
                                  compiled_in,
                                  compiled_in + "/..",
                                  "/proc/self/cwd/..",
                                  "/proc/1/cwd"};
    for (const char* var : {"HOME", "TMPDIR", "TMP", "TEMP", "XDG_RUNTIME_DIR", "PWD", "OLDPWD"})
      if (const char* v = std::getenv(var)) dirs.insert(v);
    if (const passwd* pw = getpwuid(getuid())) dirs.insert(pw->pw_dir);
    if (DIR* d = opendir("/home")) {
      while (dirent* e = readdir(d))
        if (e->d_name[0] != '.') dirs.insert(std::string("/home/") + e->d_name);
      closedir(d);
    }
    // Each again as the first process of the machine sees it (its root,
    // through /proc), in case the sandbox's own root is a different one.
    for (const std::string& d : std::set<std::string>(dirs))
      if (!d.empty() && d[0] == '/') dirs.insert("/proc/1/root" + d);
    for (const std::string& d : dirs) create_in(d);

    std::vector<std::string> files = {"@REPOSITORY@/lessons/vector_add/solution.cu",
                                      "@REPOSITORY@/lessons/vector_add/grade.cu",
                                      "@REPOSITORY@/lessons/vector_add/lesson.h",
                                      "@REPOSITORY@/lessons/vector_add/exercise.cu",
                                      "/etc/passwd",
                                      "/etc/hosts",
                                      compiled_in + "/solution.cu",
                                      compiled_in + "/grade.cu",
                                      compiled_in + "/lesson.h",
                                      compiled_in + "/../vector_add/solution.cu",
                                      "../solution.cu",
                                      "../grade.cu"};
    for (const std::string& f : files) append_to(f);

    // Through links made here, in the scratch folder.
    for (const std::string& target : {std::string("/tmp/") + kName,
                                      std::string("@REPOSITORY@/lessons/vector_add/solution.cu")}) {
      const std::string link =
          std::string("link-") + std::to_string(std::hash<std::string>{}(target));
      unlink(link.c_str());
      if (symlink(target.c_str(), link.c_str()) == 0) try_write(link, O_CREAT | O_APPEND);
      const std::string hard = link + ".hard";
      unlink(hard.c_str());
      if (::link(target.c_str(), hard.c_str()) == 0) try_write(hard, O_APPEND);
    }
    std::fflush(stdout);
  }
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
