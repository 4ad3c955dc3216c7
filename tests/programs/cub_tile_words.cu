// CUB's device-wide scans, run-length encodings and reductions by key pass
// partial results between blocks in "tile descriptors": a status word and
// the value it announces, packed into one 8- or 16-byte word, written with
// one ThreadStore<STORE_CG> and read with one ThreadLoad<LOAD_CG>. On a GPU
// each is a single transaction: a block that sees another's status also
// sees the value written with it. Here block 0 writes (i, i) over and over
// while block 1 reads; a read whose two halves differ is a torn word (CUB
// would then use a stale value with a fresh status). The blocks never wait
// for each other, so the program ends whether they overlap or not.
#include <cstdio>

#include <cub/thread/thread_load.cuh>
#include <cub/thread/thread_store.cuh>

constexpr int kRounds = 2000000;

struct Counts {
  int torn16, torn8, reads;
};

__global__ void tile_words(longlong2* wide, int2* narrow, Counts* counts) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    for (int i = 1; i <= kRounds; ++i) {
      cub::ThreadStore<cub::STORE_CG>(wide, make_longlong2(i, i));
      cub::ThreadStore<cub::STORE_CG>(narrow, make_int2(i, i));
    }
  } else {
    Counts c{0, 0, 0};
    for (int k = 0; k < kRounds; ++k, ++c.reads) {
      const longlong2 w = cub::ThreadLoad<cub::LOAD_CG>(wide);
      const int2 n = cub::ThreadLoad<cub::LOAD_CG>(narrow);
      c.torn16 += w.x != w.y;
      c.torn8 += n.x != n.y;
    }
    *counts = c;
  }
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device\n");
    return 77;
  }
  longlong2* wide;
  int2* narrow;
  Counts* counts;
  cudaMallocManaged(&wide, sizeof(longlong2));
  cudaMallocManaged(&narrow, sizeof(int2));
  cudaMallocManaged(&counts, sizeof(Counts));
  *wide = make_longlong2(0, 0);
  *narrow = make_int2(0, 0);
  tile_words<<<2, 32>>>(wide, narrow, counts);
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    std::printf("launch failed: %s\n", cudaGetErrorString(e));
    return 1;
  }
  std::printf("%d reads of 16-byte words, %d torn; of 8-byte words, %d torn\n", counts->reads,
              counts->torn16, counts->torn8);
  const bool ok = counts->torn16 == 0 && counts->torn8 == 0 && wide->x == kRounds;
  std::printf("%s\n", ok ? "every word whole" : "TORN WORDS");
  return ok ? 0 : 1;
}

// The tests of this program (tests/lit/README.md): tile descriptors (a
// status and its value in one 8- or 16-byte word) written by one block and
// read by another arrive whole, plain and checked.
// REQUIRES: cub
// BUILD:
// TEST: unit.cub_tile_words
// LABELS: unit
// RUN: %bin
// CHECK: {{^}}every word whole
//
// TEST: unit.cub_tile_words_checked
// LABELS: unit
// RUN: CUDALAB_CHECK=all %bin
// CHECK: {{^}}every word whole
//
// TEST: gpu.cub_tile_words_as_cuda
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu
// CHECK: {{^}}every word whole
