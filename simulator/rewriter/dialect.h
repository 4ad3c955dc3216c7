// The host compiler's flags for a C++ dialect a program asks for (nvcc's
// -std=, NVRTC's --std=): nvcc and NVRTC take C++03 to C++14 too, but the
// simulator's headers need C++17, so those build as C++17 with what C++17
// took out of the language (`register`, `throw(X)`) still accepted.
// cudalab-cc and the simulator's NVRTC both use it.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace cudalab::rewriter {

// `dialect`: "c++14", "gnu++11", "c++20", ...
inline std::vector<std::string> dialect_flags(const std::string& dialect) {
  static const std::set<std::string> older = {"c++98", "c++03", "c++0x", "c++11", "c++1y", "c++14"};
  const bool gnu = dialect.rfind("gnu", 0) == 0;
  if (!older.count(gnu ? "c" + dialect.substr(3) : dialect)) return {"-std=" + dialect};
  return {gnu ? "-std=gnu++17" : "-std=c++17", "-Wno-register", "-Wno-dynamic-exception-spec"};
}

}  // namespace cudalab::rewriter
