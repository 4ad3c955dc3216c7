// Run-time compiled modules, shared by NVRTC (nvrtc.cpp), the module loader
// (modules.cpp) and the driver API (driver_api.cpp). Not a public header.
//
// A module is a kernel source compiled by the host compiler into a shared
// object that the running program loads. Its undefined symbols (the
// simulator's launch machinery, threadIdx, atomics) resolve to the running
// program's own, which a program built for the driver API or NVRTC exports
// (cudalab-cc with -lcuda or -lnvrtc, or RUNTIME_COMPILE in CMake): one
// allocation table, one worker pool, one set of checks.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cuda.h"
#include "cudalab/detail/launch.h"

namespace cudalab::rt {

// The folder a run-time compile names as its own in the line tables, which
// symbolize.cpp takes off again: reports say "saxpy.cu:3".
inline constexpr const char* kRuntimeCompileFolder = "/cudalab-nvrtc/";

struct ModuleSource {
  std::string name;                  // the program's name, as error messages say it
  std::string source;                // the kernel source as written
  std::vector<std::string> options;  // NVRTC's options as given
  std::vector<std::pair<std::string, std::string>> headers;  // include name, text
  std::vector<std::string> name_expressions;
  bool instrumented = false;  // for the instrumented build (checks, traces)
};

struct ModuleBuild {
  enum Status { kBuilt, kBadOption, kCompileError, kCannotCompile } status = kCannotCompile;
  std::string log;                         // the compiler's messages, at the program's own lines
  std::string object;                      // the shared object's bytes
  std::vector<std::string> lowered_names;  // one per name expression
};

// Compiles the source to a shared object: under a second for a small
// kernel, plain or instrumented.
ModuleBuild build_module(const ModuleSource& source);

// Whether this program exports the simulator's symbols for modules; if not,
// `why` says how to build it so.
bool program_hosts_modules(std::string* why);
// Loads a shared object built by build_module (kept in a file named by its
// contents under the temporary folder); nullptr and `why` when it cannot.
void* open_module_object(const std::string& object, std::string* why);

// The handles of one kind that are alive (modules, NVRTC programs), and the
// mutex that guards them.
template <class Handle>
struct LiveHandles {
  std::mutex mutex;
  std::set<Handle> set;
  bool live(Handle h) {
    std::lock_guard lock(mutex);
    return h && set.count(h);
  }
};

// Whether `f` is a function of a loaded module (modules.cpp).
bool live_function(CUfunc_st* f);
// A runtime error as the driver API says it.
CUresult driver_result(cudaError_t e);

}  // namespace cudalab::rt

// The driver API's handles.
struct CUmod_st;
struct CUfunc_st {
  const void* kernel = nullptr;  // the kernel's host function
  const char* name = nullptr;    // as registered ("vectorAdd", "f<int>")
  cudalab::detail::KernelInvoker invoker = nullptr;
  CUmod_st* module = nullptr;
};
struct CUmod_st {
  void* handle = nullptr;  // dlopen's
  std::string name;
  std::map<std::string, std::unique_ptr<CUfunc_st>> functions;
};
