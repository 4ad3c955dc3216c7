// A kernel that faults, asserts or never ends: the launch ends as on a GPU and
// the report names the kernel, the thread, the block and the student's line.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "tool_test.h"

namespace {

using Faults = cudalab::testing::ToolTest;
using cudalab::testing::checks_program;
using cudalab::testing::kCC;
using cudalab::testing::kPrograms;
using cudalab::testing::Result;
using cudalab::testing::run;
using cudalab::testing::Says;

TEST_F(Faults, AFaultingKernelNamesKernelThreadAndBlock) {
  std::ofstream(path("fault.cu")) << "#include <cstdio>\n"
                                     "__global__ void boom(int* p, int bad) {\n"
                                     "  if (blockIdx.x == 1 && threadIdx.x == bad) p[0] = 1;\n"
                                     "}\n"
                                     "int main(int argc, char**) {\n"
                                     "  int* volatile p = nullptr;\n"
                                     "  boom<<<2, 32>>>(p, argc + 4);\n"
                                     "  cudaError_t e = cudaDeviceSynchronize();\n"
                                     "  std::printf(\"after: %s\\n\", cudaGetErrorName(e));\n"
                                     "  return 0;\n"
                                     "}\n";
  ASSERT_EQ(run(kCC + " " + path("fault.cu") + " -o " + path("f")).status, 0);
  Result r = run(path("f"));
  EXPECT_EQ(r.status, 0) << "the program goes on, as on a GPU";
  EXPECT_TRUE(Says(r.output, "kernel 'boom'"));
  EXPECT_TRUE(Says(r.output, "thread (5,0,0) in block (1,0,0)"));
  EXPECT_TRUE(Says(r.output, "fault.cu:3"));
  EXPECT_TRUE(Says(r.output, "after: cudaErrorIllegalAddress"));
}

// Between two shuffles a warp's lanes may run together (a vector loop over
// them, in the plain build's block loops): a fault there names the warp's
// threads, and says which setting names the thread; a fiber per thread
// names it.
TEST_F(Faults, AFaultWhereAWarpsLanesRunTogetherNamesTheirThreads) {
  std::ofstream(path("lanes.cu")) << "#include <cstdio>\n"
                                     "__global__ void sums(int* out, int* p, int bad) {\n"
                                     "  int v = threadIdx.x;\n"
                                     "  v += __shfl_xor_sync(0xffffffffu, v, 1);\n"
                                     "  if (blockIdx.x == 1 && threadIdx.x == bad + 32) p[v] = 1;\n"
                                     "  v += __shfl_xor_sync(0xffffffffu, v, 2);\n"
                                     "  out[blockIdx.x * blockDim.x + threadIdx.x] = v;\n"
                                     "}\n"
                                     "int main(int argc, char**) {\n"
                                     "  int* out;\n"
                                     "  cudaMalloc(&out, 2 * 64 * sizeof(int));\n"
                                     "  int* volatile p = nullptr;\n"
                                     "  sums<<<2, 64>>>(out, p, argc + 4);\n"
                                     "  cudaError_t e = cudaDeviceSynchronize();\n"
                                     "  std::printf(\"after: %s\\n\", cudaGetErrorName(e));\n"
                                     "  return 0;\n"
                                     "}\n";
  ASSERT_EQ(run(kCC + " --fast " + path("lanes.cu") + " -o " + path("l")).status, 0);
  Result together = run(path("l"));
  EXPECT_EQ(together.status, 0) << together.output;
  EXPECT_TRUE(Says(together.output, "kernel 'sums'"));
  EXPECT_TRUE(Says(together.output, "one of the threads (32,0,0) to (63,0,0)")) << together.output;
  EXPECT_TRUE(Says(together.output, "CUDALAB_BLOCK_LOOPS=off names the thread"));
  EXPECT_TRUE(Says(together.output, "in block (1,0,0)"));
  EXPECT_TRUE(Says(together.output, "lanes.cu:5"));
  EXPECT_TRUE(Says(together.output, "after: cudaErrorIllegalAddress"));
  Result apart = run("CUDALAB_BLOCK_LOOPS=off " + path("l"));
  EXPECT_TRUE(Says(apart.output, "thread (37,0,0) in block (1,0,0)")) << apart.output;
}

TEST_F(Faults, AFailedAssertInAKernelEndsTheLaunchAsOnAGpu) {
  std::ofstream(path("a.cu")) << "#include <cassert>\n"
                                 "#include <cstdio>\n"
                                 "__global__ void check(int limit) {\n"
                                 "  assert(threadIdx.x < limit);\n"
                                 "}\n"
                                 "int main(int argc, char**) {\n"
                                 "  check<<<1, 32>>>(30);\n"
                                 "  cudaError_t e = cudaDeviceSynchronize();\n"
                                 "  std::fprintf(stderr, \"after: %s\\n\", cudaGetErrorName(e));\n"
                                 "  assert(argc == 100);  // on the host: the C library's\n"
                                 "  return 0;\n"
                                 "}\n";
  ASSERT_EQ(run(kCC + " " + path("a.cu") + " -o " + path("a")).status, 0);
  Result r = run(path("a"));
  EXPECT_TRUE(Says(r.output,
                   "a.cu:4: void check(int): block: [0,0,0], thread: [30,0,0] Assertion "
                   "`threadIdx.x < limit` failed."));
  EXPECT_TRUE(Says(r.output, "after: cudaErrorAssert"));
  EXPECT_TRUE(Says(r.output, "Assertion `argc == 100' failed."));
  EXPECT_NE(r.status, 0) << "the host assert aborts";
  ASSERT_EQ(run(kCC + " -DNDEBUG " + path("a.cu") + " -o " + path("b")).status, 0);
  Result quiet = run(path("b"));
  EXPECT_EQ(quiet.status, 0);
  EXPECT_TRUE(Says(quiet.output, "after: cudaSuccess"));
}

// Without any check: a null pointer and writes far past a buffer fault as on
// a GPU (cudaErrorIllegalAddress, sticky), the report names the student's
// line, the thread and the buffer, and nothing of the simulator's memory is
// written (the program goes on to its end and exits normally).
TEST_F(Faults, NullAndFarPointersFaultAtTheStudentsLine) {
  struct Case {
    const char* name;
    const char* line;
    const char* said;
  };
  for (const Case& c :
       {Case{"null_pointer", "null_pointer.cu:9", "a null pointer"},
        Case{"transpose_far_write", "transpose_far_write.cu:12",
             "after the last byte of the 262144-byte buffer `out` allocated at "}}) {
    const std::string built = checks_program(c.name);
    for (const std::string& program : {built, built + ".instrumented"}) {
      const Result r = run(program);
      EXPECT_EQ(r.status, 0) << program << "\n" << r.output;
      for (const std::string& want :
           {std::string("after: cudaErrorIllegalAddress"), std::string(c.line), std::string(c.said),
            std::string("by thread (")})
        EXPECT_TRUE(Says(r.output, want)) << program;
      EXPECT_FALSE(Says(r.output, "simulator/src/")) << program;
    }
  }
}

// A host pointer given to a kernel: the instrumented build stops the
// thread, as a GPU would, and the report says it is host memory (the plain
// build, whose kernels run on the host's memory, writes it).
TEST_F(Faults, AHostPointerInAKernelIsNamedHostMemory) {
  ASSERT_EQ(run(kCC + " " + kPrograms + "/host_pointer_kernel.cu -o " + path("host")).status, 0);
  const Result r = run(path("host") + ".instrumented");
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* want :
       {"after: cudaErrorIllegalAddress", "host_pointer_kernel.cu:9",
        "host heap memory (from malloc, new or a std::vector in host code), which a kernel "
        "cannot use"})
    EXPECT_TRUE(Says(r.output, want));
}

TEST_F(Faults, ATimeLimitStopsAnEndlessKernel) {
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
  GTEST_SKIP() << "the simulator is built with ThreadSanitizer here, which holds back the "
                  "watchdog's signal until the thread calls into its runtime: an endless loop "
                  "of uninstrumented kernel code never does (the default build runs this test)";
#endif
#endif
  Result r = run("CUDALAB_TIMEOUT=0.5 timeout 30 " + checks_program("endless_loop"));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(Says(r.output, "ran longer than CUDALAB_TIMEOUT=0.5 seconds and was stopped"));
  EXPECT_TRUE(Says(r.output, "after: cudaErrorLaunchTimeout"));
}

}  // namespace
