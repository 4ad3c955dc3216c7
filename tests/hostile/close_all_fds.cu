// hostile: closes descriptors 0 to 1023 at static init, then fills 0-4 with its own; computes a - b
// expect-max-points: 0
//
// At static initialization closes every descriptor below 1024, the judge's
// pipes on 3 and 4 included, then opens /dev/null as 0, 1 and 2, /dev/zero
// as 3 (an endless stream of zero bytes where requests were) and a pipe of
// its own whose ends land on 4 and 5. The program's loop then reads zeros
// and answers into a pipe nobody reads: the judge must see the submission
// as gone (or silent until the limit) and fail each test cleanly. The
// kernel is wrong too (a - b).
#include <fcntl.h>
#include <unistd.h>

#include "lesson.h"

namespace {
const int closed = [] {
  for (int fd = 0; fd < 1024; ++fd) close(fd);
  open("/dev/null", O_RDONLY);  // 0
  open("/dev/null", O_WRONLY);  // 1
  open("/dev/null", O_WRONLY);  // 2
  open("/dev/zero", O_RDONLY);  // 3
  int p[2];
  if (pipe(p) == 0) {
    // p[0] is 4 and p[1] is 5: make the write end 4.
    dup2(p[1], 6);
    dup2(p[0], 5);
    dup2(6, 4);
    close(6);
  }
  return 0;
}();
}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] - b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
