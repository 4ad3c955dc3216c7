// libFuzzer target: applying a known-wrong file's unified diff to a
// solution. The input is split at its first NUL byte into the solution and
// the diff; a diff that does not fit must be an error, never a crash.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "cli.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* text = reinterpret_cast<const char*>(data);
  const char* split = static_cast<const char*>(std::memchr(text, 0, size));
  const std::string solution(text, split ? size_t(split - text) : size);
  const std::string diff = split ? std::string(split + 1, text + size) : std::string();
  try {
    const std::string out = cudalab::cli::apply_to_solution(solution, diff);
    (void)out;
  } catch (const std::runtime_error&) {
  }
  return 0;
}
