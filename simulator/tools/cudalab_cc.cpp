// cudalab-cc: the simulator's compiler driver, used like nvcc.
//
//   cudalab-cc -O2 -I dir prog.cu other.cpp -o prog && ./prog
//
// Each .cu file goes through the launch rewriter, then every source is
// compiled by clang against the simulator's headers and linked with its
// runtime. Two programs come out: `prog`, plain and fast, and
// `prog.instrumented`, whose memory accesses the runtime observes; `prog`
// hands over to its twin when a run asks for a trace (CUDALAB_TRACE).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cudalab/support/nvcc_options.h"
#include "cudalab/support/process.h"
#include "cudalab_config.h"
#include "rewriter/dialect.h"
#include "rewriter/local_headers.h"
#include "rewriter/module_image.h"
#include "rewriter/rewrite.h"

namespace fs = std::filesystem;
namespace support = cudalab::support;

namespace {

const char* kUsage = R"(usage: cudalab-cc [options] files... [-o output]

Builds CUDA C++ (.cu) and C++ (.cpp/.cc/.cxx/.c) files into a program that
runs on cudalab's CPU simulator, the way nvcc builds one for a GPU.

options:
  -o FILE          name of the program (default a.out) or, with -c, the object
  -c               compile only; also writes FILE.instrumented unless --fast
  -x cu            treat the source files that follow as CUDA, whatever their name
  -fatbin, -cubin, -ptx
                   build one .cu file into a module that the driver API loads
                   (cuModuleLoad, cuModuleLoadData): the simulator's own image,
                   under the name the program loads (default FILE.fatbin, ...)
  -lcuda, -lnvrtc  the program uses the driver API or NVRTC: it is linked so
                   that modules it loads or compiles while it runs use its
                   simulator
  -I DIR, -D M[=V], -U M, -L DIR, -l LIB, -O0..-O3, -g, -std=c++NN (default
                   c++17, as nvcc; c++11 and c++14 build as c++17), -W...
                   passed to the host compiler as usual
  -Xcompiler OPT   pass OPT to the host compiler
  --fast           build only the plain program, no instrumented twin
                   (traces and checks then need a rebuild without --fast)
  --instrumented   build one program, instrumented (what grading uses)
  --one-at-a-time  compile the plain program, then its instrumented twin, and
                   stop at the first that fails (for a grader that already
                   runs a build per core: a file that does not compile then
                   costs one compile, not two)
  --keep           keep the rewritten sources (printed with their paths)
  -v, --verbose    print each command
  --precompile-runtime DIR
                   (for the build) precompile the simulator's cuda_runtime.h
                   into DIR, for the default recipe (-std=c++17 -O2), plain
                   and instrumented; later builds with that recipe use it
  --help, --version
nvcc's options for a GPU's code generator, which mean nothing on the
simulator, are accepted and ignored (with their values):
)";

struct Options {
  std::vector<std::string> sources, objects, compile_flags, link_flags;
  std::string output;
  std::vector<bool> is_cuda;   // per source: rewrite it as CUDA
  bool treat_as_cuda = false;  // -x cu: the following sources are CUDA
  bool compile_only = false, fast = false, only_instrumented = false, keep = false, verbose = false;
  bool one_at_a_time = false;               // --one-at-a-time
  bool hosts_modules = false;               // -lcuda or -lnvrtc: exports the simulator to modules
  std::string module_kind;                  // "fatbin", "cubin" or "ptx": build a module image
  std::vector<std::string> module_options;  // -I, -D, -U, -std= again, for the image
  std::string precompile_dir;               // --precompile-runtime DIR
};

