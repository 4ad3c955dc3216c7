// Vector add: what the student's file (exercise.cu or solution.cu) provides.
#pragma once

// Launches the vector-add kernel: c[i] = a[i] + b[i] for every i < n, with
// `blocks` blocks of `threads_per_block` threads. a, b and c are device
// pointers. The grid may have fewer threads than n has elements.
void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block);
