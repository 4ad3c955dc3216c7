// Code addresses to source lines ("file.cu:12"), through binutils' addr2line
// reading this program's own debug line tables. Used after a launch (fault
// reports) and at the end of a traced run, never on a hot path.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <map>

#include "internal.h"

namespace cudalab::rt {

std::vector<std::string> symbolize(const std::vector<uintptr_t>& pcs) {
  std::vector<std::string> out(pcs.size());
  // Group by the object each address belongs to (the program or a library).
  std::map<std::string, std::vector<size_t>> by_object;
  std::vector<uintptr_t> offsets(pcs.size());
  for (size_t i = 0; i < pcs.size(); ++i) {
    Dl_info info{};
    if (!pcs[i] || !dladdr(reinterpret_cast<void*>(pcs[i]), &info) || !info.dli_fname) continue;
    offsets[i] = pcs[i] - reinterpret_cast<uintptr_t>(info.dli_fbase);
    std::string object = info.dli_fname;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
      exe[n] = 0;
      // The main program appears under the name it was started with.
      if (object.empty() || object.find('/') == std::string::npos || object == exe)
        object = exe;
    }
    by_object[object].push_back(i);
  }
  for (const auto& [object, indices] : by_object) {
    std::string cmd = "addr2line -e '" + object + "'";
    for (size_t i : indices) {
      char buf[32];
      std::snprintf(buf, sizeof(buf), " 0x%lx", static_cast<unsigned long>(offsets[i]));
      cmd += buf;
    }
    cmd += " 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) continue;
    char line[4096];
    size_t k = 0;
    while (k < indices.size() && std::fgets(line, sizeof(line), p)) {
      std::string s(line);
      while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
      if (auto d = s.find(" (discriminator"); d != std::string::npos) s.resize(d);
      if (s.rfind("??", 0) == 0 || s.size() < 3 || s.substr(s.size() - 2) == ":0" ||
          s.substr(s.size() - 2) == ":?")
        s.clear();
      out[indices[k++]] = s;
    }
    pclose(p);
  }
  return out;
}

}  // namespace cudalab::rt