// `words` (separated by ", ") in lines of at most 78 columns, indented.
std::string wrapped(const std::string& words, size_t indent) {
  std::string out, line(indent, ' ');
  size_t at = 0;
  while (at < words.size()) {
    size_t end = words.find(", ", at);
    end = end == std::string::npos ? words.size() : end + 2;
    const std::string word = words.substr(at, end - at);
    if (line.size() + word.size() > 78 && line.size() > indent) {
      out += line + "\n";
      line.assign(indent, ' ');
    }
    line += word;
    at = end;
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return out + line;
}

[[noreturn]] void usage_error(const std::string& msg) {
  std::cerr << "cudalab-cc: " << msg << "\n(run cudalab-cc --help for the options)\n";
  std::exit(2);
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Options parse(int argc, char** argv) {
  Options o;
  bool std_given = false, opt_given = false;
  const std::vector<std::string> args(argv, argv + argc);
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const std::string& flag) -> std::string {
      if (a.size() > flag.size()) return a.substr(flag.size() + (a[flag.size()] == '=' ? 1 : 0));
      if (i + 1 >= argc) usage_error(flag + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::cout << kUsage << wrapped(support::gpu_only_option_names(support::FrontEnd::kNvcc), 2)
                << "\n";
      std::exit(0);
    } else if (a == "--version") {
      std::cout << "cudalab-cc 0.1 (CUDA " << CUDALAB_CUDA_VERSION_TEXT
                << " runtime API on the CPU simulator)\n";
      std::exit(0);
    } else if (a == "-o") {
      if (i + 1 >= argc) usage_error("-o needs a file name");
      o.output = argv[++i];
    } else if (a == "-c") {
      o.compile_only = true;
    } else if (a == "--fast") {
      o.fast = true;
    } else if (a == "--instrumented") {
      o.only_instrumented = true;
    } else if (a == "--one-at-a-time") {
      o.one_at_a_time = true;
    } else if (a == "--keep") {
      o.keep = true;
    } else if (a == "-v" || a == "--verbose") {
      o.verbose = true;
    } else if (a == "--precompile-runtime") {
      if (i + 1 >= argc) usage_error(a + " needs a folder");
      o.precompile_dir = argv[++i];
    } else if (const size_t n =
                   support::gpu_only_option(args, size_t(i), support::FrontEnd::kNvcc)) {
      i += int(n) - 1;  // a GPU's code generator's option, and its value: nothing to do here
    } else if (a.rfind("-I", 0) == 0) {
      o.compile_flags.push_back("-I" + value("-I"));
    } else if (a.rfind("-D", 0) == 0) {
      o.compile_flags.push_back("-D" + value("-D"));
    } else if (a.rfind("-U", 0) == 0) {
      o.compile_flags.push_back("-U" + value("-U"));
    } else if (a.rfind("-L", 0) == 0) {
      o.link_flags.push_back("-L" + value("-L"));
    } else if (a == "-lcuda" || a == "-lnvrtc" || a == "-lcuda_driver") {
      o.hosts_modules = true;  // the simulator is both libraries
    } else if (a == "-fatbin" || a == "--fatbin" || a == "-cubin" || a == "--cubin" ||
               a == "-ptx" || a == "--ptx") {
      o.module_kind = a.substr(a.find_first_not_of('-'));
    } else if (a.rfind("-l", 0) == 0) {
      o.link_flags.push_back("-l" + value("-l"));
    } else if (a == "-Xcompiler" || a == "--compiler-options") {
      if (i + 1 >= argc) usage_error(a + " needs a value");
      std::stringstream ss(argv[++i]);
      for (std::string part; std::getline(ss, part, ',');) o.compile_flags.push_back(part);
    } else if (a.rfind("-O", 0) == 0) {
      opt_given = true;
      o.compile_flags.push_back(a);
    } else if (a.rfind("-std=", 0) == 0) {
      std_given = true;
      for (std::string& f : cudalab::rewriter::dialect_flags(a.substr(5)))
        o.compile_flags.push_back(std::move(f));
    } else if (a == "-g" || a.rfind("-W", 0) == 0 || a.rfind("-f", 0) == 0 ||
               a.rfind("-m", 0) == 0) {
      o.compile_flags.push_back(a);
    } else if (a == "-x") {
      if (i + 1 >= argc) usage_error("-x needs a language (cu, c++ or none)");
      const std::string lang = argv[++i];
      if (lang != "cu" && lang != "c++" && lang != "none")
        usage_error("-x " + lang + ": the languages here are cu, c++ and none");
      o.treat_as_cuda = lang == "cu";
    } else if (a.size() > 1 && a[0] == '-') {
      usage_error("unknown option " + a);
    } else if (ends_with(a, ".cu") || ends_with(a, ".cpp") || ends_with(a, ".cc") ||
               ends_with(a, ".cxx") || ends_with(a, ".c")) {
      o.sources.push_back(a);
      o.is_cuda.push_back(ends_with(a, ".cu") || o.treat_as_cuda);
    } else if (ends_with(a, ".o") || ends_with(a, ".a") || ends_with(a, ".so")) {
      o.objects.push_back(a);
    } else {
      usage_error("don't know what to do with " + a +
                  " (expected .cu, .cpp, .cc, .cxx, .c, .o or .a)");
    }
  }
  if (o.sources.empty() && o.objects.empty() && o.precompile_dir.empty())
    usage_error("no input files");
  if (!o.module_kind.empty() &&
      (o.sources.size() != 1 || !o.is_cuda[0] || !o.objects.empty() || o.compile_only))
    usage_error("-" + o.module_kind + " takes exactly one .cu file");
  for (const auto& f : o.compile_flags)
    if (f.rfind("-I", 0) == 0 || f.rfind("-D", 0) == 0 || f.rfind("-U", 0) == 0 ||
        f.rfind("-std=", 0) == 0)
      o.module_options.push_back(f.rfind("-I", 0) == 0 ? "-I" + fs::absolute(f.substr(2)).string()
                                                       : f);
  if (o.compile_only && o.sources.size() != 1 && !o.output.empty())
    usage_error("-c with -o takes exactly one source file");
  for (const auto& s : o.sources)
    if (!fs::exists(s)) usage_error(s + ": no such file");
  // nvcc's default dialect, so programs compile as they do there.
  if (!std_given) o.compile_flags.insert(o.compile_flags.begin(), "-std=c++17");
  if (!opt_given) o.compile_flags.push_back("-O2");
  return o;
}

// Runs the commands in parallel; true when all succeed.
// The compiler's messages as the student wrote the code: a line the rewriter
// changed (a launch, a kernel's registration) shows as it is in their file,
// without the rewriter's text or a column that no longer fits; notes from
// inside the simulator's headers or the standard library's, and the
// rewriter's own machinery, are left out. Everything else is as clang said.
std::string as_the_student_wrote_it(const std::string& text) {
  static const std::regex header(R"(^(.+?):(\d+):(\d+): (fatal error|error|warning|note): (.*)$)");
  std::vector<std::string> lines;
  {
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  std::map<std::string, std::vector<std::string>> sources;  // original files, by path
  auto source_line = [&](const std::string& file, size_t line) -> const std::string* {
    auto [it, fresh] = sources.try_emplace(file);
    if (fresh) {
      std::ifstream in(file);
      for (std::string l; std::getline(in, l);) it->second.push_back(l);
    }
    return line >= 1 && line <= it->second.size() ? &it->second[line - 1] : nullptr;
  };
  auto ours = [](const std::string& file) {
    return file.rfind("/usr/", 0) == 0 || file.rfind(CUDALAB_SIM_INCLUDE_DIR, 0) == 0;
  };
  std::string out;
  for (size_t i = 0; i < lines.size();) {
    std::smatch m;
    if (!std::regex_match(lines[i], m, header)) {
      out += lines[i++] + "\n";  // "In file included from", "1 error generated."
      continue;
    }
    size_t end = i + 1;
    while (end < lines.size() && !std::regex_match(lines[end], header) &&
           lines[end].find(" generated.") == std::string::npos &&
           lines[end].rfind("In file included from ", 0) != 0)
      ++end;
    const std::string file = m[1], kind = m[4], message = m[5];
    const bool noise =
        kind == "note" && (ours(file) || message.find("cudalab::detail") != std::string::npos ||
                           message.find("cudalab_") != std::string::npos);
    if (!noise) {
      const std::string* original = source_line(file, std::stoul(m[2].str()));
      const bool rewritten = original && end > i + 1 && lines[i + 1] != *original;
      if (rewritten) {
        out += file + ":" + m[2].str() + ": " + kind + ": " + message + "\n";
        out += *original + "\n";
      } else {
        for (size_t k = i; k < end; ++k) out += lines[k] + "\n";
      }
    }
    i = end;
  }
  return out;
}

// A compiler that crashed (out of memory, most often: a template or constexpr
// computation that grows without end) prints a backtrace of its own code and
// asks for a bug report. The student gets what it was doing in their file
// (the "instantiating ... here" lines of its dump, the first few) and what
// that means; the backtrace is left out. Other messages are unchanged.
std::string without_crash_dump(const std::string& text) {
  const size_t dump = text.find("\nStack dump:\n");
  if (dump == std::string::npos) return text;
  const size_t plea = text.rfind("\nPLEASE submit a bug report", dump);
  std::string out = text.substr(0, (plea == std::string::npos ? dump : plea) + 1);
  static const std::regex context(R"(^\d+\.\t(.+:\d+:\d+: .*)$)");
  std::istringstream in(text.substr(dump + 1));
  int shown = 0;
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_match(l, m, context) && ++shown <= 4) out += "  at " + m[1].str() + "\n";
  }
  if (shown > 4) out += "  ... (" + std::to_string(shown - 4) + " more levels)\n";
  out += text.find("out of memory") != std::string::npos
             ? "cudalab-cc: the compiler ran out of memory on this file: something in it grows "
               "without end at compile time (a template that instantiates ever more templates, "
               "or a constexpr computation?)\n"
             : "cudalab-cc: the compiler crashed on this file (not a mistake of yours alone: "
               "try writing the line above another way)\n";
  return out;
}

