// hostile: rewrites every CUDALAB_* variable and LD_PRELOAD at static init and re-executes itself
// expect-max-points: 0
//
// At static initialization: unsets every CUDALAB_* variable it finds, then
// sets CUDALAB_CHECK (off), CUDALAB_CHECK_EXITCODE, CUDALAB_CHECK_JSON,
// CUDALAB_CHECK_LEAKS, CUDALAB_TRACE, CUDALAB_TRACE_MAX_ACCESSES,
// CUDALAB_WORKERS, CUDALAB_TIMEOUT, CUDALAB_SCHEDULE and CUDALAB_DEVICE to
// values that would disable or derail checking, plus LD_PRELOAD,
// LD_LIBRARY_PATH, PATH and HOME; then executes /proc/self/exe again with
// its own arguments, so that everything, the runtime's own start included,
// sees the new environment. The kernel is wrong (a - b): nothing a
// submission does to its environment may change how it is judged.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lesson.h"

extern char** environ;

namespace {

const int changed = [] {
  if (std::getenv("HOSTILE_ENV_REEXECUTED")) return 1;  // the second time: leave it
  std::vector<std::string> names;
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, "CUDALAB_", 8) == 0) {
      const char* eq = std::strchr(*e, '=');
      names.emplace_back(*e, eq ? size_t(eq - *e) : std::strlen(*e));
    }
  for (const std::string& n : names) {
    std::fprintf(stderr, "change_environment: unset %s\n", n.c_str());
    unsetenv(n.c_str());
  }
  const char* const settings[][2] = {
      {"CUDALAB_CHECK", ""},
      {"CUDALAB_CHECK_EXITCODE", "0"},
      {"CUDALAB_CHECK_JSON", "/dev/null"},
      {"CUDALAB_CHECK_LEAKS", "0"},
      {"CUDALAB_TRACE", "/dev/null"},
      {"CUDALAB_TRACE_MAX_ACCESSES", "0"},
      {"CUDALAB_WORKERS", "4096"},
      {"CUDALAB_TIMEOUT", "1000000"},
      {"CUDALAB_SCHEDULE", "reverse"},
      {"CUDALAB_DEVICE", "a100"},
      {"LD_PRELOAD", "/tmp/cudalab-hostile-preload.so:libcudalab-hostile.so"},
      {"LD_LIBRARY_PATH", "/tmp:."},
      {"PATH", "/tmp:.:/usr/bin:/bin"},
      {"HOME", "/tmp"},
      {"HOSTILE_ENV_REEXECUTED", "1"},
  };
  for (const auto& s : settings) setenv(s[0], s[1], 1);
  // Once more from the start, with the same arguments (and descriptors).
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string all = ss.str();
  std::vector<std::string> args;
  for (size_t at = 0; at < all.size();) {
    const size_t end = all.find('\0', at);
    args.push_back(all.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (!args.empty()) execv("/proc/self/exe", argv.data());
  std::fprintf(stderr, "change_environment: could not re-execute\n");
  return 0;
}();

}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] - b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  // And again here, in case the runtime reads its variables late.
  unsetenv("CUDALAB_CHECK");
  setenv("CUDALAB_CHECK_EXITCODE", "0", 1);
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
