// NVRTC on the simulator: nvrtcCreateProgram keeps a kernel source and its
// headers; nvrtcCompileProgram runs it through the launch rewriter and the
// host compiler (the same recipe as cudalab-cc) into a shared object, with
// the compiler's messages as the log, said at the program's own name and
// lines; the "PTX" and "CUBIN" are the module image (rewriter/module_image.h)
// that holds the source and that object, which cuModuleLoadData loads.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

// The recipe's paths and flags (cudalab-cc's); its include folder is the
// same as the one this library was built with.
#undef CUDALAB_SIM_INCLUDE_DIR
#include "cudalab/kernel_language.h"
#include "cudalab/support/files.h"
#include "cudalab/support/nvcc_options.h"
#include "cudalab/support/process.h"
#include "cudalab_config.h"
#include "grid/grid.h"
#include "nvrtc.h"
#include "rewriter/dialect.h"
#include "rewriter/module_image.h"
#include "rewriter/rewrite.h"
#include "runtime/modules.h"
#include "runtime/settings.h"

namespace fs = std::filesystem;

namespace cudalab::rt {
namespace {

const char* const kCuDefines[] = {CUDALAB_RECIPE_CU_DEFINES};
const char* const kCompileFlags[] = {CUDALAB_RECIPE_COMPILE_FLAGS};
const char* const kInstrumentFlags[] = {CUDALAB_RECIPE_INSTRUMENT_FLAGS};
const std::vector<std::string> kPlainFlags = {CUDALAB_RECIPE_PLAIN_FLAGS};
const std::vector<std::string> kTwinFlags = {CUDALAB_RECIPE_TWIN_FLAGS};

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

using support::read_file;

// The host compiler: CUDALAB_NVRTC_CXX, else the one cudalab was built with.
std::string host_compiler() {
  const std::string& given = runtime_compile_settings().cxx;
  return given.empty() ? std::string(CUDALAB_CXX) : given;
}

std::string simulator_headers() {
  const std::string& given = runtime_compile_settings().include_dir;
  return given.empty() ? std::string(CUDALAB_SIM_INCLUDE_DIR) : given;
}

// Translates NVRTC's options to the host compiler's. Options that mean
// something only to a GPU's code generator are accepted and ignored.
bool translate_options(const std::vector<std::string>& options, std::vector<std::string>* flags,
                       std::string* log) {
  bool ok = true;
  for (size_t i = 0; i < options.size(); ++i) {
    const std::string& o = options[i];
    auto value_of = [&](const char* short_form, const char* long_form, std::string* value) {
      for (const char* form : {short_form, long_form}) {
        if (!form) continue;
        const std::string f = form;
        if (o == f && i + 1 < options.size()) {
          *value = options[++i];
          return true;
        }
        if (starts_with(o, (f + "=").c_str())) {
          *value = o.substr(f.size() + 1);
          return true;
        }
        if (f.size() == 2 && starts_with(o, form) && o.size() > 2) {
          *value = o.substr(2);
          return true;
        }
      }
      return false;
    };
    std::string v;
    if (value_of("-I", "--include-path", &v)) {
      flags->push_back("-I" + v);
    } else if (value_of("-D", "--define-macro", &v)) {
      flags->push_back("-D" + v);
    } else if (value_of("-U", "--undefine-macro", &v)) {
      flags->push_back("-U" + v);
    } else if (value_of("-include", "--pre-include", &v)) {
      flags->push_back("-include");
      flags->push_back(v);
    } else if (value_of("-std", "--std", &v)) {
      if (v != "c++03" && v != "c++11" && v != "c++14" && v != "c++17" && v != "c++20") {
        *log += "nvrtc: error: " + o +
                ": the language standards are c++03, c++11, c++14, c++17 "
                "and c++20\n";
        ok = false;
      } else {
        for (std::string& f : cudalab::rewriter::dialect_flags(v)) flags->push_back(std::move(f));
      }
    } else if (o == "-w" || o == "--disable-warnings" || o == "-dw") {
      flags->push_back("-w");
    } else if (const size_t n = support::gpu_only_option(options, i, support::FrontEnd::kNvrtc)) {
      i += n - 1;  // a GPU's code generator's option, and its value: nothing to do here
    } else {
      *log += "nvrtc: error: unrecognized option " + o +
              " (the options are -I, -D, -U, --std, -include and those of a GPU's code generator, "
              "such as --gpu-architecture, which the simulator ignores)\n";
      ok = false;
    }
  }
  return ok;
}

// The compiler's messages as the program's author reads them: paths of the
// temporary folder become the program's and its headers' names; notes from
// the simulator's own headers and the rewriter's additions are left out.
std::string readable_log(const std::string& text, const fs::path& dir) {
  std::string out;
  std::istringstream in(text);
  const std::string headers = (dir / "include").string() + "/";
  const std::string simulator = simulator_headers();
  bool skipping = false;
  for (std::string line; std::getline(in, line);) {
    for (size_t at; (at = line.find(headers)) != std::string::npos;) line.erase(at, headers.size());
    for (size_t at; (at = line.find(dir.string() + "/")) != std::string::npos;)
      line.erase(at, dir.string().size() + 1);
    const bool diagnostic = line.find(": note: ") != std::string::npos ||
                            line.find(": error: ") != std::string::npos ||
                            line.find(": warning: ") != std::string::npos;
    if (diagnostic)
      skipping =
          line.find(": note: ") != std::string::npos &&
          (starts_with(line, simulator.c_str()) || line.find("cudalab::") != std::string::npos);
    if (skipping) continue;
    if (size_t at = line.find(" static const int cudalab_kernel_registered_");
        at != std::string::npos)
      line.resize(at);
    out += line + "\n";
  }
  return out;
}

}  // namespace

ModuleBuild build_module(const ModuleSource& m) {
  ModuleBuild result;
  std::vector<std::string> user_flags;
  if (!translate_options(m.options, &user_flags, &result.log)) {
    result.status = ModuleBuild::kBadOption;
    return result;
  }
  const std::string cxx = host_compiler();
  if (support::find_program(cxx).empty()) {
    result.log = "cudalab: cannot compile kernels while the program runs: the host compiler " +
                 cxx +
                 " is not there. Set CUDALAB_NVRTC_CXX to a clang++ (or install the one cudalab "
                 "was built with).\n";
    return result;
  }
  if (!fs::exists(fs::path(simulator_headers()) / "cuda_runtime.h")) {
    result.log =
        "cudalab: cannot compile kernels while the program runs: the simulator's headers "
        "are not in " +
        simulator_headers() + ". Set CUDALAB_NVRTC_INCLUDE to its include folder.\n";
    return result;
  }
  const char* tmp_base = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp_base && *tmp_base ? tmp_base : "/tmp") + "/cudalab-nvrtc.XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back(0);
  if (!mkdtemp(buffer.data())) {
    result.log = "cudalab: cannot make a temporary folder for the compile: " +
                 std::string(std::strerror(errno)) + "\n";
    return result;
  }
  const fs::path dir = buffer.data();
  std::error_code ec;
  fs::create_directories(dir / "include", ec);
  // The headers given with the program, rewritten like local headers.
  for (const auto& [include_name, text] : m.headers) {
    const fs::path target = dir / "include" / include_name;
    if (include_name.empty() || fs::path(include_name).is_absolute() ||
        include_name.find("..") != std::string::npos) {
      result.log += "nvrtc: error: the header name \"" + include_name +
                    "\" is not a relative path without ..\n";
      result.status = ModuleBuild::kCompileError;
      fs::remove_all(dir, ec);
      return result;
    }
    fs::create_directories(target.parent_path(), ec);
    std::ofstream(target, std::ios::binary) << cudalab::rewriter::rewrite(text, include_name).text;
  }
  auto rewritten = cudalab::rewriter::rewrite(m.source, m.name);
  for (const auto& p : rewritten.problems)
    result.log += m.name + ":" + std::to_string(p.line) + ": error: " + p.message + "\n";
  if (!rewritten.problems.empty()) {
    result.status = ModuleBuild::kCompileError;
    fs::remove_all(dir, ec);
    return result;
  }
  std::string text = rewritten.text;
  if (!m.name_expressions.empty()) {
    text +=
        "\n#include <cudalab/detail/module.h>\nextern \"C\" const void* const "
        "cudalab_name_expressions[] = {\n";
    for (const auto& e : m.name_expressions) {
      std::string quoted;
      for (char c : e) quoted += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
      text += "#line 1 \"name expression " + quoted + "\"\n";
      text += "    ::cudalab::detail::name_expression_address(" +
              (starts_with(e, "&") ? e : "&(" + e + ")") + ", \"" + quoted + "\"),\n";
    }
    text += "};\n";
  }
  std::ofstream(dir / "program.cpp", std::ios::binary) << text;

