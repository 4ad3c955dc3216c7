// The driver API's modules: cuModuleLoad, cuModuleLoadData(Ex) and
// cuModuleLoadFatBinary read a module image (rewriter/module_image.h), load the
// shared object it holds for this build of the program (plain or
// instrumented; built from the image's source when it lacks that one) and
// give its kernels by name to cuModuleGetFunction, its variables to
// cuModuleGetGlobal.
#include "runtime/modules.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <sstream>

#include "grid/grid.h"
#include "rewriter/module_image.h"

namespace fs = std::filesystem;

// What tells the loader that the program exports its symbols to modules:
// found by dlsym only when the program was linked with them exported.
extern "C" __attribute__((used, visibility("default"))) const int cudalab_program_hosts_modules = 1;

namespace cudalab::rt {

bool program_hosts_modules(std::string* why) {
  if (dlsym(RTLD_DEFAULT, "cudalab_program_hosts_modules")) return true;
  *why =
      "this program was not built to load kernels at run time. Build it with -lcuda or -lnvrtc "
      "(cudalab-cc ... -lcuda -lnvrtc), or with RUNTIME_COMPILE in cudalab_add_cuda_executable, "
      "as a GPU build links those libraries";
  return false;
}

void* open_module_object(const std::string& object, std::string* why) {
  if (!program_hosts_modules(why)) return nullptr;
  // A file named by the object's contents: the same object loads once, and
  // the file stays for the reports that read its lines after a run.
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : object) hash = (hash ^ c) * 1099511628211ull;
  const char* tmp = std::getenv("TMPDIR");
  const fs::path dir = fs::path(tmp && *tmp ? tmp : "/tmp") /
                       ("cudalab-modules-" + std::to_string(static_cast<unsigned long>(getuid())));
  std::error_code ec;
  fs::create_directories(dir, ec);
  char name[40];
  std::snprintf(name, sizeof(name), "%016llx.so", static_cast<unsigned long long>(hash));
  const fs::path path = dir / name;
  if (!fs::exists(path, ec) || fs::file_size(path, ec) != object.size()) {
    const fs::path part = dir / (std::string(name) + "." + std::to_string(getpid()));
    {
      std::ofstream out(part, std::ios::binary);
      out.write(object.data(), std::streamsize(object.size()));
      if (!out) {
        *why = "cannot write the module to " + part.string();
        return nullptr;
      }
    }
    fs::rename(part, path, ec);
    if (ec) {
      *why = "cannot write the module to " + path.string() + ": " + ec.message();
      return nullptr;
    }
  }
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* e = dlerror();
    *why = std::string("the module did not load: ") + (e ? e : "unknown reason");
  }
  return handle;
}

}  // namespace cudalab::rt

namespace {

using cudalab::rt::driver_result;

cudalab::rt::LiveHandles<CUmodule>& modules() {
  static cudalab::rt::LiveHandles<CUmodule> m;
  return m;
}

// A symbol of the module by name, from its full symbol table: also the
// `static` ones (a `static __constant__` array, a static kernel), which a
// GPU finds by name too and dlsym does not. False when it has none.
bool find_symbol(void* handle, const char* name, void** address, size_t* size, int* type) {
  if (void* p = dlsym(handle, name)) {
    Dl_info info{};
    void* found = nullptr;
    if (dladdr1(p, &info, &found, RTLD_DL_SYMENT) && found) {
      const auto* entry = static_cast<const ElfW(Sym)*>(found);
      *address = p;
      *size = entry->st_size;
      *type = ELF64_ST_TYPE(entry->st_info);
      return true;
    }
  }
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name) return false;
  std::ifstream in(map->l_name, std::ios::binary);
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (file.size() < sizeof(ElfW(Ehdr))) return false;
  const auto* eh = reinterpret_cast<const ElfW(Ehdr)*>(file.data());
  if (std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_shoff + size_t(eh->e_shnum) * sizeof(ElfW(Shdr)) > file.size())
    return false;
  const auto* sh = reinterpret_cast<const ElfW(Shdr)*>(file.data() + eh->e_shoff);
  const std::string internal_name = "_ZL" + std::to_string(std::strlen(name)) + name;
  for (unsigned i = 0; i < eh->e_shnum; ++i) {
    if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
    const ElfW(Shdr)& strings = sh[sh[i].sh_link];
    if (sh[i].sh_offset + sh[i].sh_size > file.size() ||
        strings.sh_offset + strings.sh_size > file.size())
      continue;
    const auto* syms = reinterpret_cast<const ElfW(Sym)*>(file.data() + sh[i].sh_offset);
    for (size_t k = 0; k < sh[i].sh_size / sizeof(ElfW(Sym)); ++k) {
      const ElfW(Sym)& sym = syms[k];
      if (sym.st_name >= strings.sh_size || sym.st_shndx == SHN_UNDEF) continue;
      // A `static` variable at namespace scope is "_ZL12d_OptionData" in C++.
      const char* candidate = file.data() + strings.sh_offset + sym.st_name;
      if (std::strcmp(candidate, name) != 0 && internal_name != candidate) continue;
      *address = reinterpret_cast<void*>(map->l_addr + sym.st_value);
      *size = sym.st_size;
      *type = ELF64_ST_TYPE(sym.st_info);
      return true;
    }
  }
  return false;
}

