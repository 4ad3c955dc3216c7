// Every shuffle kind (__shfl_sync, _up, _down, _xor) at each width, with
// offsets that stay inside a lane's segment and ones that leave it, one
// offset for the warp or one per lane, and lanes that take part in five
// ways: a whole warp; a warp whose lanes 3, 8, 13, ... returned first (the
// mask names the others); two halves that meet apart, each with its own
// mask; even and odd lanes that meet apart at the same call; a warp of 20
// lanes. One line a case, a result a lane: "x" where the
// lane returned, "-" where its source lane does not take part (undefined
// on a GPU). tests/data/shuffle_lanes_gpu.txt is what an H100 printed
// (nvcc -arch=sm_90, CUDA 13.0); the simulator must print the same.
#include <cstdio>
#include <string>
#include <vector>

#include "shuffle_rules.h"

enum Pattern { kWhole, kSomeReturned, kHalves, kInterleaved, kShortWarp };
using Kind = ShuffleKind;

__host__ __device__ bool returns_first(Pattern pattern, int lane) {
  return pattern == kSomeReturned && lane % 5 == 3;
}

// The lanes of warp `warp` that take part with lane `lane`: those the call's
// mask names.
__host__ __device__ unsigned mask_of(Pattern pattern, int threads, int warp, int lane) {
  unsigned mask = 0;
  for (int l = 0; l < 32; ++l)
    if (32 * warp + l < threads && !returns_first(pattern, l)) mask |= 1u << l;
  if (pattern == kHalves) mask &= lane < 16 ? 0x0000ffffu : 0xffff0000u;
  if (pattern == kInterleaved) mask &= lane % 2 == 0 ? 0x55555555u : 0xaaaaaaaau;
  return mask;
}

__host__ __device__ int offset_of(Kind kind, int arg, bool per_lane, int lane) {
  return per_lane ? (lane * 7 + 3) % 37 - (kind == kIdx ? 2 : 0) : arg;
}

__global__ void shuffle_case(int* out, Kind kind, int width, int arg, bool per_lane,
                             Pattern pattern) {
  const int lane = int(threadIdx.x % 32);
  if (returns_first(pattern, lane)) return;
  const unsigned mask = mask_of(pattern, int(blockDim.x), int(threadIdx.x / 32), lane);
  const int v = 1000 * int(threadIdx.x / 32) + 100 + lane;
  const int a = offset_of(kind, arg, per_lane, lane);
  out[threadIdx.x] = shuffle_by(kind, mask, v, a, width);
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("no CUDA device\n");
    return 77;
  }
  int* d;
  cudaMalloc(&d, 64 * sizeof(int));
  for (Pattern pattern : {kWhole, kSomeReturned, kHalves, kInterleaved, kShortWarp})
    for (Kind kind : {kIdx, kUp, kDown, kXor})
      for (int width : {1, 2, 4, 8, 16, 32})
        for (int arg : {-1, 0, 1, 2, 3, 5, 7, 8, 15, 16, 17, 31, 32, 40}) {
          const bool per_lane = arg == -1;
          const int threads = pattern == kShortWarp ? 52 : 64;
          shuffle_case<<<1, threads>>>(d, kind, width, arg, per_lane, pattern);
          std::vector<int> h(64);
          if (cudaMemcpy(h.data(), d, 64 * sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) {
            printf("launch failed: %s\n", cudaGetErrorString(cudaGetLastError()));
            return 1;
          }
          std::string line = std::to_string(pattern) + " " + std::to_string(kind) + " " +
                             std::to_string(width) + " " + std::to_string(arg) + ":";
          for (int t = 0; t < threads; ++t) {
            const int w = t / 32, l = t % 32;
            line += ' ';
            if (returns_first(pattern, l)) {
              line += 'x';
              continue;
            }
            const int src = shuffle_source_lane(kind, l, offset_of(kind, arg, per_lane, l), width);
            if (src >= 0 && !((mask_of(pattern, threads, w, l) >> src) & 1u))
              line += '-';
            else
              line += std::to_string(h[t]);
          }
          printf("%s\n", line.c_str());
        }
  cudaFree(d);
  return 0;
}

// The tests of this program (tests/lit/README.md): both builds print what
// an H100 printed (data/shuffle_lanes_gpu.txt; nvcc -arch=sm_90, CUDA
// 13.0), in block loops and with a fiber per thread.
// BUILD:
// TEST: unit.shuffle_lanes_matches_gpu
// LABELS: unit
// RUN: %bin > shuffle_lanes_sim.txt
// RUN: diff %data/shuffle_lanes_gpu.txt shuffle_lanes_sim.txt
//
// TEST: unit.shuffle_lanes_fibers
// LABELS: unit
// RUN: CUDALAB_BLOCK_LOOPS=off %bin | diff %data/shuffle_lanes_gpu.txt -
//
// Its kernel runs as block loops (the tests above would pass with fibers).
// TEST: unit.shuffles_in_block_loops
// LABELS: unit
// REQUIRES: block-loops
// RUN: %python %S/has_block_loops.py %bin shuffle_case
//
// TEST: gpu.shuffle_lanes_matches_expected
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu > shuffle_lanes_gpu_now.txt
// RUN: diff %data/shuffle_lanes_gpu.txt shuffle_lanes_gpu_now.txt
