// A vector-add submission whose launcher throws, with a message longer than
// an answer may carry (2,000 characters): each test says that the function
// threw and what it threw, cut short, not that the program's answer was
// malformed. It earns no point.
#include <stdexcept>
#include <string>

#include "lesson.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  if (n > 0)
    throw std::runtime_error("this launcher refuses every size: " + std::string(2000, 'x'));
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