  std::vector<std::string> cmd = {
      cxx,
      "-std=c++17",
      "-O2",
      "-fPIC",
      "-shared",
      "-fdiagnostics-color=never",
      "-D__CUDACC_RTC__",
      "-DCUDALAB_MODULE",
      std::string("-fdebug-compilation-dir=") +
          std::string(kRuntimeCompileFolder).substr(0, std::strlen(kRuntimeCompileFolder) - 1)};
  for (const char* d : kCuDefines)  // NVRTC compiles as nvcc does, but is not nvcc
    if (std::strcmp(d, "__NVCC__") != 0) cmd.push_back(std::string("-D") + d);
  cmd.insert(cmd.end(), std::begin(kCompileFlags), std::end(kCompileFlags));
  if (m.instrumented) {
    cmd.insert(cmd.end(), std::begin(kInstrumentFlags), std::end(kInstrumentFlags));
    cmd.insert(cmd.end(), kTwinFlags.begin(), kTwinFlags.end());
  } else {
    cmd.insert(cmd.end(), kPlainFlags.begin(), kPlainFlags.end());
  }
  cmd.insert(cmd.end(), user_flags.begin(), user_flags.end());  // a later -std= wins
  cmd.push_back("-I" + (dir / "include").string());
  // Quoted includes next to the program: in the current folder, as NVRTC
  // looks for them.
  std::error_code cwd_error;
  if (const fs::path cwd = fs::current_path(cwd_error); !cwd_error) {
    cmd.push_back("-iquote");
    cmd.push_back(cwd.string());
  }
  cmd.push_back("-I" + simulator_headers());
  // NVRTC declares assert without a header.
  cmd.insert(cmd.end(), {"-include", "assert.h"});
  cmd.insert(cmd.end(),
             {"-x", "c++", (dir / "program.cpp").string(), "-o", (dir / "program.so").string()});