// A compile that failed inside a CUDA toolkit's own header (one whose folder
// holds the toolkit's cuda_runtime_api.h, as /usr/local/include may when a
// toolkit is installed there): the simulator's compiler found it because
// the simulator has no header of that name. Says so at the student's
// #include, once; "" when the messages show no such header.
std::string toolkit_header_hint(const std::string& messages) {
  static const std::regex included(R"(^In file included from (.+?):(\d+):)");
  static const std::regex located(R"(^(.+?):\d+:\d+: (?:fatal error|error): )");
  auto toolkit = [](const fs::path& file) {
    const std::string f = file.string();
    if (f.rfind(CUDALAB_SIM_INCLUDE_DIR, 0) == 0) return false;
    for (fs::path dir = file.parent_path(); !dir.empty() && dir != dir.root_path();
         dir = dir.parent_path()) {
      std::error_code ec;
      if (fs::exists(dir / "cuda_runtime_api.h", ec)) return true;
      if (dir.filename() != "crt" && dir.filename() != "cuda" && dir.filename() != "thrust" &&
          dir.filename() != "cub" && dir.filename() != "cccl")
        return false;  // only the toolkit's own sub-folders are looked above
    }
    return false;
  };
  std::istringstream in(messages);
  std::string first_include;  // "mine.cu:3", the outermost include of the current message
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, included)) {
      if (first_include.empty()) first_include = m[1].str() + ":" + m[2].str();
      continue;
    }
    if (std::regex_search(line, m, located) && toolkit(fs::path(m[1].str())) &&
        !first_include.empty()) {
      const std::string where = first_include;
      const std::string file = where.substr(0, where.rfind(':'));
      std::string written;  // the #include line as the student wrote it
      std::ifstream source(file);
      const size_t number = std::stoul(where.substr(where.rfind(':') + 1));
      for (size_t k = 1; std::getline(source, written) && k < number; ++k) {
      }
      const std::string header = m[1].str();
      if (header.find("/thrust/") != std::string::npos || header.find("/cub/") != std::string::npos)
        return where + ": note: " + (written.empty() ? "an #include" : written) +
               " found a CUDA toolkit's own Thrust, " + header +
               ", which the cudalab simulator cannot compile. The simulator runs Debian's Thrust: "
               "install it (apt-get install libthrust-dev libcub-dev, as setup.sh does), then "
               "configure and build cudalab again.\n";
      return where + ": note: " + (written.empty() ? "an #include" : written) +
             " found a CUDA toolkit's own header, " + header +
             ", which the cudalab simulator cannot compile: the simulator has no header of that "
             "name, so that library is not supported on it yet (see docs/simulator.md for what "
             "is). On a GPU, build with nvcc.\n";
    }
    first_include.clear();  // an include chain comes right before its message
  }
  return "";
}

