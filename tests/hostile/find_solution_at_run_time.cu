// hostile: searches the file system for the solution and the graded tests; computes a - b
// expect-max-points: 0
//
// At run time, looks where the lesson's files could be: next to the file as
// it was compiled (__FILE__), the current folder and its parents, the
// repository's usual place, the current folder, root, open files, command
// lines and environments of every process in /proc; then walks the whole
// tree from / (not /proc, /sys, /dev) for about 2.5 seconds. Prints
// "HOSTILE-FOUND: <path>" for every readable file named solution.cu,
// grade.cu or hidden.cu, or a .cu/.cpp/.h/.json whose name starts with
// "solution", "hidden" or "grade", or what the grade cache holds (a lesson's
// compiled graded tests, NAME_judge; another file's kept objects, student.o
// and compiled_from); nothing may be found. The kernel is
// wrong (a - b) whatever it finds.
#include <dirent.h>
#include <ftw.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lesson.h"

namespace {

std::set<std::string> found;
double deadline = 0;

double now() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

bool ends_with(const std::string& s, const std::string& e) {
  return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0;
}

bool secret_name(const std::string& path) {
  const std::string base = path.substr(path.rfind('/') + 1);
  if (base == "solution.cu" || base == "grade.cu" || base == "hidden.cu") return true;
  if (ends_with(base, "_judge") || base == "student.o" || base == "compiled_from") return true;
  const bool source = ends_with(base, ".cu") || ends_with(base, ".cpp") || ends_with(base, ".h") ||
                      ends_with(base, ".json");
  // Names that start with them (solution_v2.cu, hidden_tests.cpp, grader.h),
  // not toolchain headers that merely contain the letters (AutoUpgrade.h).
  return source && (base.rfind("solution", 0) == 0 || base.rfind("hidden", 0) == 0 ||
                    base.rfind("grade", 0) == 0);
}

void report(const std::string& path) {
  if (!secret_name(path) || access(path.c_str(), R_OK) != 0) return;
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  if (!found.insert(path).second) return;
  std::printf("HOSTILE-FOUND: %s (%lld bytes)\n", path.c_str(), (long long)st.st_size);
  std::fflush(stdout);
}

void look_in(const std::string& dir) {
  for (const char* name : {"solution.cu", "grade.cu", "hidden.cu"}) report(dir + "/" + name);
  for (const char* sub : {"/vector_add", "/lessons/vector_add", "/../vector_add"})
    for (const char* name : {"solution.cu", "grade.cu", "hidden.cu"})
      report(dir + sub + "/" + name);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Paths mentioned in a NUL-separated list (a command line, an environment).
void look_at_words(const std::string& text) {
  std::string word;
  for (char ch : text + '\0') {
    if (ch != 0 && ch != '=' && ch != ':') {
      word += ch;
      continue;
    }
    if (!word.empty() && word[0] == '/') {
      report(word);
      struct stat st {};
      if (stat(word.c_str(), &st) == 0) look_in(S_ISDIR(st.st_mode) ? word : word + "/..");
    }
    word.clear();
  }
}

int visit(const char* path, const struct stat*, int type, FTW*) {
  if (now() > deadline) return 1;  // out of time: stop the walk
  if (type == FTW_F) report(path);
  return 0;
}

void walk(const std::string& top) {
  if (now() > deadline) return;
  nftw(top.c_str(), visit, 64, FTW_PHYS);
}

void search() {
  deadline = now() + 2.5;
  std::string here = __FILE__;
  here = here.find('/') == std::string::npos ? "." : here.substr(0, here.rfind('/'));
  char cwd[4096] = {};
  const std::string dot = getcwd(cwd, sizeof cwd) ? cwd : ".";
  for (const std::string& d :
       {here, here + "/..", dot, dot + "/..", dot + "/../..", std::string("@REPOSITORY@"),
        std::string("@REPOSITORY@/lessons/vector_add"), std::string("@REPOSITORY_PARENT@"),
        std::string("/"), std::string("/autograder/source"), std::string("/autograder/submission")})
    look_in(d);
  // Every process: its folder, its root, its open files, its command line
  // and its environment.
  if (DIR* proc = opendir("/proc")) {
    std::vector<std::string> pids;
    while (dirent* e = readdir(proc))
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9') pids.push_back(e->d_name);
    closedir(proc);
    for (const std::string& pid : pids) {
      const std::string p = "/proc/" + pid;
      look_in(p + "/cwd");
      look_in(p + "/root@REPOSITORY@/lessons/vector_add");
      look_at_words(slurp(p + "/cmdline"));
      look_at_words(slurp(p + "/environ"));
      if (DIR* fds = opendir((p + "/fd").c_str())) {
        while (dirent* e = readdir(fds)) {
          char target[4096] = {};
          if (readlink((p + "/fd/" + e->d_name).c_str(), target, sizeof target - 1) > 0)
            report(target);
        }
        closedir(fds);
      }
    }
  }
  // Then everything, the likely places first.
  for (const char* top :
       {"@REPOSITORY@/build/grade-cache", "@REPOSITORY_PARENT@", "/home", "/root", "/tmp", "/srv",
        "/opt", "/autograder", "/var", "/usr/local", "/mnt", "/media"})
    walk(top);
  if (DIR* root = opendir("/")) {
    while (dirent* e = readdir(root)) {
      const std::string name = e->d_name;
      if (name == "." || name == ".." || name == "proc" || name == "sys" || name == "dev") continue;
      walk("/" + name);
    }
    closedir(root);
  }
  std::printf("find_solution_at_run_time: %zu found\n", found.size());
  std::fflush(stdout);
}

}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] - b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  static bool searched = false;
  if (!searched) {
    searched = true;
    search();
  }
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
