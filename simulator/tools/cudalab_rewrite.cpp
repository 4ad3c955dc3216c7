// cudalab-rewrite IN.cu OUT.cpp: the launch rewriter alone, for build systems
// (the CMake function cudalab_add_cuda_executable uses it).
#include <fstream>
#include <iostream>
#include <sstream>

#include "rewrite.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: cudalab-rewrite IN.cu OUT.cpp\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "cudalab-rewrite: cannot read " << argv[1] << "\n";
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  auto r = cudalab::rewriter::rewrite(ss.str(), argv[1]);
  for (const auto& p : r.problems)
    std::cerr << argv[1] << ":" << p.line << ": error: " << p.message << "\n";
  if (!r.problems.empty()) return 1;
  std::ofstream out(argv[2], std::ios::binary);
  out << r.text;
  if (!out) {
    std::cerr << "cudalab-rewrite: cannot write " << argv[2] << "\n";
    return 1;
  }
  return 0;
}