CUresult load(CUmodule* module, const char* data, const char* api) {
  if (!module || !data) return CUDA_ERROR_INVALID_VALUE;
  cudalab::module_image::Image image;
  std::string why;
  if (!cudalab::module_image::decode(data, &image, &why)) {
    std::fprintf(stderr,
                 "cudalab: %s cannot load this image: %s. On the simulator, build module files "
                 "with cudalab-cc -fatbin (or -cubin, -ptx), or compile kernels with NVRTC "
                 "(CUDA_ERROR_INVALID_IMAGE)\n",
                 api, why.c_str());
    return CUDA_ERROR_INVALID_IMAGE;
  }
  const bool instrumented = cudalab::rt::instrumented_build();
  std::string object = instrumented ? image.instrumented : image.plain;
  if (object.empty()) {
    // Built for the other build of the program: build this one from the source.
    cudalab::rt::ModuleSource source;
    source.name = image.name;
    source.source = image.source;
    source.options = image.options;
    source.headers = image.headers;
    source.instrumented = instrumented;
    const cudalab::rt::ModuleBuild built = cudalab::rt::build_module(source);
    if (built.status != cudalab::rt::ModuleBuild::kBuilt) {
      std::fprintf(stderr, "cudalab: %s could not build the module %s for this program:\n%s", api,
                   image.name.c_str(), built.log.c_str());
      return built.status == cudalab::rt::ModuleBuild::kCannotCompile
                 ? CUDA_ERROR_JIT_COMPILER_NOT_FOUND
                 : CUDA_ERROR_INVALID_IMAGE;
    }
    object = built.object;
  }
  void* handle = cudalab::rt::open_module_object(object, &why);
  if (!handle) {
    std::fprintf(stderr, "cudalab: %s: %s (CUDA_ERROR_SHARED_OBJECT_INIT_FAILED)\n", api,
                 why.c_str());
    return CUDA_ERROR_SHARED_OBJECT_INIT_FAILED;
  }
  auto* m = new CUmod_st;
  m->handle = handle;
  m->name = image.name;
  std::lock_guard lock(modules().mutex);
  modules().set.insert(m);
  *module = m;
  return CUDA_SUCCESS;
}

}  // namespace

namespace cudalab::rt {
// The functions of live modules (driver_api.cpp checks a CUfunction here).
bool live_function(CUfunction f) {
  std::lock_guard lock(modules().mutex);
  if (!f) return false;
  for (CUmodule m : modules().set)
    for (const auto& [name, fn] : m->functions)
      if (fn.get() == f) return true;
  return false;
}
}  // namespace cudalab::rt

extern "C" {

CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  return load(module, static_cast<const char*>(image), "cuModuleLoadData");
}

CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int count,
                            CUjit_option* options, void** values) {
  if (count > 0 && (!options || !values)) return CUDA_ERROR_INVALID_VALUE;
  return load(module, static_cast<const char*>(image), "cuModuleLoadDataEx");
}

CUresult cuModuleLoadFatBinary(CUmodule* module, const void* image) {
  return load(module, static_cast<const char*>(image), "cuModuleLoadFatBinary");
}

CUresult cuModuleLoad(CUmodule* module, const char* file) {
  if (!module || !file) return CUDA_ERROR_INVALID_VALUE;
  std::ifstream in(file, std::ios::binary);
  if (!in) return CUDA_ERROR_FILE_NOT_FOUND;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  return load(module, text.c_str(), "cuModuleLoad");
}

CUresult cuModuleUnload(CUmodule module) {
  std::lock_guard lock(modules().mutex);
  if (!module || !modules().set.count(module)) return CUDA_ERROR_INVALID_HANDLE;
  // The shared object stays loaded: a kernel's code and its registration
  // must outlive handles a program may still hold by mistake.
  modules().set.erase(module);
  delete module;
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
  if (!function || !name) return CUDA_ERROR_INVALID_VALUE;
  if (!modules().live(module)) return CUDA_ERROR_INVALID_HANDLE;
  std::lock_guard lock(modules().mutex);
  if (auto it = module->functions.find(name); it != module->functions.end()) {
    *function = it->second.get();
    return CUDA_SUCCESS;
  }
  void* kernel = nullptr;
  size_t size = 0;
  int type = 0;
  if (!find_symbol(module->handle, name, &kernel, &size, &type) || type != STT_FUNC)
    kernel = nullptr;
  const char* registered = nullptr;
  cudalab::detail::KernelInvoker invoker =
      kernel ? cudalab::detail::find_kernel_invoker(kernel, &registered) : nullptr;
  if (!invoker) return CUDA_ERROR_NOT_FOUND;
  auto f = std::make_unique<CUfunc_st>();
  f->kernel = kernel;
  f->name = registered ? registered : name;
  f->invoker = invoker;
  f->module = module;
  *function = f.get();
  module->functions[name] = std::move(f);
  return CUDA_SUCCESS;
}

CUresult cuModuleGetGlobal(CUdeviceptr* address, size_t* bytes, CUmodule module, const char* name) {
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  if (!modules().live(module)) return CUDA_ERROR_INVALID_HANDLE;
  void* symbol = nullptr;
  size_t size = 0;
  int type = 0;
  if (!find_symbol(module->handle, name, &symbol, &size, &type) || type != STT_OBJECT)
    return CUDA_ERROR_NOT_FOUND;
  if (address) *address = reinterpret_cast<CUdeviceptr>(symbol);
  if (bytes) *bytes = size;
  return CUDA_SUCCESS;
}

}  // extern "C"
