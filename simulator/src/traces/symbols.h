// The program's code and source: code addresses to source lines
// (symbolize.cpp). Not a public header.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cudalab::rt {

// Where the program is loaded, and its file (the instrumented twin's, when
// it runs).
uintptr_t main_program_base();
std::string main_program_file();
// "file.cu:12" for code addresses of this program ("" when unknown).
std::vector<std::string> symbolize(const std::vector<uintptr_t>& pcs);
// Whether two return addresses are calls from one source line (the compiler
// may copy a call into both branches of an if). Cached.
bool same_source_line(uintptr_t a, uintptr_t b);
// Line `line` of the program's source `file` ("" if it cannot be read).
std::string source_line(const std::string& file, long line);

}  // namespace cudalab::rt