  const std::string log_path = (dir / "log").string();
  support::Child compiler;
  compiler.argv = cmd;
  compiler.output_file = log_path;
  compiler.stdin_null = true;
  std::string cannot_start;
  const pid_t pid = support::start(compiler, &cannot_start);
  if (pid < 0) {
    result.log = "cudalab: the host compiler: " + cannot_start + "\n";
    fs::remove_all(dir, ec);
    return result;
  }
  const support::Exit compiled = support::wait_for(pid);
  result.log += readable_log(read_file(log_path), dir);
  if (!compiled.ok()) {
    result.status = ModuleBuild::kCompileError;
    fs::remove_all(dir, ec);
    return result;
  }
  result.object = read_file(dir / "program.so");
  fs::remove_all(dir, ec);
  result.status = ModuleBuild::kBuilt;
  if (m.name_expressions.empty()) return result;
  // The lowered names: the symbols at the addresses the module gives.
  std::string why;
  void* handle = open_module_object(result.object, &why);
  const auto* addresses =
      handle ? static_cast<const void* const*>(dlsym(handle, "cudalab_name_expressions")) : nullptr;
  if (!addresses) {
    result.log += "cudalab: cannot find the name expressions' lowered names: " + why + "\n";
    result.status = ModuleBuild::kCannotCompile;
    return result;
  }
  for (size_t i = 0; i < m.name_expressions.size(); ++i) {
    Dl_info info{};
    const bool named =
        dladdr(addresses[i], &info) && info.dli_sname && info.dli_saddr == addresses[i];
    result.lowered_names.push_back(named ? info.dli_sname : "");
  }
  return result;
}

}  // namespace cudalab::rt

