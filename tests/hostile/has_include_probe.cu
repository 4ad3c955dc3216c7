// hostile: probes with __has_include for the solution and graded tests, naming each in an #error
// expect-max-points: 0
// note: nothing found: it compiles, wrong kernel (a - b); "HOSTILE-EXISTS" must not appear
//
// __has_include answers whether a file exists without including it, so a
// submission can map the grader's file system one path at a time and report
// what it saw in the compiler's output, which a student gets to read.
#include "lesson.h"

#define HOSTILE_PROBE_FOUND 0

#if __has_include("solution.cu")
#error "HOSTILE-EXISTS: \"solution.cu\" (quoted include path)"
#endif
#if __has_include("grade.cu")
#error "HOSTILE-EXISTS: \"grade.cu\" (quoted include path)"
#endif
#if __has_include("hidden.cu")
#error "HOSTILE-EXISTS: \"hidden.cu\" (quoted include path)"
#endif
#if __has_include("../solution.cu")
#error "HOSTILE-EXISTS: \"../solution.cu\""
#endif
#if __has_include("../vector_add/solution.cu")
#error "HOSTILE-EXISTS: \"../vector_add/solution.cu\""
#endif
#if __has_include("../vector_add/grade.cu")
#error "HOSTILE-EXISTS: \"../vector_add/grade.cu\""
#endif
#if __has_include(<solution.cu>)
#error "HOSTILE-EXISTS: <solution.cu> (system include path)"
#endif
#if __has_include(<../../lessons/vector_add/solution.cu>)
#error "HOSTILE-EXISTS: <../../lessons/vector_add/solution.cu> (beside the toolchain's headers)"
#endif
#if __has_include(<../../lessons/vector_add/grade.cu>)
#error "HOSTILE-EXISTS: <../../lessons/vector_add/grade.cu> (beside the toolchain's headers)"
#endif
#if __has_include("@REPOSITORY@/lessons/vector_add/solution.cu")
#error "HOSTILE-EXISTS: @REPOSITORY@/lessons/vector_add/solution.cu"
#endif
#if __has_include("@REPOSITORY@/lessons/vector_add/grade.cu")
#error "HOSTILE-EXISTS: @REPOSITORY@/lessons/vector_add/grade.cu"
#endif
#if __has_include("@REPOSITORY@/lessons/matmul/solution.cu")
#error "HOSTILE-EXISTS: @REPOSITORY@/lessons/matmul/solution.cu"
#endif
#if __has_include("/proc/self/cwd/solution.cu")
#error "HOSTILE-EXISTS: /proc/self/cwd/solution.cu"
#endif
#if __has_include("/proc/self/cwd/../solution.cu")
#error "HOSTILE-EXISTS: /proc/self/cwd/../solution.cu"
#endif

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] - b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
