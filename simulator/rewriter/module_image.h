// The simulator's module image: what NVRTC returns as "PTX" or "CUBIN" and
// what `cudalab-cc -fatbin/-cubin/-ptx` writes, and cuModuleLoadData reads.
// It is text (so that a program may keep it in a string or write it to a
// file) and ends with a NUL byte: the kernel source, the options it was
// compiled with, and the kernels built for the CPU as shared objects, plain
// and instrumented (either may be missing: the loader then builds it from
// the source). Used by cudalab-cc and by the runtime (src/runtime/modules.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace cudalab::module_image {

struct Image {
  std::string name;                                          // the program's name ("saxpy.cu")
  std::string source;                                        // the kernel source as given
  std::vector<std::string> options;                          // the compile options as given
  std::vector<std::pair<std::string, std::string>> headers;  // include name, text
  std::string plain;         // the shared object, plain build ("" if absent)
  std::string instrumented;  // the instrumented build ("" if absent)
};

// The image's text, NUL included at its end.
std::string encode(const Image& image);
// Whether `data` starts like an image (its first line).
bool looks_like_image(const char* data);
// Reads an image; false (and `why`) when it is not one or is damaged.
bool decode(const char* data, Image* image, std::string* why);

}  // namespace cudalab::module_image