struct _nvrtcProgram {
  cudalab::rt::ModuleSource source;
  std::vector<std::string> name_expressions;
  std::string log;
  std::string image;  // "" until compiled
  std::vector<std::string> lowered_names;
};

namespace {
cudalab::rt::LiveHandles<nvrtcProgram>& programs() {
  static cudalab::rt::LiveHandles<nvrtcProgram> p;
  return p;
}
bool valid(nvrtcProgram p) { return programs().live(p); }
}  // namespace

extern "C" {

const char* nvrtcGetErrorString(nvrtcResult result) {
  switch (result) {
    case NVRTC_SUCCESS:
      return "NVRTC_SUCCESS";
    case NVRTC_ERROR_OUT_OF_MEMORY:
      return "NVRTC_ERROR_OUT_OF_MEMORY";
    case NVRTC_ERROR_PROGRAM_CREATION_FAILURE:
      return "NVRTC_ERROR_PROGRAM_CREATION_FAILURE";
    case NVRTC_ERROR_INVALID_INPUT:
      return "NVRTC_ERROR_INVALID_INPUT";
    case NVRTC_ERROR_INVALID_PROGRAM:
      return "NVRTC_ERROR_INVALID_PROGRAM";
    case NVRTC_ERROR_INVALID_OPTION:
      return "NVRTC_ERROR_INVALID_OPTION";
    case NVRTC_ERROR_COMPILATION:
      return "NVRTC_ERROR_COMPILATION";
    case NVRTC_ERROR_BUILTIN_OPERATION_FAILURE:
      return "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE";
    case NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION:
      return "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION";
    case NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION:
      return "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION";
    case NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID:
      return "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID";
    case NVRTC_ERROR_INTERNAL_ERROR:
      return "NVRTC_ERROR_INTERNAL_ERROR";
  }
  return "NVRTC_ERROR unknown";
}

nvrtcResult nvrtcVersion(int* major, int* minor) {
  if (!major || !minor) return NVRTC_ERROR_INVALID_INPUT;
  *major = 13;
  *minor = 0;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetNumSupportedArchs(int* count) {
  if (!count) return NVRTC_ERROR_INVALID_INPUT;
  *count = 1;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetSupportedArchs(int* archs) {
  if (!archs) return NVRTC_ERROR_INVALID_INPUT;
  archs[0] = 90;  // the simulated GPU's
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcCreateProgram(nvrtcProgram* program, const char* source, const char* name,
                               int header_count, const char* const* headers,
                               const char* const* include_names) {
  if (!program) return NVRTC_ERROR_INVALID_PROGRAM;  // as NVRTC 13 says
  if (!source || header_count < 0) return NVRTC_ERROR_INVALID_INPUT;
  if (header_count > 0 && (!headers || !include_names)) return NVRTC_ERROR_INVALID_INPUT;
  auto* p = new _nvrtcProgram;
  p->source.name = name && *name ? name : "default_program";
  p->source.source = source;
  for (int i = 0; i < header_count; ++i) {
    if (!include_names[i]) {
      delete p;
      return NVRTC_ERROR_INVALID_INPUT;
    }
    p->source.headers.emplace_back(include_names[i], headers[i] ? headers[i] : "");
  }
  std::lock_guard lock(programs().mutex);
  programs().set.insert(p);
  *program = p;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcDestroyProgram(nvrtcProgram* program) {
  if (!program || !valid(*program)) return NVRTC_ERROR_INVALID_PROGRAM;
  {
    std::lock_guard lock(programs().mutex);
    programs().set.erase(*program);
  }
  delete *program;
  *program = nullptr;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcAddNameExpression(nvrtcProgram program, const char* name_expression) {
  if (!valid(program)) return NVRTC_ERROR_INVALID_PROGRAM;
  if (!name_expression || !*name_expression) return NVRTC_ERROR_INVALID_INPUT;
  if (!program->image.empty()) return NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION;
  program->name_expressions.push_back(name_expression);
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcCompileProgram(nvrtcProgram program, int option_count,
                                const char* const* options) {
  if (!valid(program)) return NVRTC_ERROR_INVALID_PROGRAM;
  if (option_count < 0 || (option_count > 0 && !options)) return NVRTC_ERROR_INVALID_INPUT;
  program->source.options.clear();
  for (int i = 0; i < option_count; ++i) {
    if (!options[i]) return NVRTC_ERROR_INVALID_INPUT;
    program->source.options.push_back(options[i]);
  }
  program->source.name_expressions = program->name_expressions;
  program->source.instrumented = cudalab::rt::instrumented_build();
  const cudalab::rt::ModuleBuild built = cudalab::rt::build_module(program->source);
  program->log = built.log;
  switch (built.status) {
    case cudalab::rt::ModuleBuild::kBadOption:
      return NVRTC_ERROR_INVALID_OPTION;
    case cudalab::rt::ModuleBuild::kCompileError:
      return NVRTC_ERROR_COMPILATION;
    case cudalab::rt::ModuleBuild::kCannotCompile:
      return NVRTC_ERROR_BUILTIN_OPERATION_FAILURE;
    case cudalab::rt::ModuleBuild::kBuilt:
      break;
  }
  cudalab::module_image::Image image;
  image.name = program->source.name;
  image.source = program->source.source;
  image.options = program->source.options;
  for (const auto& [include_name, text] : program->source.headers)
    image.headers.emplace_back(include_name, text);
  (program->source.instrumented ? image.instrumented : image.plain) = built.object;
  program->image = cudalab::module_image::encode(image);
  program->lowered_names = built.lowered_names;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram program, size_t* size) {
  if (!valid(program)) return NVRTC_ERROR_INVALID_PROGRAM;
  if (!size) return NVRTC_ERROR_INVALID_INPUT;
  *size = program->log.size() + 1;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetProgramLog(nvrtcProgram program, char* log) {
  if (!valid(program)) return NVRTC_ERROR_INVALID_PROGRAM;
  if (!log) return NVRTC_ERROR_INVALID_INPUT;
  std::memcpy(log, program->log.c_str(), program->log.size() + 1);
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetPTXSize(nvrtcProgram program, size_t* size) {
  if (!valid(program)) return NVRTC_ERROR_INVALID_PROGRAM;
  if (!size) return NVRTC_ERROR_INVALID_INPUT;
  // Before a compile: an empty image (NVRTC 13 answers success too).
  *size = program->image.empty() ? 1 : program->image.size();  // its NUL included
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetPTX(nvrtcProgram program, char* ptx) {
  if (!valid(program)) return NVRTC_ERROR_INVALID_PROGRAM;
  if (!ptx) return NVRTC_ERROR_INVALID_INPUT;
  if (program->image.empty())
    *ptx = 0;
  else
    std::memcpy(ptx, program->image.data(), program->image.size());
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetCUBINSize(nvrtcProgram program, size_t* size) {
  return nvrtcGetPTXSize(program, size);
}

nvrtcResult nvrtcGetCUBIN(nvrtcProgram program, char* cubin) { return nvrtcGetPTX(program, cubin); }

nvrtcResult nvrtcGetLoweredName(nvrtcProgram program, const char* name_expression,
                                const char** lowered_name) {
  if (!valid(program)) return NVRTC_ERROR_INVALID_PROGRAM;
  if (!name_expression || !lowered_name) return NVRTC_ERROR_INVALID_INPUT;
  if (program->image.empty()) return NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION;
  for (size_t i = 0; i < program->name_expressions.size(); ++i)
    if (program->name_expressions[i] == name_expression && i < program->lowered_names.size() &&
        !program->lowered_names[i].empty()) {
      *lowered_name = program->lowered_names[i].c_str();
      return NVRTC_SUCCESS;
    }
  return NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID;
}

}  // extern "C"
