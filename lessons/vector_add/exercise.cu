// Vector add: c[i] = a[i] + b[i].
// Your task: write the body of the kernel below. Read README.md first.
// Check your work with:     cudalab check vector_add   (on a GPU: add --gpu)
// Run the program with it:  cudalab run vector_add     (with nvcc: see driver.cu)
#include "lesson.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  // TODO step 1: the global index of this thread. Which block it is in
  //              (blockIdx.x), how many threads a block has (blockDim.x) and
  //              where it is inside its block (threadIdx.x) tell you.
  // TODO step 2: add a[i] and b[i] into c[i], but only when i is inside the
  //              array: the last block may have threads past its end.
  // TODO step 3: the grid may have fewer threads than the array has elements.
  //              Let each thread go on to the element one whole grid further
  //              (gridDim.x * blockDim.x) until it is past the end.
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
