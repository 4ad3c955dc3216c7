// Reduction: the graded tests (hidden.cu has the hidden one). Each adds up
// seeded floats in [0, 1) with one stage of the student's file, through its
// launcher, and compares the total with the CPU's sum in double precision.
// The kernels add in another order than the CPU, and float additions in
// another order round differently, so the total may be off by a little:
// each element goes through k additions on its way (a tree is log2 of its
// width deep; a thread's loop and the blocks' atomics add more), each
// rounding by at most 2^-24 of its partial sum, so the tolerance is twice
// k x 2^-24 x the sum of the elements' sizes (reference.h, stages.h).
// Losing one element of 1,000 (0.5 on average) is about a thousand times
// that.
//
// Run them, from the course's top folder:
//   on the simulator:  ./build/bin/cudalab check reduction
//     (grades your exercise.cu; --solution or --file F.cu grades another file)
//   on a GPU:          ./build/bin/cudalab check reduction --gpu
//     (nvcc builds your file and the tests run on the GPU; the method rubrics
//     still run on the simulator)
//   on a GPU without the cudalab command, the tests and your file as one
//   program that prints each test's points (nvcc all one line, as driver.cu):
//     nvcc -O3 -std=c++17 -arch=sm_90 -I framework/include -I support/include
//       -I trace/include -I lessons/reduction lessons/reduction/grade.cu
//       lessons/reduction/exercise.cu framework/src/*.cpp support/src/*.cpp -o grade_reduction
//     ./grade_reduction
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "cases.h"
#include "cudalab/framework/compare.h"
#include "cudalab/framework/grading.h"
#include "cudalab/framework/submission.h"
#include "lesson.h"
#include "reference.h"
#include "stages.h"

