// A student's vector add that hands out elements through a counter in
// global memory, read and incremented without an atomic: two threads can
// take the same element, or skip none, depending on how they interleave. On
// a GPU the work each thread does changes from run to run (and elements may
// be done twice); graded, the file must get one score on every run.
#include "lesson.h"

__device__ unsigned next_element;  // the next element nobody has taken

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  for (;;) {
    const unsigned i = next_element;  // not atomic: a race with every other thread
    next_element = i + 1;
    if (i >= unsigned(n)) break;
    c[i] = a[i] + b[i];
  }
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks, int threads) {
  const unsigned zero = 0;
  cudaMemcpyToSymbol(next_element, &zero, sizeof zero);
  vector_add<<<blocks, threads>>>(a, b, c, n);
}
