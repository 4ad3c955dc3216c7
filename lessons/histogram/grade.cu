// Histogram: the graded tests (12 points; hidden.cu has the hidden one). Each
// runs one kernel of the student's file through its launcher on bytes drawn
// for this grading run, uniform or skewed (most bytes one value), and
// compares every bin with the CPU's count. Counts are whole numbers: they
// must be equal.
//
// Run them, from the course's top folder:
//   on the simulator:  ./build/bin/cudalab check histogram
//     (grades your exercise.cu; --solution or --file F.cu grades another file)
//   on a GPU:          ./build/bin/cudalab check histogram --gpu
//     (nvcc builds your file and the tests run on the GPU; the method rubrics
//     still run on the simulator)
//   on a GPU without the cudalab command, the tests and your file as one
//   program that prints each test's points (nvcc all one line, as driver.cu):
//     nvcc -O3 -std=c++17 -arch=sm_90 -I framework/include -I support/include
//       -I trace/include -I lessons/histogram lessons/histogram/grade.cu
//       lessons/histogram/exercise.cu framework/src/*.cpp support/src/*.cpp -o grade_histogram
//     ./grade_histogram
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

// The three stages of stages.h, each with the student's launcher.
#define GRADED_STAGE(number, name, kernel, launcher) \
  {number, #kernel, CUDALAB_SUBMISSION(launcher)},
const Stage kStages[] = {HISTOGRAM_STAGES(GRADED_STAGE)};
#undef GRADED_STAGE

namespace {

// What the counts say about the mistake, when they are wrong: how their sum
// compares with n, in a student's words.
std::string what_the_total_says(const Stage& stage, unsigned long long total, int n) {
  std::ostringstream s;
  if (total == (unsigned long long)n) {
    s << "  The bins add up to " << n << ", one count per byte, as they should: but some "
      << "bytes went to the wrong bin. A byte's bin is its value, 0 to 255.\n";
    return s.str();
  }
  s << "  The bins add up to " << total << ", but there are " << n << " bytes";
  if (total == 0) {
    s << ": no byte was counted. Is the kernel still a TODO?\n";
  } else if (total < (unsigned long long)n) {
    s << ": " << n - total << " were lost. ";
    if (stage.number == 1)
      s << "Is every addition to bins[] an atomicAdd (a plain ++ loses additions made at the "
           "same time), and does the grid-stride loop reach every byte (start at the "
           "thread's global index, step by gridDim.x * blockDim.x)?\n";
    else
      s << "Look at where counts can be lost: an addition to a bin that is not an atomicAdd, "
           "a block that adds its bins to bins[] before all its threads have counted (the "
           "barrier before), bins of the block that no thread adds (with fewer threads than "
           "bins, each thread adds several), bytes the loop never reaches (its start, its "
           "step"
        << (stage.number == 3 ? ", the last n % 16 bytes" : "")
        << "), and bytes read as a signed char (a byte of 128 or more is then a negative "
           "bin).\n";
  } else {
    s << ": " << total - n << " too many. Were bytes counted twice (loops whose threads "
      << "overlap: the step is the whole grid, gridDim.x * blockDim.x"
      << (stage.number == 3 ? "; the last bytes counted both in a uint4 and one by one" : "")
      << "), or bytes past the end (every index below n"
      << (stage.number == 3 ? ", and a uint4 only where all its 16 bytes are" : "") << ")"
      << (stage.number == 1 ? "?\n"
                            : ", or did a block's bins not start at 0 (shared memory keeps what "
                              "the last block left there: zero every bin, then __syncthreads(), "
                              "before counting)?\n");
  }
  return s.str();
}

}  // namespace

void run_case(cudalab::grading::TestContext& t, const Stage& stage, const Case& c) {
  t.note() << stage.kernel << ": n = " << c.n << " bytes, "
           << (c.skew ? std::to_string(c.skew) + " % of them one value" : "uniform") << ", "
           << c.blocks << (c.blocks == 1 ? " block" : " blocks") << " of " << c.threads
           << " threads\n";
  const std::vector<unsigned char> data = random_bytes(c.n, c.seed, c.skew);
  std::vector<uint32_t> want(kBins), got(kBins);
  histogram_cpu(data.data(), c.n, want.data());

  unsigned char* d_data = nullptr;
  unsigned int* d_bins = nullptr;
  if (cudaMalloc(&d_data, c.n) != cudaSuccess ||
      cudaMalloc(&d_bins, kBins * sizeof(unsigned int)) != cudaSuccess) {
    t.fail() << "could not allocate device memory: " << cudaGetErrorString(cudaGetLastError())
             << "\n";
    return;
  }
  cudaMemcpy(d_data, data.data(), c.n, cudaMemcpyHostToDevice);
  cudaMemset(d_bins, 0, kBins * sizeof(unsigned int));  // the launcher adds to zero bins
  cudalab::track_writers();

  stage.launch(d_data, c.n, d_bins, c.blocks, c.threads);
  if (const std::string why = cudalab::launch_problem(); !why.empty()) {
    t.fail() << why;
  } else {
    cudaMemcpy(got.data(), d_bins, kBins * sizeof(unsigned int), cudaMemcpyDeviceToHost);
    std::ostringstream details;
    if (!cudalab::compare(got.data(), want.data(), kBins, "bins", d_bins, details).ok()) {
      unsigned long long total = 0;
      for (uint32_t v : got) total += v;
      t.fail() << details.str() << "  (bins[v] counts the bytes of value v)\n"
               << what_the_total_says(stage, total, c.n);
    }
  }
  cudaFree(d_data);
  cudaFree(d_bins);
}

// Stage 1: one atomicAdd per byte in global memory.
CUDALAB_GRADED_TEST(GlobalUniform, 1,
                    "stage 1: 100,003 uniform bytes, one thread per byte (391 blocks of 256)") {
  run_case(t, kGlobal,
           {.n = 100003,
            .blocks = blocks_for(100003, 256),
            .threads = 256,
            .skew = 0,
            .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(GlobalOneBlock, 1,
                    "stage 1, global atomics: 1,000 bytes, one block of 256 (the grid-stride "
                    "loop)") {
  run_case(t, kGlobal, {.n = 1000, .blocks = 1, .threads = 256, .skew = 0, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(GlobalSkewed, 1, "stage 1: 100,000 bytes, 90 % of them one value") {
  run_case(t, kGlobal, {.n = 100000, .blocks = 64, .threads = 128, .skew = 90, .seed = t.seed(1)});
}

// Stage 2: a block's own bins in shared memory.
CUDALAB_GRADED_TEST(SharedUniform, 1,
                    "stage 2, shared-memory bins: 100,003 uniform bytes, 32 blocks of 256") {
  run_case(t, kShared, {.n = 100003, .blocks = 32, .threads = 256, .skew = 0, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(SharedSkewed, 1, "stage 2: 100,000 bytes, 90 % of them one value") {
  run_case(t, kShared, {.n = 100000, .blocks = 32, .threads = 256, .skew = 90, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(SharedFewThreads, 1,
                    "stage 2: blocks of 64 threads, fewer than the 256 bins (10 blocks, 50,000 "
                    "bytes)") {
  run_case(t, kShared, {.n = 50000, .blocks = 10, .threads = 64, .skew = 0, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(SharedManyThreads, 1,
                    "stage 2: blocks of 1,024 threads, more than the 256 bins (3 blocks, 50,000 "
                    "bytes)") {
  run_case(t, kShared, {.n = 50000, .blocks = 3, .threads = 1024, .skew = 0, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(SharedOneByte, 1, "stage 2: a single byte, one block of 256") {
  run_case(t, kShared, {.n = 1, .blocks = 1, .threads = 256, .skew = 0, .seed = t.seed(1)});
}

// Stage 3: 16 bytes per load.
CUDALAB_GRADED_TEST(WideUniform, 1,
                    "stage 3, wide loads: 262,144 uniform bytes (16,384 uint4s), 16 blocks of "
                    "256") {
  run_case(t, kWide, {.n = 1 << 18, .blocks = 16, .threads = 256, .skew = 0, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(WideTail, 1,
                    "stage 3: 100,003 bytes, 3 after the last whole uint4 (16 blocks of 128)") {
  run_case(t, kWide, {.n = 100003, .blocks = 16, .threads = 128, .skew = 0, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(WideFewBytes, 1, "stage 3: 13 bytes, less than one uint4 (2 blocks of 32)") {
  run_case(t, kWide, {.n = 13, .blocks = 2, .threads = 32, .skew = 0, .seed = t.seed(1)});
}
CUDALAB_GRADED_TEST(WideSkewed, 1,
                    "stage 3: 200,005 bytes, 90 % of them one value (24 blocks of 256)") {
  run_case(t, kWide, {.n = 200005, .blocks = 24, .threads = 256, .skew = 90, .seed = t.seed(1)});
}

int main(int argc, char** argv) { return cudalab::grading::grader_main(argc, argv); }