// Runs the commands at once (one_at_a_time: one after the other, up to the
// first that fails). A compile's messages (`filter`) are shown as the
// student wrote the code, and the same messages from the two builds of one
// file (plain and instrumented) once.
bool run_all(const std::vector<std::vector<std::string>>& commands, bool verbose,
             bool filter = false, std::string* held = nullptr, bool one_at_a_time = false) {
  std::vector<pid_t> pids;
  std::vector<std::string> logs;
  bool ok = true;
  auto wait_for = [&](pid_t pid) { ok = support::wait_for(pid).ok() && ok; };
  for (const auto& cmd : commands) {
    if (!ok) break;
    if (verbose) {
      for (const auto& a : cmd) std::cerr << support::shell_quote(a) << ' ';
      std::cerr << '\n';
    }
    std::string log;
    support::Child child;
    child.argv = cmd;
    child.who = "cudalab-cc: ";
    int log_fd = -1;
    if (filter) {
      char name[] = "/tmp/cudalab-cc-log.XXXXXX";
      log_fd = mkostemp(name, O_CLOEXEC);
      if (log_fd >= 0) {
        log = name;
        child.fds = {{2, log_fd}};
      }
    }
    logs.push_back(log);
    std::string why;
    const pid_t pid = support::start(child, &why);
    if (log_fd >= 0) close(log_fd);
    if (pid < 0) {
      std::cerr << "cudalab-cc: " << why << '\n';
      ok = false;
      break;
    }
    if (one_at_a_time)
      wait_for(pid);
    else
      pids.push_back(pid);
  }
  for (pid_t pid : pids) wait_for(pid);
  std::set<std::string> said;
  for (const std::string& log : logs) {
    if (log.empty()) continue;
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    fs::remove(log);
    const std::string shown =
        as_the_student_wrote_it(without_crash_dump(text.str())) + toolkit_header_hint(text.str());
    if (shown.empty() || !said.insert(shown).second) continue;
    if (held)
      *held += shown;
    else
      std::cerr << shown;
  }
  return ok;
}

