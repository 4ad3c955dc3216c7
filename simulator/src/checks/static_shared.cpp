// Where a program's static __shared__ variables are. The kernel language
// makes each one a thread_local tagged `[abi:cudalab_shared]`, so every
// worker has its own copy in its thread-local block. Their offsets, sizes and
// names come from the program's symbol table; a worker adds its thread-local
// base to get the addresses its blocks use.
#include <cxxabi.h>
#include <elf.h>
#include <link.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>

#include "checks/shadow.h"

// After the program's static __shared__ variables in their section (the
// runtime library is linked after the program's objects): accesses past the
// last variable land here instead of in other thread-locals.
extern "C" {
thread_local char cudalab_shared_guard[cudalab::rt::kSharedGuard]
    __attribute__((section("cudalab_shared"), used));
}

namespace cudalab::rt {
namespace {

constexpr const char* kTag = "B14cudalab_shared";

std::string readable_name(const char* mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && d ? d : mangled;
  std::free(d);
  // "matmul(float const*, ...)::tile[abi:cudalab_shared]" -> "tile" in "matmul"
  if (size_t tag = name.find("[abi:cudalab_shared]"); tag != std::string::npos)
    name.erase(tag, std::strlen("[abi:cudalab_shared]"));
  // "`tile` in matmul": the variable, then the function without its
  // parameters.
  const size_t sep = name.rfind("::");
  if (sep == std::string::npos) return "`" + name + "`";
  std::string function = name.substr(0, sep);
  if (size_t open = function.find('('); open != std::string::npos) function.resize(open);
  return "`" + name.substr(sep + 2) + "` in " + function;
}

struct Symbols {
  std::vector<StaticSharedVariable> shared;  // the __shared__ variables
  std::vector<StaticSharedVariable> others;  // other thread-locals
};

Symbols read_symbols() {
  Symbols result;
  std::vector<StaticSharedVariable>& vars = result.shared;
  std::ifstream in("/proc/self/exe", std::ios::binary);
  std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (file.size() < sizeof(Elf64_Ehdr)) return result;
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(file.data());
  if (std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64)
    return result;
  if (eh->e_shoff + size_t(eh->e_shnum) * sizeof(Elf64_Shdr) > file.size()) return result;
  const auto* sh = reinterpret_cast<const Elf64_Shdr*>(file.data() + eh->e_shoff);
  for (unsigned i = 0; i < eh->e_shnum; ++i) {
    if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
    const Elf64_Shdr& strings = sh[sh[i].sh_link];
    if (sh[i].sh_offset + sh[i].sh_size > file.size() ||
        strings.sh_offset + strings.sh_size > file.size())
      continue;
    const auto* syms = reinterpret_cast<const Elf64_Sym*>(file.data() + sh[i].sh_offset);
    const size_t count = sh[i].sh_size / sizeof(Elf64_Sym);
    for (size_t k = 0; k < count; ++k) {
      const Elf64_Sym& s = syms[k];
      if (ELF64_ST_TYPE(s.st_info) != STT_TLS || s.st_size == 0 || s.st_name >= strings.sh_size)
        continue;
      const char* name = file.data() + strings.sh_offset + s.st_name;
      // The variables themselves, not their guards.
      if (std::strstr(name, kTag) && std::strncmp(name, "_ZGV", 4) != 0)
        vars.push_back({s.st_value, s.st_size, readable_name(name)});
      else if (std::strcmp(name, "cudalab_shared_guard") != 0)
        result.others.push_back({s.st_value, s.st_size, name});
    }
  }
  std::sort(vars.begin(), vars.end(),
            [](const auto& a, const auto& b) { return a.offset < b.offset; });
  // One variable can be listed twice (a weak and a unique definition).
  vars.erase(std::unique(vars.begin(), vars.end(),
                         [](const auto& a, const auto& b) { return a.offset == b.offset; }),
             vars.end());
  return result;
}

const Symbols& symbols() {
  static const Symbols s = read_symbols();
  return s;
}

}  // namespace

const std::vector<StaticSharedVariable>& static_shared_variables() { return symbols().shared; }
const std::vector<StaticSharedVariable>& other_thread_locals() { return symbols().others; }

// The program's own thread-local block (module 1's) for the calling thread;
// it stays where it is while the thread lives, so it is looked up once (the
// checks ask at every shared-memory access).
uintptr_t static_shared_base() {
  thread_local uintptr_t base = 0;
  if (base) return base;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        if (info->dlpi_tls_modid != 1) return 0;
        *static_cast<uintptr_t*>(out) = reinterpret_cast<uintptr_t>(info->dlpi_tls_data);
        return 1;
      },
      &base);
  return base;
}

const StaticSharedVariable* static_shared_variable_at(size_t offset) {
  const auto& vars = static_shared_variables();
  auto it = std::upper_bound(vars.begin(), vars.end(), offset,
                             [](size_t o, const auto& v) { return o < v.offset; });
  if (it == vars.begin()) return nullptr;
  --it;
  return offset - it->offset < it->size ? &*it : nullptr;
}

}  // namespace cudalab::rt

namespace cudalab::rt {
const StaticSharedVariable* static_shared_variable_before(size_t offset) {
  const StaticSharedVariable* best = nullptr;
  for (const auto& v : static_shared_variables())
    if (v.offset + v.size <= offset && (!best || v.offset > best->offset)) best = &v;
  return best;
}
}  // namespace cudalab::rt

namespace cudalab::rt {
uintptr_t shared_guard_end() {
  return reinterpret_cast<uintptr_t>(cudalab_shared_guard) + kSharedGuard;
}
}  // namespace cudalab::rt
