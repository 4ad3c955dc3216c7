// The options of nvcc and NVRTC that only a GPU's code generator reads
// (-arch, -lineinfo, -maxrregcount, ...): the simulator accepts and
// ignores them, cudalab-cc for nvcc's command line and the simulated NVRTC
// for a program's compile options, from this one table.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cudalab::support {

enum class FrontEnd { kNvcc, kNvrtc };

// How many of args[i], args[i + 1] are an option of `front_end` that means
// nothing on the simulator, with its value (1 or 2); 0 when args[i] is not
// one. (A value is `-opt=value`, `-opt value` or, where nvcc takes it,
// `-optvalue`.)
size_t gpu_only_option(const std::vector<std::string>& args, size_t i, FrontEnd front_end);

// The table's options for `front_end`, for help text: "-arch, -gencode, ...".
std::string gpu_only_option_names(FrontEnd front_end);

}  // namespace cudalab::support
