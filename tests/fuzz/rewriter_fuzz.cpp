// libFuzzer target: the launch rewriter (what cudalab-cc runs on every
// .cu file before the host compiler sees it) on any source text.
#include <cstdint>
#include <string>

#include "rewriter/rewrite.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string source(reinterpret_cast<const char*>(data), size);
  const cudalab::rewriter::Result r = cudalab::rewriter::rewrite(source, "fuzz.cu");
  (void)r;
  return 0;
}