// The build recipe, shared with CMake's cudalab_add_cuda_executable
// (cmake/CudalabRecipe.cmake says why each flag is there).
const char* const kCuDefines[] = {CUDALAB_RECIPE_CU_DEFINES};
const char* const kCompileFlags[] = {CUDALAB_RECIPE_COMPILE_FLAGS};
const char* const kInstrumentFlags[] = {CUDALAB_RECIPE_INSTRUMENT_FLAGS};
const std::vector<std::string> kPlainFlags = {CUDALAB_RECIPE_PLAIN_FLAGS};
const std::vector<std::string> kTwinFlags = {CUDALAB_RECIPE_TWIN_FLAGS};
const char* const kLinkLibs[] = {CUDALAB_RECIPE_LINK_LIBS};

// cuda_runtime.h precompiled (--precompile-runtime), plain and instrumented:
// half of a small file's compile is spent parsing it. Clang takes a
// precompiled header only where the language options and macros it was
// made with still hold, so it is used with the default recipe alone:
// -std=c++17, an optimizing -O1 to -O3, no -D, -U, -f or -m of the user's
// (-I, -W and -g change nothing it holds).
const char* const kPchNames[] = {"cuda_runtime.plain.pch", "cuda_runtime.instrumented.pch"};

bool recipe_takes_pch(const Options& o) {
  bool std17 = false;
  for (const auto& f : o.compile_flags) {
    if (f == "-std=c++17")
      std17 = true;
    else if (!(f == "-O1" || f == "-O2" || f == "-O3" || f == "-g" || f.rfind("-I", 0) == 0 ||
               (f.rfind("-W", 0) == 0 && f.find(',') == std::string::npos)))
      return false;
  }
  return std17;
}

// The precompiled header for a variant (0 plain, 1 instrumented), or "".
std::string runtime_pch(const Options& o, int variant) {
  if (!recipe_takes_pch(o) || std::getenv("CUDALAB_CC_NO_PCH")) return "";
  const fs::path pch = fs::path(CUDALAB_PCH_DIR) / kPchNames[variant];
  std::error_code ec;
  return fs::is_regular_file(pch, ec) ? pch.string() : "";
}

// What clang says when a precompiled header no longer fits (the headers or
// the compiler changed since it was made): then the build goes on without it.
bool pch_refused(const std::string& said) {
  return said.find("precompiled header") != std::string::npos ||
         said.find("PCH file") != std::string::npos || said.find("AST file") != std::string::npos;
}

