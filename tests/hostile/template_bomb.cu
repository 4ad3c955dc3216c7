// hostile: a template whose instantiations double at every level: the compiler never finishes
// expect-max-points: 0
// note: the kernel is correct; any points mean the compilation was not stopped in time
//
// Node<D, I> needs Node<D - 1, 2I> and Node<D - 1, 2I + 1>: 2^40 distinct
// class templates, each with its own static member, while the nesting stays
// 40 deep, far under the compiler's recursion limit. Compiling it would take
// unbounded time and memory: the compile's time and memory limits must end
// it, and the grader must report a compile failure. (HOSTILE_BOMB_DEPTH may
// be set small to check that the file is otherwise valid.)
#include "lesson.h"

#ifndef HOSTILE_BOMB_DEPTH
#define HOSTILE_BOMB_DEPTH 40
#endif

template <int D, unsigned long long I>
struct Node {
  static constexpr unsigned long long value =
      Node<D - 1, 2 * I>::value + Node<D - 1, 2 * I + 1>::value + (I % 7);
};

template <unsigned long long I>
struct Node<0, I> {
  static constexpr unsigned long long value = I & 1;
};

// Forces the whole tree: its value must be known at compile time.
constexpr unsigned long long kBomb = Node<HOSTILE_BOMB_DEPTH, 1>::value;

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  static_assert(kBomb != ~0ull, "used, so it cannot be left out");
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
