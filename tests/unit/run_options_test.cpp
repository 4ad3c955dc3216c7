// How a simulated program runs: thread schedules and their seeds, the
// simulated GPU, printf in kernels and pinned host memory.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <string>

#include "tool_test.h"

namespace {

using RunOptions = cudalab::testing::ToolTest;
using cudalab::testing::kCC;
using cudalab::testing::Result;
using cudalab::testing::run;
using cudalab::testing::Says;

TEST_F(RunOptions, SchedulesReorderThreadsAndASeedReplaysItsOrder) {
  // Every thread writes one place: the last to run wins (a race, on purpose).
  std::ofstream(path("last.cu")) << "#include <cstdio>\n"
                                    "__global__ void last(int* out) {\n"
                                    "  __syncthreads();\n"
                                    "  *out = threadIdx.x;\n"
                                    "}\n"
                                    "int main() {\n"
                                    "  int* d; int h = -1;\n"
                                    "  cudaMalloc(&d, sizeof(int));\n"
                                    "  last<<<1, 64>>>(d);\n"
                                    "  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);\n"
                                    "  std::printf(\"last=%d\\n\", h);\n"
                                    "}\n";
  ASSERT_EQ(run(kCC + " " + path("last.cu") + " -o " + path("last")).status, 0);
  EXPECT_TRUE(Says(run(path("last")).output, "last=62"))
      << "in order, the last thread to arrive at the barrier goes on first";
  EXPECT_TRUE(Says(run("CUDALAB_SCHEDULE=reverse " + path("last")).output, "last=1"));
  const Result a = run("CUDALAB_SCHEDULE=random:7 " + path("last"));
  const Result b = run("CUDALAB_SCHEDULE=random:7 " + path("last"));
  EXPECT_TRUE(Says(a.output, "seed 7 (CUDALAB_SCHEDULE=random:7 runs this order again)"));
  EXPECT_EQ(a.output, b.output) << "one seed, one order";
  std::set<std::string> seen;
  for (int seed = 1; seed <= 8; ++seed) {
    const std::string out =
        run("CUDALAB_SCHEDULE=random:" + std::to_string(seed) + " " + path("last")).output;
    seen.insert(out.substr(out.find("last=")));
  }
  EXPECT_GT(seen.size(), 2u) << "different seeds give different orders";
  const Result bad = run("CUDALAB_SCHEDULE=sideways " + path("last"));
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(Says(bad.output, "use in-order (the default), reverse, random or random:SEED"));
}

TEST_F(RunOptions, TheSimulatedGpuIsSelectable) {
  std::ofstream(path("props.cu"))
      << "#include <cudalab/detail/cub_config.h>\n"
         "#include <cstdio>\n"
         "int main() {\n"
         "  cudaDeviceProp p;\n"
         "  cudaGetDeviceProperties(&p, 0);\n"
         "  int sms = 0;\n"
         "  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);\n"
         "  std::printf(\"%s sm_%d%d %d\\n\", p.name, p.major, p.minor, sms);\n"
         "  const int ptx = p.major * 100 + p.minor * 10;\n"
         "  std::printf(\"PTX version %d, %s\\n\", ptx, ptx >= CUDALAB_LOWEST_PTX_VERSION\n"
         "      ? \"CUB's policies for it compiled\" : \"BELOW CUDALAB_LOWEST_PTX_VERSION\");\n"
         "}\n";
  ASSERT_EQ(run(kCC + " " + path("props.cu") + " -o " + path("props")).status, 0);
  // CUB compiles the policies of its algorithms for the simulated devices'
  // PTX versions only (cudalab/detail/cub_config.h): each device's version
  // is one of them.
  for (const char* device : {"h100", "h200", "a100"})
    EXPECT_TRUE(Says(run(std::string("CUDALAB_DEVICE=") + device + " " + path("props")).output,
                     "CUB's policies for it compiled"))
        << device;
  EXPECT_NE(run(path("props")).output.find("H100 80GB HBM3 (cudalab simulator) sm_90 132"),
            std::string::npos);
  EXPECT_NE(run("CUDALAB_DEVICE=a100 " + path("props"))
                .output.find("A100-SXM4-80GB (cudalab simulator) sm_80 108"),
            std::string::npos);
  Result bad = run("CUDALAB_DEVICE=voodoo2 " + path("props"));
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(Says(bad.output, "choose h100 (the default), h200 or a100"));
}

TEST_F(RunOptions, PrintfInKernelsAndPinnedHostMemory) {
  std::ofstream(path("hello.cu")) << "#include <cstdio>\n"
                                     "__global__ void hello(int n) {\n"
                                     "  if (threadIdx.x < n) printf(\"hello from thread %d of "
                                     "block %d\\n\", threadIdx.x, blockIdx.x);\n"
                                     "}\n"
                                     "int main() {\n"
                                     "  int* pinned;\n"
                                     "  if (cudaMallocHost(&pinned, 64) != cudaSuccess) return 1;\n"
                                     "  hello<<<2, 32>>>(2);\n"
                                     "  cudaDeviceSynchronize();\n"
                                     "  return cudaFreeHost(pinned) == cudaSuccess ? 0 : 1;\n"
                                     "}\n";
  ASSERT_EQ(run(kCC + " " + path("hello.cu") + " -o " + path("h")).status, 0);
  Result r = run(path("h"));
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* line : {"hello from thread 0 of block 0", "hello from thread 1 of block 0",
                           "hello from thread 0 of block 1", "hello from thread 1 of block 1"})
    EXPECT_NE(r.output.find(line), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("thread 2 "), std::string::npos);
}

}  // namespace
