// The table of nvcc's and NVRTC's options for a GPU's code generator (see
// nvcc_options.h). The names are those of nvcc's and NVRTC's documentation.
#include "cudalab/support/nvcc_options.h"

#include <cstring>

namespace cudalab::support {
namespace {

enum Takes {
  kNothing,  // -lineinfo
  kValue,    // -arch sm_90, -arch=sm_90
  kMaybe,    // -rdc, -rdc=true, -rdc true
};
enum Where { kNvccOnly = 1, kNvrtcOnly = 2, kBoth = 3 };

struct GpuOption {
  const char* name;
  const char* long_name;  // or nullptr
  Takes takes;
  int where;
};

constexpr GpuOption kOptions[] = {
    // The GPU to compile for.
    {"-arch", "--gpu-architecture", kValue, kBoth},
    {"-gencode", "--generate-code", kValue, kNvccOnly},
    {"-code", "--gpu-code", kValue, kNvccOnly},
    // Debugging and line information of device code.
    {"-G", "--device-debug", kNothing, kBoth},
    {"-lineinfo", "--generate-line-info", kNothing, kBoth},
    // Floating-point code generation.
    {"-use_fast_math", "--use_fast_math", kNothing, kBoth},
    {"-ftz", "--ftz", kValue, kBoth},
    {"-prec-div", "--prec-div", kValue, kBoth},
    {"-prec-sqrt", "--prec-sqrt", kValue, kBoth},
    {"-fmad", "--fmad", kValue, kBoth},
    {"-extra-device-vectorization", "--extra-device-vectorization", kNothing, kBoth},
    // Registers, the assembler and the device linker.
    {"-maxrregcount", "--maxrregcount", kValue, kBoth},
    {"-Xptxas", "--ptxas-options", kValue, kBoth},
    {"-Xnvlink", "--nvlink-options", kValue, kNvccOnly},
    {"-res-usage", "--resource-usage", kNothing, kNvccOnly},
    {"-rdc", "--relocatable-device-code", kMaybe, kBoth},
    {"-dlto", "--dlink-time-opt", kMaybe, kBoth},
    {"-dopt", "--dopt", kValue, kBoth},
    {"-ewp", "-extensible-whole-program", kNothing, kNvrtcOnly},
    // Language extensions nvcc's front end needs asked for, and clang has.
    {"-expt-relaxed-constexpr", "--expt-relaxed-constexpr", kNothing, kBoth},
    {"-extended-lambda", "--extended-lambda", kNothing, kBoth},
    {"-expt-extended-lambda", "--expt-extended-lambda", kNothing, kNvccOnly},
    {"-restrict", "--restrict", kNothing, kBoth},
    {"-default-device", "--device-as-default-execution-space", kNothing, kNvrtcOnly},
    {"-builtin-move-forward", nullptr, kNothing, kNvrtcOnly},
    {"-builtin-initializer-list", nullptr, kNothing, kNvrtcOnly},
    {"-no-source-include", "--no-source-include", kNothing, kNvrtcOnly},
    {"-fdevice-syntax-only", "--fdevice-syntax-only", kNothing, kNvrtcOnly},
    {"-Wno-deprecated-gpu-targets", nullptr, kNothing, kBoth},
    // How the compiler itself works.
    {"-split-compile", "--split-compile", kValue, kBoth},
    {"-time", "--time", kValue, kBoth},
    {"-t", "--threads", kValue, kBoth},
    {"-minimal", nullptr, kNothing, kNvrtcOnly},
    {"-ofast-compile", "--fast-compile", kValue, kNvrtcOnly},
    {"-default-stream", "--default-stream", kValue, kNvccOnly},
};

bool applies(const GpuOption& o, FrontEnd front_end) {
  return (o.where & (front_end == FrontEnd::kNvcc ? kNvccOnly : kNvrtcOnly)) != 0;
}

bool is_bool(const std::string& s) { return s == "true" || s == "false"; }

// How many arguments `name` takes at args[i]; 0 when it is not there.
size_t taken(const char* name, Takes takes, const std::vector<std::string>& args, size_t i) {
  const std::string& a = args[i];
  const size_t n = std::strlen(name);
  if (a.compare(0, n, name) != 0) return 0;
  if (a.size() == n) {
    if (takes == kValue) return i + 1 < args.size() ? 2 : 0;  // its value is missing
    if (takes == kMaybe && i + 1 < args.size() && is_bool(args[i + 1])) return 2;
    return 1;
  }
  if (a[n] == '=') return takes == kNothing ? 0 : 1;
  return 0;
}

}  // namespace

size_t gpu_only_option(const std::vector<std::string>& args, size_t i, FrontEnd front_end) {
  if (i >= args.size()) return 0;
  for (const GpuOption& o : kOptions) {
    if (!applies(o, front_end)) continue;
    for (const char* name : {o.name, o.long_name})
      if (name)
        if (const size_t n = taken(name, o.takes, args, i)) return n;
  }
  return 0;
}

std::string gpu_only_option_names(FrontEnd front_end) {
  std::string names;
  for (const GpuOption& o : kOptions) {
    if (!applies(o, front_end)) continue;
    if (!names.empty()) names += ", ";
    names += o.name;
  }
  return names;
}

}  // namespace cudalab::support
