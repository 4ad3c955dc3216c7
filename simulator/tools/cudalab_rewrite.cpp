// cudalab-rewrite: the launch rewriter alone, for build systems (the CMake
// function cudalab_add_cuda_executable uses it). Like cudalab-cc, it also
// writes rewritten copies of the local headers that need them beside OUT.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "rewriter/local_headers.h"
#include "rewriter/rewrite.h"

namespace fs = std::filesystem;

namespace {

const char* kUsage =
    "usage: cudalab-rewrite IN.cu OUT.cpp [-I DIR]... [--depfile FILE]\n"
    "       cudalab-rewrite --library IN.cuh OUT.cuh\n"
    "  -I DIR          where quoted includes are looked for after IN's folder\n"
    "  --depfile FILE  write the headers IN includes, as a Makefile rule for OUT\n"
    "  --library       IN is a library's header (CUB's): inline PTX the simulator\n"
    "                  does not run stops the kernel that reaches it, not the build;\n"
    "                  the headers it includes are left as they are\n";

// A path in a Makefile rule: spaces and # escaped.
std::string make_escaped(const std::string& path) {
  std::string out;
  for (const char c : path) {
    if (c == ' ' || c == '#') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> positional;
  std::vector<fs::path> include_dirs;
  std::string depfile;
  bool library = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "-I" || a == "--depfile") && i + 1 == argc) {
      std::cerr << "cudalab-rewrite: " << a << " needs a value\n" << kUsage;
      return 2;
    }
    if (a == "-I") {
      include_dirs.emplace_back(argv[++i]);
    } else if (a.rfind("-I", 0) == 0) {
      include_dirs.emplace_back(a.substr(2));
    } else if (a == "--depfile") {
      depfile = argv[++i];
    } else if (a == "--library") {
      library = true;
    } else if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (a.rfind("-", 0) == 0) {
      std::cerr << "cudalab-rewrite: unknown option " << a << "\n" << kUsage;
      return 2;
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() != 2) {
    std::cerr << kUsage;
    return 2;
  }
  if (library && (!depfile.empty() || !include_dirs.empty())) {
    std::cerr << "cudalab-rewrite: --library takes no -I or --depfile\n" << kUsage;
    return 2;
  }
  const std::string& in_path = positional[0];
  const fs::path out_path = positional[1];
  std::ifstream in(in_path, std::ios::binary);
  if (!in) {
    std::cerr << "cudalab-rewrite: cannot read " << in_path << "\n";
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  auto r = cudalab::rewriter::rewrite(ss.str(), in_path, library);
  for (const auto& p : r.problems)
    std::cerr << in_path << ":" << p.line << ": error: " << p.message << "\n";
  if (!r.problems.empty()) return 1;
  const fs::path out_dir = fs::absolute(out_path).parent_path().lexically_normal();
  cudalab::rewriter::LocalHeaders headers(include_dirs, out_dir);
  const auto problems = library
                            ? std::vector<cudalab::rewriter::LocalHeaders::Problem>{}
                            : headers.rewrite_included(fs::absolute(in_path), ss.str(), out_dir);
  for (const auto& p : problems)
    std::cerr << p.file << ":" << p.line << ": error: " << p.message << "\n";
  if (!problems.empty()) return 1;
  std::ofstream out(out_path, std::ios::binary);
  out << r.text;
  if (!out) {
    std::cerr << "cudalab-rewrite: cannot write " << out_path.string() << "\n";
    return 1;
  }
  if (!depfile.empty()) {
    std::ofstream dep(depfile);
    // The source itself first: a depfile with no dependencies is one that
    // CMake's Ninja generator leaves unwritten, and the file is then rebuilt
    // at every build.
    dep << make_escaped(out_path.string()) << ": " << make_escaped(fs::absolute(in_path).string());
    for (const auto& h : headers.read()) dep << " \\\n  " << make_escaped(h);
    dep << "\n";
    if (!dep) {
      std::cerr << "cudalab-rewrite: cannot write " << depfile << "\n";
      return 1;
    }
  }
  return 0;
}