// The compile of one source (or, with input cuda_runtime.h and
// language c++-header, of the precompiled header) in a variant.
std::vector<std::string> compile_command(const Options& o, int variant, bool is_c,
                                         const std::vector<std::string>& source_flags,
                                         const std::string& language, const std::string& pch,
                                         const std::string& input, const std::string& output) {
  std::vector<std::string> cmd = {is_c ? CUDALAB_CC : CUDALAB_CXX};
  if (!is_c)
    cmd.insert(cmd.end(), o.compile_flags.begin(), o.compile_flags.end());
  else
    for (const auto& f : o.compile_flags)
      if (f.rfind("-std=", 0) != 0) cmd.push_back(f);
  cmd.insert(cmd.end(), source_flags.begin(), source_flags.end());
  cmd.push_back("-I" CUDALAB_SIM_INCLUDE_DIR);
  cmd.insert(cmd.end(), std::begin(kCompileFlags), std::end(kCompileFlags));
  if (variant == 1) {
    for (const char* f : kInstrumentFlags) cmd.push_back(f);
    cmd.insert(cmd.end(), kTwinFlags.begin(), kTwinFlags.end());
  } else if (!is_c) {
    cmd.insert(cmd.end(), kPlainFlags.begin(), kPlainFlags.end());
  }
  if (!pch.empty()) cmd.insert(cmd.end(), {"-include-pch", pch});
  if (!language.empty()) cmd.insert(cmd.end(), {"-x", language});
  cmd.insert(cmd.end(), {"-c", input, "-o", output});
  return cmd;
}

// --precompile-runtime DIR: both precompiled headers, each written whole
// (a build that reads one never sees it half written).
int precompile_runtime(const Options& o) {
  std::error_code ec;
  fs::create_directories(o.precompile_dir, ec);
  std::vector<std::string> defines;
  for (const char* d : kCuDefines) defines.push_back(std::string("-D") + d);
  std::vector<std::vector<std::string>> compiles;
  // The templates the header itself uses (its math, atomics and the
  // library's own) are instantiated once here rather than at the end of
  // every compile that reads it: 0.39 s to 0.34 s for a lesson's file.
  for (const char* d : {"-Xclang", "-fpch-instantiate-templates"}) defines.push_back(d);
  for (int variant = 0; variant < 2; ++variant) {
    const fs::path out = fs::path(o.precompile_dir) / kPchNames[variant];
    compiles.push_back(compile_command(o, variant, false, defines, "c++-header", "",
                                       CUDALAB_SIM_INCLUDE_DIR "/cuda_runtime.h",
                                       out.string() + ".new"));
  }
  if (!run_all(compiles, o.verbose)) return 1;
  for (const char* name : kPchNames) {
    const fs::path out = fs::path(o.precompile_dir) / name;
    fs::rename(out.string() + ".new", out, ec);
    if (ec) {
      std::cerr << "cudalab-cc: cannot write " << out.string() << ": " << ec.message() << '\n';
      return 1;
    }
  }
  return 0;
}

