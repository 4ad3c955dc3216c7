// cudalab: CUDA's pipeline primitives (__pipeline_memcpy_async and the
// rest). The copy is done when the call returns (a GPU may finish it then
// too), so committing and waiting have nothing left to do.
#pragma once
#include <cstddef>

#include "cudalab/libcudacxx.h"

// `size_and_align` bytes (4, 8 or 16) from `src` to `dst`, the last `zfill`
// of them zeros instead.
inline void __pipeline_memcpy_async(void* dst, const void* src, size_t size_and_align,
                                    size_t zfill = 0) {
  const size_t copied = zfill < size_and_align ? size_and_align - zfill : 0;
  cudalab::detail::copy_share(dst, src, copied, 0, 1);
  for (size_t i = copied; i < size_and_align; ++i) static_cast<unsigned char*>(dst)[i] = 0;
}
inline void __pipeline_commit() {}
inline void __pipeline_wait_prior(size_t) {}
