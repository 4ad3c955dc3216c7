// Histogram: what the student's file (exercise.cu or solution.cu) provides.
// A histogram of bytes counts how often each of the 256 values occurs:
// bins[v] = the number of i < n with data[i] == v.
//
// Each launcher counts the n bytes at `data` (a device pointer, from
// cudaMalloc, so aligned to 256 bytes) into the kBins counters at `bins` (a
// device pointer, all zero before the call), with `blocks` blocks of
// `threads` threads (1 to 1024). The grid may have fewer threads than n has
// bytes, and fewer or more threads per block than there are bins.
#pragma once

constexpr int kBins = 256;

// Stage 1, global atomics: one atomicAdd on bins[] per byte.
void launch_histogram_global(const unsigned char* data, int n, unsigned int* bins, int blocks,
                             int threads);

// Stage 2, privatized: each block counts into 256 bins of its own in shared
// memory, then adds them to bins[]: one atomicAdd per bin per block.
void launch_histogram_shared(const unsigned char* data, int n, unsigned int* bins, int blocks,
                             int threads);

// Stage 3, wide loads: as stage 2, but each thread reads 16 bytes at once
// (one uint4), then counts them one by one.
void launch_histogram_wide(const unsigned char* data, int n, unsigned int* bins, int blocks,
                           int threads);