// The four stages of stages.h, each with the student's launcher.
#define GRADED_STAGE(number, name, kernel, launcher) \
  {number, #kernel, CUDALAB_SUBMISSION(launcher)},
const Stage kStages[] = {REDUCTION_STAGES(GRADED_STAGE)};
#undef GRADED_STAGE

namespace {

// NaNs after the input (InputEnd::kGuarded): a thread that reads past the
// end adds one, and the total is NaN.
constexpr int kGuard = 1024;

// What total holds before the launch: a NaN of its own (not one the
// kernels' arithmetic makes, nor the NaN of the unwritten scratch), so that
// a total no thread wrote shows as such on a GPU too.
float never_written() {
  const uint32_t bits = 0x7fc0ffeeu;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// What to look at when a stage's total is wrong, in the student's words.
const char* const kWhereToLook[] = {
    "",
    "Look at the tree: a __syncthreads() after the loads and after every round, reached by "
    "every thread of the block (never inside the if), and in round s the threads whose index is "
    "a multiple of 2 * s adding the value s places further on.",
    "Look at the tree: a __syncthreads() after the loads and after every round, reached by "
    "every thread of the block (never inside the if), and in round s the threads below s adding "
    "the value s places further on, for s = blockDim.x / 2 down to 1.",
    "Look at the loop: it starts at the thread's global index and goes on gridDim.x * blockDim.x "
    "float4s at a time while below n / 4; the last n % 4 floats come after it; then the tree of "
    "stage 2 and thread 0's write of out[blockIdx.x].",
    "Look at the end: the tree stops at 64 values, each lane of the first warp adds "
    "partial[tid] and partial[tid + 32], then __shfl_down_sync(0xffffffff, v, offset) for "
    "offsets 16, 8, 4, 2, 1, and thread 0 adds the block's sum to *total with atomicAdd.",
};

// When the total is the sum of only the first m elements, which mistake
// gives that: {m, why}.
struct Shortfall {
  long m;
  const char* why;
};

std::vector<Shortfall> shortfalls(const Stage& stage, const Case& c) {
  std::vector<Shortfall> s;
  if (stage.number <= 2) {
    s.push_back({c.n / kThreads * kThreads,
                 "the sum of all but the last block, which is only partly inside the array: its "
                 "threads past the end must still put 0 in shared memory and take part in every "
                 "round"});
  } else {
    if (4L * c.blocks * kThreads < c.n / 4 * 4)
      s.push_back({4L * c.blocks * kThreads,
                   "the sum of the first float4 of every thread only: each thread must go on, a "
                   "whole grid (gridDim.x * blockDim.x float4s) at a time, until past n / 4 "
                   "(the grid-stride loop)"});
    s.push_back({c.n / 4 * 4,
                 "the sum of all but the last n % 4 floats, which do not fill a float4: add "
                 "them one by one after the loop"});
  }
  s.push_back({c.n - 1L, "the sum of all but the last element: is a bound off by one?"});
  return s;
}

}  // namespace

void run_case(cudalab::grading::TestContext& t, const Stage& stage, const Case& c, InputEnd end) {
  t.note() << "stage " << stage.number << ", " << stage.kernel << ": n = " << c.n;
  if (stage.number >= 3)
    t.note() << ", " << c.blocks << (c.blocks == 1 ? " block" : " blocks") << " of " << kThreads
             << " threads";
  t.note() << "\n";
  // In [0, 1): the sum grows with n and is never near 0 by chance, so that
  // a total of 0, or twice the sum, always shows.
  std::vector<float> in = cudalab::random_floats(size_t(c.n), c.seed, 0.0f, 1.0f);
  const Sum want = sum_cpu(in.data(), c.n);
  const double allowed = sum_tolerance(longest_chain(stage.number, c.n, c.blocks), want.size);
  if (end == InputEnd::kGuarded)
    in.resize(size_t(c.n) + kGuard, std::numeric_limits<float>::quiet_NaN());

  const size_t scratch = size_t(scratch_floats(c.n, c.blocks)) * sizeof(float);
  float *d_in = nullptr, *d_scratch = nullptr, *d_total = nullptr;
  if (cudaMalloc(&d_in, in.size() * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&d_scratch, scratch) != cudaSuccess ||
      cudaMalloc(&d_total, sizeof(float)) != cudaSuccess) {
    t.fail() << "could not allocate device memory: " << cudaGetErrorString(cudaGetLastError())
             << "\n";
    return;
  }
  cudaMemcpy(d_in, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_scratch, cudalab::kUnwritten, scratch);  // NaN: a partial sum never written shows
  const float marker = never_written();
  cudaMemcpy(d_total, &marker, sizeof(float), cudaMemcpyHostToDevice);
  cudalab::track_writers();

  stage.launch(d_in, d_scratch, d_total, c.n, c.blocks);
  float got = 0;
  if (const std::string why = cudalab::launch_problem(); !why.empty())
    t.fail() << why;
  else
    cudaMemcpy(&got, d_total, sizeof(float), cudaMemcpyDeviceToHost);
  const std::string writer = cudalab::describe_writer(d_total);
  cudaFree(d_in);
  cudaFree(d_scratch);
  cudaFree(d_total);
  if (t.failed()) return;

  const double off = std::fabs(double(got) - want.sum);
  std::ostringstream said;
  said.precision(9);
  said << "total is " << got << "; the " << c.n << (c.n == 1 ? " float adds" : " floats add")
       << " up to " << want.sum << " (a float sum in another order may be off by up to " << allowed
       << ")";
  if (off <= allowed) {
    t.note() << said.str() << "\n";
    return;
  }
  if (std::memcmp(&got, &marker, sizeof(float)) == 0 &&
      (writer.empty() || writer.rfind("no thread", 0) == 0)) {
    t.fail() << "total was never written: it still holds the NaN the test put there. Is the "
                "kernel still a TODO? Thread 0 of each block writes the block's sum to "
                "out[blockIdx.x]; in the last pass that is total.\n";
    return;
  }
  t.fail() << said.str() << (writer.empty() ? "" : " (" + writer + ")") << ".\n";
  if (std::isnan(got)) {
    t.fail() << "  A NaN came into the sum. The test puts NaN after the " << c.n
             << " floats of in, and in scratch until the partial sums are written: some thread "
                "read past the end of in (only elements below n may be loaded; a thread past "
                "the end adds nothing), or a pass read partial sums that no block wrote.\n";
    return;
  }
  if (stage.number == 4 && got == 0) {
    t.fail() << "  total is still the 0 the launcher set: no block added its sum. Thread 0 of "
                "each block adds it with atomicAdd(total, sum).\n";
    return;
  }
  if (stage.number == 3 && got == 0 && c.blocks < 4) {
    t.fail() << "  The second pass adds the " << c.blocks << " partial sum"
             << (c.blocks == 1 ? "" : "s")
             << " of the first with one block: too few to fill a float4, so only the loop over "
                "the last n % 4 floats adds "
             << (c.blocks == 1 ? "it" : "them") << ".\n";
    return;
  }
  std::vector<double> prefix(size_t(c.n) + 1, 0.0);
  for (int i = 0; i < c.n; ++i) prefix[i + 1] = prefix[i] + in[i];
  for (const Shortfall& s : shortfalls(stage, c))
    if (s.m >= 0 && s.m < c.n && std::fabs(prefix[s.m] - want.sum) > allowed &&
        std::fabs(double(got) - prefix[s.m]) <= allowed) {
      t.fail() << "  That is " << s.why << ".\n";
      return;
    }
  t.fail() << "  " << kWhereToLook[stage.number] << "\n";
}

// Stage 1: interleaved addressing, one thread per element, passes of blocks.
CUDALAB_GRADED_TEST(InterleavedOneBlock, 1, "stage 1, interleaved: 256 floats, one block") {
  run_case(t, kInterleaved, {.n = 256, .blocks = 1, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(InterleavedPartialBlock, 1,
                    "stage 1, interleaved: 1,000 floats (the last block is partly past the end)") {
  run_case(t, kInterleaved, {.n = 1000, .blocks = 1, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(InterleavedThreePasses, 1,
                    "stage 1, interleaved: 70,001 floats (passes of 274, 2 and 1 blocks)") {
  run_case(t, kInterleaved, {.n = 70001, .blocks = 1, .seed = t.seed(1)});
}

// Stage 2: sequential addressing.
CUDALAB_GRADED_TEST(SequentialOneBlock, 1, "stage 2, sequential: 256 floats, one block") {
  run_case(t, kSequential, {.n = 256, .blocks = 1, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(SequentialPartialBlock, 1,
                    "stage 2, sequential: 1,000 floats (the last block is partly past the end)") {
  run_case(t, kSequential, {.n = 1000, .blocks = 1, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(SequentialOneElement, 1,
                    "stage 2, sequential: a single float (255 threads past the end)") {
  run_case(t, kSequential, {.n = 1, .blocks = 1, .seed = t.seed(1)}, InputEnd::kExact);
}
CUDALAB_GRADED_TEST(SequentialThreePasses, 2,
                    "stage 2, sequential: 100,003 floats (passes of 391, 2 and 1 blocks)") {
  run_case(t, kSequential, {.n = 100003, .blocks = 1, .seed = t.seed(1)});
}

// Stage 3: the first add during the load, a grid smaller than the data.
CUDALAB_GRADED_TEST(GridStrideSmallGrid, 2,
                    "stage 3, first add during the load: 100,003 floats, 16 blocks (the "
                    "grid-stride loop)") {
  run_case(t, kGridStride, {.n = 100003, .blocks = 16, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(GridStrideTail, 1,
                    "stage 3: 1,003 floats, one block (3 floats after the last float4)") {
  run_case(t, kGridStride, {.n = 1003, .blocks = 1, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(GridStrideOneElement, 1,
                    "stage 3: a single float, 4 blocks (no float4 at all)") {
  run_case(t, kGridStride, {.n = 1, .blocks = 4, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(GridStrideIdleBlocks, 1,
                    "stage 3: 5,000 floats, 64 blocks (more threads than float4s: most blocks "
                    "add nothing)") {
  run_case(t, kGridStride, {.n = 5000, .blocks = 64, .seed = t.seed(1)});
}

// Stage 4: warp shuffles and one atomicAdd per block.
CUDALAB_GRADED_TEST(ShuffleSmallGrid, 2,
                    "stage 4, warp shuffles + atomicAdd: 100,003 floats, 16 blocks") {
  run_case(t, kShuffle, {.n = 100003, .blocks = 16, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(ShuffleManyBlocks, 1,
                    "stage 4: 65,539 floats, 128 blocks adding to one total at once") {
  run_case(t, kShuffle, {.n = 65539, .blocks = 128, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(ShuffleOneElement, 1, "stage 4: a single float, 8 blocks") {
  run_case(t, kShuffle, {.n = 1, .blocks = 8, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(ShuffleOneBlock, 1, "stage 4: 999 floats, one block") {
  run_case(t, kShuffle, {.n = 999, .blocks = 1, .seed = t.seed(1)});
}

int main(int argc, char** argv) { return cudalab::grading::grader_main(argc, argv); }
