// Warp-level operations and barriers with a vote: lanes of a warp meet at
// each operation, as on a GPU, whatever order the simulator runs them in.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../programs/shuffle_rules.h"

namespace {

template <class T>
std::vector<T> run1(void (*launch)(T*), int n) {
  T* d;
  cudaMalloc(&d, n * sizeof(T));
  cudaMemset(d, 0, n * sizeof(T));
  launch(d);
  std::vector<T> h(n);
  EXPECT_EQ(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d);
  return h;
}

__global__ void shfl_down_sum(int* out) {
  int v = threadIdx.x;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = v;
}

TEST(Warp, ShuffleDownReduction) {
  auto h = run1<int>([](int* d) { shfl_down_sum<<<1, 128>>>(d); }, 4);
  for (int w = 0; w < 4; ++w) {
    int want = 0;
    for (int l = 0; l < 32; ++l) want += w * 32 + l;
    EXPECT_EQ(h[w], want) << "warp " << w;
  }
}

// Lane 0 alone claims space with an atomic and broadcasts where it starts;
// the other lanes' copy of the variable is never set before the shuffle
// (as in NVIDIA's cdpAdvancedQuicksort). Only lane 0 may do the atomic: the
// optimizer must not take the unset value as proof that every lane is lane 0.
// (The compiler's warning about the unset copies is the point: kept quiet.)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wsometimes-uninitialized"
__global__ void claim_and_broadcast(int* out) {
  const int lane = threadIdx.x % 32;
  int start;
  if (lane == 0) start = atomicAdd(&out[0], 32);
  start = __shfl_sync(0xffffffff, start, 0);
  out[1 + threadIdx.x] = start + lane;
}
#pragma clang diagnostic pop

TEST(Warp, ALaneThatSetsNothingBeforeAShuffleStillTakesPart) {
  auto h = run1<int>([](int* d) { claim_and_broadcast<<<1, 128>>>(d); }, 129);
  EXPECT_EQ(h[0], 128) << "one atomic per warp";
  std::vector<int> seen(h.begin() + 1, h.end());
  std::sort(seen.begin(), seen.end());
  for (int i = 0; i < 128; ++i) EXPECT_EQ(seen[i], i);
}

__global__ void shfl_variants(int* out) {
  const int lane = threadIdx.x % 32;
  const int v = 100 + lane;
  out[0 * 32 + lane] = __shfl_sync(0xffffffff, v, 3);           // broadcast lane 3
  out[1 * 32 + lane] = __shfl_sync(0xffffffff, v, 2, 8);        // lane 2 of each group of 8
  out[2 * 32 + lane] = __shfl_up_sync(0xffffffff, v, 1);        // lane - 1, lane 0 keeps its own
  out[3 * 32 + lane] = __shfl_down_sync(0xffffffff, v, 4, 16);  // within 16, past the end: own
  out[4 * 32 + lane] = __shfl_xor_sync(0xffffffff, v, 1);       // neighbours swap
  out[5 * 32 + lane] = __shfl_xor_sync(0xffffffff, v, 16, 16);  // later group: own value,
                                                                // earlier group: theirs
}

TEST(Warp, ShuffleVariantsFollowCudasLaneRules) {
  auto h = run1<int>([](int* d) { shfl_variants<<<1, 32>>>(d); }, 6 * 32);
  for (int l = 0; l < 32; ++l) {
    EXPECT_EQ(h[0 * 32 + l], 103);
    EXPECT_EQ(h[1 * 32 + l], 100 + (l / 8) * 8 + 2);
    EXPECT_EQ(h[2 * 32 + l], l == 0 ? 100 : 99 + l);
    EXPECT_EQ(h[3 * 32 + l], (l % 16) + 4 < 16 ? 104 + l : 100 + l);
    EXPECT_EQ(h[4 * 32 + l], 100 + (l ^ 1));
    EXPECT_EQ(h[5 * 32 + l], l < 16 ? 100 + l : 100 + l - 16) << l;
  }
}

__global__ void shfl_double_and_scan(double* out) {
  double v = threadIdx.x * 0.5;
  for (int d = 1; d < 32; d *= 2) {
    const double up = __shfl_up_sync(0xffffffff, v, d);
    if (threadIdx.x % 32 >= unsigned(d)) v += up;
  }
  out[threadIdx.x] = v;
}

TEST(Warp, EightByteShufflesMakeAnInclusiveScan) {
  auto h = run1<double>([](double* d) { shfl_double_and_scan<<<1, 32>>>(d); }, 32);
  for (int l = 0; l < 32; ++l) EXPECT_DOUBLE_EQ(h[l], 0.5 * l * (l + 1) / 2);
}

__global__ void votes(unsigned* out) {
  const unsigned lane = threadIdx.x % 32;
  out[0] = __ballot_sync(0xffffffff, lane % 3 == 0);
  out[1] = __any_sync(0xffffffff, lane == 17);
  out[2] = __all_sync(0xffffffff, lane < 32);
  out[3] = __all_sync(0xffffffff, lane < 31);
  out[4] = __match_any_sync(0xffffffff, lane / 8);  // lanes with the same lane / 8
  int pred = -1;
  out[5] = __match_all_sync(0xffffffff, 7, &pred);
  out[6] = pred;
  out[7] = __reduce_add_sync(0xffffffff, lane);
  out[8] = __reduce_max_sync(0xffffffff, lane * 3);
  out[9] = unsigned(__reduce_min_sync(0xffffffff, int(lane) - 5));
  out[10] = __reduce_or_sync(0xffffffff, 1u << lane);
  __syncwarp();
}

TEST(Warp, VotesMatchesAndReductions) {
  auto h = run1<unsigned>([](unsigned* d) { votes<<<1, 32>>>(d); }, 11);
  unsigned every_third = 0;
  for (int l = 0; l < 32; l += 3) every_third |= 1u << l;
  EXPECT_EQ(h[0], every_third);
  EXPECT_EQ(h[1], 1u);
  EXPECT_EQ(h[2], 1u);
  EXPECT_EQ(h[3], 0u);
  EXPECT_EQ(h[4], 0xffu << 24) << "lane 31 matches lanes 24..31";
  EXPECT_EQ(h[5], 0xffffffffu);
  EXPECT_EQ(h[6], 1u);
  EXPECT_EQ(h[7], 496u);
  EXPECT_EQ(h[8], 93u);
  EXPECT_EQ(int(h[9]), -5);
  EXPECT_EQ(h[10], 0xffffffffu);
}

__global__ void divergent_halves(int* out) {
  const int lane = threadIdx.x;
  int v;
  if (lane < 16)
    v = __shfl_sync(0x0000ffff, lane * 10, 0);  // the lower half meets among itself
  else
    v = __shfl_sync(0xffff0000, lane * 10, 31);  // and the upper half among itself
  out[lane] = v;
}

TEST(Warp, DivergentHalvesMeetSeparately) {
  auto h = run1<int>([](int* d) { divergent_halves<<<1, 32>>>(d); }, 32);
  for (int l = 0; l < 32; ++l) EXPECT_EQ(h[l], l < 16 ? 0 : 310);
}

__global__ void partial_warp_and_exits(unsigned* out) {
  // 40 threads: warp 1 has only 8 lanes. Lanes past 4 of warp 0 return first.
  if (threadIdx.x < 32 && threadIdx.x >= 4) return;
  const unsigned active = __activemask();
  const unsigned b = __ballot_sync(active, 1);
  if (threadIdx.x % 32 == 0) {
    out[threadIdx.x / 32 * 2] = active;
    out[threadIdx.x / 32 * 2 + 1] = b;
  }
}

TEST(Warp, PartialWarpsAndReturnedLanes) {
  auto h = run1<unsigned>([](unsigned* d) { partial_warp_and_exits<<<1, 40>>>(d); }, 4);
  EXPECT_EQ(h[0], 0xfu);
  EXPECT_EQ(h[1], 0xfu);
  EXPECT_EQ(h[2], 0xffu);
  EXPECT_EQ(h[3], 0xffu);
}

__global__ void barrier_votes(int* out) {
  const int t = threadIdx.x;
  const int count = __syncthreads_count(t % 4 == 0);
  const int all = __syncthreads_and(t < 1000);
  const int any = __syncthreads_or(t == 77);
  const int none = __syncthreads_or(0);
  if (t == 5) {
    out[0] = count;
    out[1] = all;
    out[2] = any;
    out[3] = none;
  }
}

TEST(Warp, SyncthreadsCountAndOr) {
  auto h = run1<int>([](int* d) { barrier_votes<<<3, 256>>>(d); }, 4);
  EXPECT_EQ(h[0], 64);
  EXPECT_EQ(h[1], 1);
  EXPECT_EQ(h[2], 1);
  EXPECT_EQ(h[3], 0);
}

// A binary scan as HeCBench's bscan writes it: each lane's ballot names only
// the lanes below it, so no mask names its caller, and the masks differ. An
// H100 stops this kernel with an illegal instruction (lanes that all pass
// one mask leaving some of them out run there: see the synccheck corpus).
__global__ void ballot_of_lanes_below(int* out) {
  const unsigned lane = threadIdx.x % 32;
  out[threadIdx.x] = __popc(__ballot_sync((1u << lane) - 1, lane % 3 == 0));
}

TEST(Warp, DifferentMasksThatLeaveOutTheirCallersAreAnIllegalInstruction) {
  int* d;
  cudaMalloc(&d, 32 * sizeof(int));
  testing::internal::CaptureStderr();
  ballot_of_lanes_below<<<1, 32>>>(d);
  const cudaError_t e = cudaDeviceSynchronize();
  const std::string report = testing::internal::GetCapturedStderr();
  EXPECT_EQ(e, cudaErrorIllegalInstruction);
  EXPECT_NE(report.find("__ballot_sync (or __any_sync/__all_sync) at "), std::string::npos)
      << report;
  EXPECT_NE(report.find("warp_test.cu:"), std::string::npos) << report;
  EXPECT_NE(report.find("with mask 0x00000001 in lane 1 and 0x00000000 in lane 0"),
            std::string::npos)
      << report;
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
}

__global__ void never_meets(int* out) {
  // Lanes 16..31 wait at the block barrier, lanes 0..15 at a shuffle that
  // names them: neither can finish.
  if (threadIdx.x < 16) out[threadIdx.x] = __shfl_sync(0xffffffff, 1, 20);
  __syncthreads();
}

TEST(Warp, ADeadlockEndsTheLaunchWithAnError) {
  int* d;
  cudaMalloc(&d, 32 * sizeof(int));
  never_meets<<<2, 32>>>(d);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
}

// A worker keeps its block runner from one launch to the next while the
// block's shape stays the same (simulator/src/grid/block_fibers.cpp): each launch
// must still start with every thread fresh, after a launch of another
// shape, after a deadlock that left threads waiting, on the main thread (one
// block) and on the workers (several).
__global__ void warp_sums(int* out) {
  int v = threadIdx.x + blockIdx.x;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  if (threadIdx.x % 32 == 0) out[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = v;
}

void expect_warp_sums(int blocks, int threads, const char* after) {
  const int warps = threads / 32;
  int* d;
  ASSERT_EQ(cudaMalloc(&d, blocks * warps * sizeof(int)), cudaSuccess);
  warp_sums<<<blocks, threads>>>(d);
  std::vector<int> h(blocks * warps);
  ASSERT_EQ(cudaMemcpy(h.data(), d, h.size() * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d);
  for (int b = 0; b < blocks; ++b)
    for (int w = 0; w < warps; ++w) {
      int want = 0;
      for (int l = 0; l < 32; ++l) want += w * 32 + l + b;
      EXPECT_EQ(h[b * warps + w], want)
          << blocks << " x " << threads << " after " << after << ": block " << b << " warp " << w;
    }
}

TEST(Warp, EachLaunchStartsCleanWhateverRanBefore) {
  expect_warp_sums(1, 128, "nothing");
  expect_warp_sums(1, 128, "the same shape");
  expect_warp_sums(1, 64, "128 threads");
  expect_warp_sums(6, 64, "one block");
  expect_warp_sums(6, 64, "the same shape");
  expect_warp_sums(3, 96, "64 threads");
  int* d;
  ASSERT_EQ(cudaMalloc(&d, 32 * sizeof(int)), cudaSuccess);
  never_meets<<<2, 32>>>(d);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
  expect_warp_sums(2, 32, "a deadlock in blocks of that shape");
  expect_warp_sums(1, 32, "a deadlock in blocks of that shape");
}

// Where CUDA leaves a shuffle undefined, the simulator's documented choice
// (tests/programs/shuffle_lanes.cu checks the defined cases against an
// H100): a lane whose source lane does not take part (it returned, or the
// warp has only 20 lanes, though the mask names all 32) keeps its own
// value; lanes that pass different widths each read within their own
// segment; a width above 32 reads as 32 does.
__global__ void shuffle_loosely(int* out, ShuffleKind kind, int arg, int width, bool some_return) {
  const int lane = int(threadIdx.x % 32);
  if (some_return && lane % 5 == 3) return;
  const int w = width == 0 ? (lane < 16 ? 8 : 16) : width;
  const int v = 1000 * int(threadIdx.x / 32) + 100 + lane;
  const int a = arg == -1 ? (lane * 7 + 3) % 37 : arg;
  out[threadIdx.x] = shuffle_by(kind, 0xffffffffu, v, a, w);
}

TEST(Warp, WhereCudaLeavesAShuffleUndefinedALaneKeepsItsOwnValue) {
  const int threads = 52;  // the second warp has 20 lanes
  int* d;
  ASSERT_EQ(cudaMalloc(&d, threads * sizeof(int)), cudaSuccess);
  int cases = 0;
  for (bool some_return : {false, true})
    for (ShuffleKind kind : {kIdx, kUp, kDown, kXor})
      for (int width : {0, 16, 64})  // 0: lanes 0-15 pass 8, lanes 16-31 pass 16
        for (int arg : {-1, 0, 1, 2, 3, 5, 8, 15, 16, 17, 31, 40}) {
          ASSERT_EQ(cudaMemset(d, 0xff, threads * sizeof(int)), cudaSuccess);
          shuffle_loosely<<<1, threads>>>(d, kind, arg, width, some_return);
          ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
          std::vector<int> h(threads);
          ASSERT_EQ(cudaMemcpy(h.data(), d, threads * sizeof(int), cudaMemcpyDeviceToHost),
                    cudaSuccess);
          ++cases;
          for (int t = 0; t < threads; ++t) {
            const int w = t / 32, l = t % 32;
            const std::string where = "kind " + std::to_string(kind) + ", width " +
                                      std::to_string(width) + ", arg " + std::to_string(arg) +
                                      (some_return ? ", some returned" : "") + ", thread " +
                                      std::to_string(t);
            if (some_return && l % 5 == 3) {
              EXPECT_EQ(h[t], -1) << where;
              continue;
            }
            const int lane_width = width == 0 ? (l < 16 ? 8 : 16) : std::min(width, 32);
            const int a = arg == -1 ? (l * 7 + 3) % 37 : arg;
            const int src = shuffle_source_lane(kind, l, a, lane_width);
            const bool takes_part =
                src >= 0 && 32 * w + src < threads && !(some_return && src % 5 == 3);
            EXPECT_EQ(h[t], 1000 * w + 100 + (takes_part ? src : l)) << where;
          }
        }
  EXPECT_EQ(cases, 2 * 4 * 3 * 12);
  cudaFree(d);
}

}  // namespace