// Builds the image of `-fatbin` (and -cubin, -ptx) from the rewritten
// source; 0 when written.
int build_module_image(const Options& o, const std::string& input,
                       const std::vector<std::string>& source_flags, const fs::path& tmp) {
  std::vector<std::vector<std::string>> compiles;
  const bool want_plain = !o.only_instrumented;
  const bool want_instrumented = o.only_instrumented || !o.fast;
  std::vector<std::string> outputs;
  for (int variant = 0; variant < 2; ++variant) {
    if ((variant == 0 && !want_plain) || (variant == 1 && !want_instrumented)) continue;
    std::vector<std::string> cmd = {CUDALAB_CXX};
    cmd.insert(cmd.end(), o.compile_flags.begin(), o.compile_flags.end());
    cmd.insert(cmd.end(), source_flags.begin(), source_flags.end());
    cmd.push_back("-I" CUDALAB_SIM_INCLUDE_DIR);
    cmd.insert(cmd.end(), std::begin(kCompileFlags), std::end(kCompileFlags));
    if (variant == 1) {
      for (const char* f : kInstrumentFlags) cmd.push_back(f);
      cmd.insert(cmd.end(), kTwinFlags.begin(), kTwinFlags.end());
    } else {
      cmd.insert(cmd.end(), kPlainFlags.begin(), kPlainFlags.end());
    }
    const std::string out = (tmp / (variant ? "instrumented.so" : "plain.so")).string();
    cmd.insert(cmd.end(), {"-DCUDALAB_MODULE", "-fPIC", "-shared", "-x", "c++", input, "-o", out});
    compiles.push_back(cmd);
    outputs.push_back(out);
  }
  if (!run_all(compiles, o.verbose, /*filter=*/true)) return 1;
  auto read = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  cudalab::module_image::Image image;
  image.name = o.sources[0];
  image.source = read(o.sources[0]);
  image.options = o.module_options;
  for (const auto& out : outputs)
    (ends_with(out, "instrumented.so") ? image.instrumented : image.plain) = read(out);
  const std::string output =
      o.output.empty() ? fs::path(o.sources[0]).stem().string() + "." + o.module_kind : o.output;
  std::ofstream file(output, std::ios::binary);
  const std::string text = cudalab::module_image::encode(image);
  file.write(text.data(), std::streamsize(text.size()));
  if (!file) {
    std::cerr << "cudalab-cc: cannot write " << output << '\n';
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  if (!o.precompile_dir.empty()) return precompile_runtime(o);
  char tmpl[] = "/tmp/cudalab-cc.XXXXXX";
  const char* tmp_base = std::getenv("TMPDIR");
  std::string tmpdir_pattern =
      std::string(tmp_base && *tmp_base ? tmp_base : "/tmp") + "/cudalab-cc.XXXXXX";
  std::vector<char> pattern(tmpdir_pattern.begin(), tmpdir_pattern.end());
  pattern.push_back(0);
  char* dir = mkdtemp(pattern.data());
  if (!dir) dir = mkdtemp(tmpl);
  if (!dir) {
    std::cerr << "cudalab-cc: cannot make a temporary folder: " << std::strerror(errno) << '\n';
    return 1;
  }
  const fs::path tmp = dir;
  auto cleanup = [&] {
    if (!o.keep) fs::remove_all(tmp);
  };

  // 1. Rewrite the .cu files (and the local headers they include that need it).
  std::vector<std::string> compile_inputs;
  std::vector<std::vector<std::string>> per_source_flags;
  bool problems = false;
  std::vector<fs::path> include_dirs;
  for (const auto& f : o.compile_flags)
    if (f.rfind("-I", 0) == 0) include_dirs.push_back(f.substr(2));
  cudalab::rewriter::LocalHeaders headers(include_dirs, fs::path(dir).lexically_normal());
  for (size_t k = 0; k < o.sources.size(); ++k) {
    const std::string& src = o.sources[k];
    if (!o.is_cuda[k]) {
      compile_inputs.push_back(src);
      per_source_flags.push_back({});
      continue;
    }
    std::ifstream in(src, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    auto r = cudalab::rewriter::rewrite(ss.str(), src);
    for (const auto& p : r.problems) {
      std::cerr << src << ":" << p.line << ": error: " << p.message << '\n';
      problems = true;
    }
    const fs::path unit_dir = tmp / ("u" + std::to_string(compile_inputs.size()));
    fs::create_directories(unit_dir);
    const fs::path out = unit_dir / (fs::path(src).filename().string() + ".cpp");
    std::ofstream(out, std::ios::binary) << r.text;
    for (const auto& p : headers.rewrite_included(fs::absolute(src), ss.str(), unit_dir)) {
      std::cerr << p.file << ":" << p.line << ": error: " << p.message << '\n';
      problems = true;
    }
    // Quoted includes next to the original file; and what nvcc defines.
    per_source_flags.push_back({"-iquote", fs::absolute(src).parent_path().string()});
    for (const char* d : kCuDefines) per_source_flags.back().push_back(std::string("-D") + d);
    if (o.keep) std::cerr << "cudalab-cc: kept " << out.string() << " (from " << src << ")\n";
    compile_inputs.push_back(out.string());
  }
  if (problems) {
    cleanup();
    return 1;
  }

  // 2'. A module image: the kernels as shared objects, plain and
  // instrumented, and the source (rewriter/module_image.h).
  if (!o.module_kind.empty()) {
    const int built = build_module_image(o, compile_inputs[0], per_source_flags[0], tmp);
    cleanup();
    return built;
  }

  // 2. Compile each source, plain and instrumented, in parallel.
  const bool want_plain = !o.only_instrumented;
  const bool want_instrumented = o.only_instrumented || !o.fast;
  std::vector<std::vector<std::string>> compiles, without_pch;
  std::vector<std::string> plain_objects, instrumented_objects;
  for (size_t k = 0; k < compile_inputs.size(); ++k) {
    const std::string& input = compile_inputs[k];
    const bool is_c = ends_with(o.sources[k], ".c") && !o.is_cuda[k];
    std::string stem = fs::path(o.sources[k]).stem().string();
    for (int variant = 0; variant < 2; ++variant) {
      if ((variant == 0 && !want_plain) || (variant == 1 && !want_instrumented)) continue;
      std::string obj;
      if (o.compile_only) {
        std::string base = o.output.empty() ? stem + ".o" : o.output;
        obj = variant == 0 || o.only_instrumented ? base : base + ".instrumented";
      } else {
        obj = (tmp / (std::to_string(k) + (variant ? ".i.o" : ".o"))).string();
      }
      const std::string language = o.is_cuda[k] ? "c++" : "";
      const std::string pch = o.is_cuda[k] ? runtime_pch(o, variant) : "";
      compiles.push_back(
          compile_command(o, variant, is_c, per_source_flags[k], language, pch, input, obj));
      without_pch.push_back(
          compile_command(o, variant, is_c, per_source_flags[k], language, "", input, obj));
      (variant == 0 ? plain_objects : instrumented_objects).push_back(obj);
    }
  }
  if (!compiles.empty()) {
    std::string said;
    bool compiled = run_all(compiles, o.verbose, /*filter=*/true, &said, o.one_at_a_time);
    if (!compiled && compiles != without_pch && pch_refused(said)) {
      said.clear();
      compiled = run_all(without_pch, o.verbose, /*filter=*/true, &said, o.one_at_a_time);
    }
    std::cerr << said;
    if (!compiled) {
      cleanup();
      return 1;
    }
  }
  if (o.compile_only) {
    cleanup();
    return 0;
  }

  // 3. Link.
  const std::string output = o.output.empty() ? "a.out" : o.output;
  std::vector<std::vector<std::string>> links;
  auto link = [&](std::vector<std::string> objects, const std::string& out, bool instrumented) {
    std::vector<std::string> cmd = {CUDALAB_CXX};
    cmd.insert(cmd.end(), objects.begin(), objects.end());
    for (const auto& obj : o.objects) {
      // An object compiled with -c has its instrumented twin beside it.
      std::string twin = obj + ".instrumented";
      cmd.push_back(instrumented && fs::exists(twin) ? twin : obj);
    }
    cmd.insert(cmd.end(), o.link_flags.begin(), o.link_flags.end());
    for (const auto& f : o.compile_flags)
      if (f == "-fopenmp" || f.rfind("-fsanitize=", 0) == 0)
        cmd.push_back(f);  // needed to link too
    if (o.hosts_modules)
      // All of the simulator, its symbols exported: what modules loaded
      // while the program runs resolve their own against.
      cmd.insert(cmd.end(), {"-rdynamic", "-Wl,--whole-archive", CUDALAB_SIM_LIBRARY,
                             "-Wl,--no-whole-archive", CUDALAB_BOOST_CONTEXT_LIBRARY});
    else
      cmd.insert(cmd.end(), {CUDALAB_SIM_LIBRARY, CUDALAB_BOOST_CONTEXT_LIBRARY});
    cmd.insert(cmd.end(), std::begin(kLinkLibs), std::end(kLinkLibs));
    cmd.insert(cmd.end(), {"-o", out});
    links.push_back(cmd);
  };
  if (want_plain) link(plain_objects, output, false);
  if (want_instrumented)
    link(instrumented_objects, o.only_instrumented ? output : output + ".instrumented", true);
  const bool ok = run_all(links, o.verbose, false, nullptr, o.one_at_a_time);
  if (ok && o.fast) fs::remove(output + ".instrumented");  // no stale twin
  cleanup();
  return ok ? 0 : 1;
}
