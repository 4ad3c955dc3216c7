// cudalab-cc builds programs as nvcc would: several files, -c, compile errors
// at the .cu line, bad arguments; and with the same recipe as a CMake build.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tool_test.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUDALAB_HAS_ASAN 1
#endif
#endif
#ifndef CUDALAB_HAS_ASAN
#define CUDALAB_HAS_ASAN 0
#endif
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CUDALAB_HAS_TSAN 1
#endif
#endif
#ifndef CUDALAB_HAS_TSAN
#define CUDALAB_HAS_TSAN 0
#endif

namespace {

namespace fs = std::filesystem;

using Compiler = cudalab::testing::ToolTest;
using cudalab::testing::kCC;
using cudalab::testing::kPrograms;
using cudalab::testing::Result;
using cudalab::testing::run;
using cudalab::testing::Says;

TEST_F(Compiler, BuildsAndRunsAMultiFileProgram) {
  Result b = run(kCC + " -O2 -I " + kPrograms + " " + kPrograms + "/multi_main.cu " + kPrograms +
                 "/multi_kernels.cu " + kPrograms + "/multi_host.cpp -o " + path("multi"));
  ASSERT_EQ(b.status, 0) << b.output;
  EXPECT_TRUE(fs::exists(path("multi.instrumented")));
  Result r = run(path("multi"));
  EXPECT_EQ(r.status, 0);
  // 1000 elements of 7 + i % 3: 7000 + (333 * 3 + 0) = 7999
  EXPECT_TRUE(Says(r.output, "multi: sum=7999"));
}

TEST_F(Compiler, SeparateCompilationWithDashC) {
  ASSERT_EQ(
      run(kCC + " -c " + kPrograms + "/multi_kernels.cu -I" + kPrograms + " -o " + path("k.o"))
          .status,
      0);
  EXPECT_TRUE(fs::exists(path("k.o.instrumented")));
  Result b = run(kCC + " -I" + kPrograms + " " + kPrograms + "/multi_main.cu " + kPrograms +
                 "/multi_host.cpp " + path("k.o") + " -o " + path("multi"));
  ASSERT_EQ(b.status, 0) << b.output;
  EXPECT_NE(run(path("multi")).output.find("sum=7999"), std::string::npos);
}

TEST_F(Compiler, CompileErrorsPointAtTheCuFileAndLine) {
  Result b = run(kCC + " " + kPrograms + "/compile_error.cu -o " + path("x"));
  EXPECT_NE(b.status, 0);
  EXPECT_TRUE(Says(b.output, "compile_error.cu:5:"));
  EXPECT_TRUE(Says(b.output, "undeclared_value"));
}

TEST_F(Compiler, CompileErrorsShowTheLaunchAsWritten) {
  Result b = run(kCC + " " + kPrograms + "/launch_arity_error.cu -o " + path("x"));
  EXPECT_NE(b.status, 0);
  EXPECT_TRUE(
      Says(b.output, "launch_arity_error.cu:9: error: no matching function for call to 'add'"));
  EXPECT_TRUE(Says(b.output, "  add<<<1, 32>>>(a, c);"));
  EXPECT_TRUE(Says(b.output, "launch_arity_error.cu:5: note: candidate function not viable"));
  for (const char* never : {"make_launcher", "cudalab_args_", "cudalab_type_", "/usr/include",
                            "kernel_language.h", "cudalab/detail/", "cudalab_kernel_registered"})
    EXPECT_FALSE(Says(b.output, never)) << never << " in:\n" << b.output;
  // One message, not one per build (plain and instrumented).
  EXPECT_EQ(b.output.find("1 error generated."), b.output.rfind("1 error generated.")) << b.output;
}

// A header the simulator does not have, found in a CUDA toolkit's include
// folder (a toolkit installed in /usr/local/include, say): the failure is
// said at the student's #include, as a library the simulator does not
// support, not only as the toolkit's own error.
TEST_F(Compiler, AToolkitHeaderIsNamedAtTheStudentsInclude) {
  const fs::path toolkit = path("toolkit");
  fs::create_directories(toolkit);
  std::ofstream(toolkit / "cuda_runtime_api.h") << "// the toolkit's\n";
  std::ofstream(toolkit / "libfoo.h") << "#pragma once\n#include \"libfoo_types.h\"\n";
  std::ofstream(toolkit / "libfoo_types.h") << "libraryPropertyType_t kind = 0;\n";
  std::ofstream(path("mine.cu")) << "#include <cstdio>\n#include <libfoo.h>\nint main() {}\n";
  Result b = run(kCC + " -I " + toolkit.string() + " " + path("mine.cu") + " -o " + path("x"));
  EXPECT_NE(b.status, 0);
  EXPECT_TRUE(Says(b.output, "libfoo_types.h:1:1: error: unknown type name"));
  EXPECT_TRUE(Says(b.output,
                   "mine.cu:2: note: #include <libfoo.h> found a CUDA toolkit's own "
                   "header, " +
                       (toolkit / "libfoo_types.h").string()))
      << b.output;
  EXPECT_TRUE(Says(b.output, "not supported on it yet")) << b.output;
  // Once, not once per build (plain and instrumented).
  EXPECT_EQ(b.output.find("found a CUDA toolkit"), b.output.rfind("found a CUDA toolkit"));
  // An error in the student's own header is theirs: no such note.
  std::ofstream(path("own.h")) << "undeclared_thing x;\n";
  std::ofstream(path("own.cu")) << "#include \"own.h\"\nint main() {}\n";
  Result own = run(kCC + " " + path("own.cu") + " -o " + path("y"));
  EXPECT_NE(own.status, 0);
  EXPECT_FALSE(Says(own.output, "CUDA toolkit")) << own.output;
}

TEST_F(Compiler, WarpSynchronousCodeInAHeaderRunsInLockStep) {
  // Each lane adds its XOR partner's element in place: with the lanes in
  // lock-step both read before either writes, as on a GPU (3 3); lane after
  // lane, the one that goes second reads the other's sum.
  std::ofstream(path("sums.h")) << "__device__ void pair_sums(int* s) {\n"
                                   "  const int i = threadIdx.x;\n"
                                   "  s[i] += s[i ^ 1];\n}\n";
  std::ofstream(path("sync.cu"))
      << "#include <cstdio>\n#include \"sums.h\"\n"
         "__global__ void k(int* out) {\n  __shared__ int s[2];\n"
         "  s[threadIdx.x] = threadIdx.x + 1;\n  __syncthreads();\n  pair_sums(s);\n"
         "  out[threadIdx.x] = s[threadIdx.x];\n}\n"
         "int main() {\n  int* d; cudaMallocManaged(&d, 8);\n  k<<<1, 2>>>(d);\n"
         "  cudaDeviceSynchronize();\n  std::printf(\"%d %d\\n\", d[0], d[1]);\n}\n";
  ASSERT_EQ(run(kCC + " " + path("sync.cu") + " -o " + path("sync")).status, 0);
  EXPECT_TRUE(Says(run(path("sync")).output, "3 3"));
  const Result off = run("CUDALAB_LOCKSTEP=off " + path("sync"));
  EXPECT_FALSE(Says(off.output, "3 3")) << off.output;
  EXPECT_TRUE(Says(off.output, "3 5") || Says(off.output, "4 3")) << off.output;
}

TEST_F(Compiler, BadArgumentsGetAClearMessage) {
  Result r = run(kCC + " --no-such-flag x.cu");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(Says(r.output, "unknown option --no-such-flag"));
  r = run(kCC + " " + path("missing.cu"));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(Says(r.output, "no such file"));
  r = run(kCC);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("no input files"), std::string::npos);
}

TEST_F(Compiler, FastBuildHasNoTwinAndSaysSoWhenATraceIsAsked) {
  ASSERT_EQ(run(kCC + " --fast " + kPrograms + "/traced_add.cu -o " + path("p")).status, 0);
  EXPECT_FALSE(fs::exists(path("p.instrumented")));
  Result r = run("CUDALAB_TRACE=" + path("t.trace") + " " + path("p"));
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(Says(r.output, "without --fast"));
}

// --one-at-a-time (what a class grading uses): both programs when the file
// compiles; when it does not, the instrumented compile never starts.
TEST_F(Compiler, OneAtATimeBuildsBothOrStopsAtTheFirstFailure) {
  ASSERT_EQ(run(kCC + " --one-at-a-time " + kPrograms + "/traced_add.cu -o " + path("p")).status,
            0);
  EXPECT_TRUE(fs::exists(path("p")));
  EXPECT_TRUE(fs::exists(path("p.instrumented")));
  EXPECT_EQ(run(path("p")).status, 0);
  Result b = run(kCC + " -v --one-at-a-time " + kPrograms + "/compile_error.cu -o " + path("x"));
  EXPECT_NE(b.status, 0);
  EXPECT_TRUE(Says(b.output, "compile_error.cu:5:"));
  EXPECT_TRUE(Says(b.output, "-o")) << b.output;  // the plain compile, as -v shows it
  EXPECT_FALSE(Says(b.output, "CUDALAB_INSTRUMENTED")) << b.output;
}

// A compiler that runs out of memory (a template that grows without end)
// says so in plain words at the student's line, without its backtrace or a
// plea for a bug report.
TEST_F(Compiler, ACompilerOutOfMemoryIsSaidPlainlyAtTheStudentsLine) {
#if defined(__SANITIZE_ADDRESS__) || CUDALAB_HAS_ASAN
  GTEST_SKIP() << "cudalab-cc is built with AddressSanitizer here, which cannot start under an "
                  "address-space limit (the default build runs this test)";
#endif
#if CUDALAB_HAS_TSAN
  GTEST_SKIP() << "cudalab-cc is built with ThreadSanitizer here, which cannot start under an "
                  "address-space limit (the default build runs this test)";
#endif
  std::ofstream(path("bomb.cu"))
      << "template <int D, unsigned long long I> struct Node {\n"
         "  static constexpr unsigned long long value =\n"
         "      Node<D - 1, 2 * I>::value + Node<D - 1, 2 * I + 1>::value;\n"
         "};\n"
         "template <unsigned long long I> struct Node<0, I> {\n"
         "  static constexpr unsigned long long value = I & 1;\n"
         "};\n"
         "constexpr unsigned long long kBomb = Node<40, 1>::value;\n"
         "int main() { return int(kBomb & 1); }\n";
  // 512 MiB of address space: the compiler reaches it in a few seconds.
  Result b = run("prlimit --as=" + std::to_string(512ull << 20) + " " + kCC +
                 " --one-at-a-time -c " + path("bomb.cu") + " -o " + path("bomb.o"));
  EXPECT_NE(b.status, 0);
  EXPECT_TRUE(Says(b.output, "the compiler ran out of memory on this file")) << b.output;
  EXPECT_TRUE(Says(b.output, "bomb.cu:2:")) << b.output;  // instantiating Node<40, 1>::value
  EXPECT_FALSE(Says(b.output, "Stack dump")) << b.output;
  EXPECT_FALSE(Says(b.output, "bug report")) << b.output;
  EXPECT_FALSE(Says(b.output, "#10 0x")) << b.output;
}

// A kernel in a local header builds with cudalab-cc and with CMake alike.
TEST_F(Compiler, AKernelInALocalHeaderBuildsWithEitherBuilder) {
  ASSERT_EQ(run(kCC + " " + kPrograms + "/header_kernel/main.cu -o " + path("p")).status, 0);
  Result r = run(path("p"));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(Says(r.output, "header kernel: h[0]=255 h[255]=0"));
  r = run(CUDALAB_CMAKE_HEADER_KERNEL);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(Says(r.output, "header kernel: h[0]=255 h[255]=0"));
}

// Local headers that include each other through an include folder (each
// behind its guard): the build ends, and the kernel in one of them runs.
TEST_F(Compiler, HeadersThatIncludeEachOtherBuild) {
  fs::create_directories(path("inc"));
  std::ofstream(path("inc/a.h")) << "#ifndef A_H\n#define A_H\n#include \"inc/b.h\"\n"
                                    "__global__ void fill(int* p) { p[threadIdx.x] = B; }\n"
                                    "#endif\n";
  std::ofstream(path("inc/b.h")) << "#ifndef B_H\n#define B_H\n#define B 7\n"
                                    "#include \"inc/a.h\"\n#endif\n";
  std::ofstream(path("main.cu"))
      << "#include <cstdio>\n#include \"inc/a.h\"\nint main() {\n  int* d; int h = 0;\n"
         "  cudaMalloc(&d, 4 * sizeof(int));\n  fill<<<1, 4>>>(d);\n"
         "  cudaMemcpy(&h, d + 3, sizeof(int), cudaMemcpyDeviceToHost);\n"
         "  std::printf(\"h=%d\\n\", h);\n}\n";
  Result b =
      run("timeout 120 " + kCC + " -I " + path("") + " " + path("main.cu") + " -o " + path("p"));
  ASSERT_EQ(b.status, 0) << b.output;
  EXPECT_TRUE(Says(run(path("p")).output, "h=7"));
}

// A kernel in a header of a subfolder whose own quoted includes are beside
// it (HeCBench's segsort: main.cu includes "src/a.cuh", which includes
// "b.cuh" from src/): the rewritten copy still finds them, and a same-named
// header beside main.cu is not the one it takes.
TEST_F(Compiler, AHeaderInASubfolderFindsTheHeadersBesideIt) {
  fs::create_directories(path("src"));
  std::ofstream(path("src/b.cuh")) << "#pragma once\n#define B 7\n"
                                      "inline __device__ int twice(int x) { return 2 * x; }\n";
  std::ofstream(path("b.cuh")) << "#error the wrong b.cuh\n";
  std::ofstream(path("src/a.cuh")) << "#pragma once\n#include \"b.cuh\"\n"
                                      "__global__ void fill(int* p) { p[threadIdx.x] = "
                                      "twice(B); }\n";
  std::ofstream(path("main.cu"))
      << "#include <cstdio>\n#include \"src/a.cuh\"\nint main() {\n  int* d; int h = 0;\n"
         "  cudaMalloc(&d, 4 * sizeof(int));\n  fill<<<1, 4>>>(d);\n"
         "  cudaMemcpy(&h, d + 3, sizeof(int), cudaMemcpyDeviceToHost);\n"
         "  std::printf(\"h=%d\\n\", h);\n}\n";
  Result b = run("timeout 120 " + kCC + " " + path("main.cu") + " -o " + path("p"));
  ASSERT_EQ(b.status, 0) << b.output;
  EXPECT_TRUE(Says(run(path("p")).output, "h=14"));
}

// What programs built with nvcc rely on (HeCBench's logic-rewrite and tsne):
// Thrust's policies, thrust::sequence and thrust::minmax_element from
// thrust/sort.h alone, included by the file or by a header of its own, and a
// kernel defined outside its namespace (`void Aig::k(...)`).
TEST_F(Compiler, ThrustAsNvccIncludesItAndKernelsDefinedOutsideTheirNamespace) {
  if (!fs::exists("/usr/include/thrust/sort.h")) GTEST_SKIP() << "libthrust-dev is not installed";
  fs::create_directories(path("inc"));
  std::ofstream(path("inc/common.h"))
      << "#pragma once\n#include <thrust/device_vector.h>\n#include <thrust/sort.h>\n";
  std::ofstream(path("range.cu")) << "#include \"inc/common.h\"\n"
                                     "int range(const thrust::device_vector<int>& v) {\n"
                                     "  auto m = thrust::minmax_element(v.begin(), v.end());\n"
                                     "  return *m.second - *m.first;\n}\n";
  std::ofstream(path("main.cu"))
      << "#include <cstdio>\n#include <thrust/sort.h>\n#include \"inc/common.h\"\n"
         "int range(const thrust::device_vector<int>& v);\n"
         "namespace Aig { __global__ void twice(int* p, int n); }\n"
         "__global__ void Aig::twice(int* p, int n) { if (threadIdx.x < n) p[threadIdx.x] *= 2; }\n"
         "int main() {\n  int* d; int h[4];\n  cudaMalloc(&d, 4 * sizeof(int));\n"
         "  thrust::sequence(thrust::device, d, d + 4);\n"
         "  thrust::sort(thrust::device, d, d + 4, thrust::greater<int>());\n"
         "  Aig::twice<<<1, 4>>>(d, 4);\n"
         "  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);\n"
         "  std::printf(\"%d %d %d %d\\n\", h[0], h[1], h[2], h[3]);\n"
         "  std::printf(\"range %d\\n\", range(thrust::device_vector<int>(h, h + 4)));\n}\n";
  Result b = run("timeout 300 " + kCC + " " + path("main.cu") + " " + path("range.cu") + " -o " +
                 path("p"));
  ASSERT_EQ(b.status, 0) << b.output;
  const std::string out = run(path("p")).output;
  EXPECT_TRUE(Says(out, "6 4 2 0")) << out;
  EXPECT_TRUE(Says(out, "range 6")) << out;
}

// nvcc takes -std=c++11 and c++14 (older course Makefiles pass them): they
// build as C++17, which the simulator's headers need, with what C++17 took
// out of the language (`register`, dynamic exception specifications) still
// accepted.
TEST_F(Compiler, OlderDialectsBuildAsCpp17) {
  std::ofstream(path("old.cu"))
      << "#include <cstdio>\nvoid check(int n) throw() { if (n < 0) std::printf(\"neg\\n\"); }\n"
         "__global__ void k(int* p) { register int x = 3; p[threadIdx.x] = x; }\n"
         "int main() {\n  int* d; int h = 0;\n  cudaMalloc(&d, sizeof(int));\n"
         "  k<<<1, 1>>>(d);\n  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);\n"
         "  check(h);\n  std::printf(\"h=%d\\n\", h);\n}\n";
  for (const char* dialect : {"c++11", "c++14", "gnu++14"}) {
    Result b = run(kCC + " --fast -std=" + dialect + " " + path("old.cu") + " -o " + path("old"));
    ASSERT_EQ(b.status, 0) << dialect << ": " << b.output;
    EXPECT_TRUE(Says(run(path("old")).output, "h=3")) << dialect;
  }
}

// The flags a build adds for the simulator, beyond the caller's own
// (optimization, standard, warnings, include folders, sanitizers).
std::set<std::string> recipe_flags(const std::string& command) {
  std::istringstream in(command);
  std::vector<std::string> words{std::istream_iterator<std::string>(in), {}};
  std::set<std::string> flags;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "-mllvm" && i + 1 < words.size()) {
      flags.insert(w + " " + words[++i]);
      continue;
    }
    if (w == "-iquote" || w == "-o" || w == "-c" || w == "-x") {
      ++i;
      continue;
    }
    // The precompiled cuda_runtime.h (each builder makes its own: CMake's
    // reuse through -Xclang -include-pch and -include, cudalab-cc's
    // -include-pch) saves time and changes no flag of the recipe.
    if (w == "-include-pch" || w == "-include") {
      ++i;
      continue;
    }
    if (w == "-Xclang" && i + 1 < words.size() &&
        (words[i + 1] == "-include-pch" || words[i + 1] == "-include")) {
      i += 3;  // -Xclang -include-pch -Xclang FILE
      continue;
    }
    const bool callers = w.rfind("-O", 0) == 0 || w.rfind("-std=", 0) == 0 ||
                         w.rfind("-W", 0) == 0 || w.rfind("-I", 0) == 0 || w == "-g" ||
                         w == "-DNDEBUG" || w.rfind("-", 0) != 0 ||
                         // the sanitize preset's, which simulated code turns off again
                         w.rfind("-fsanitize=", 0) == 0 || w.rfind("-fno-sanitize", 0) == 0 ||
                         w == "-fno-omit-frame-pointer";
    if (callers) continue;
    // A pass plugin by its name: the sanitize and tsan builds link the
    // default build's programs, compiled with that build's (same) plugin.
    const std::string plugin = "-fpass-plugin=";
    if (w.rfind(plugin, 0) == 0) {
      flags.insert(plugin + w.substr(w.find_last_of('/') + 1));
      continue;
    }
    flags.insert(w);
  }
  return flags;
}

// One recipe: cudalab-cc compiles a .cu, plain and instrumented, with the
// very flags the CMake function gives the same file.
TEST_F(Compiler, CudalabCcAndCMakeCompileWithTheSameRecipe) {
  std::ifstream in(CUDALAB_COMPILE_COMMANDS);
  ASSERT_TRUE(in) << "no compile_commands.json";
  const nlohmann::json db = nlohmann::json::parse(in);
  std::string cmake_plain, cmake_instrumented;
  for (const auto& entry : db) {
    const std::string file = entry.value("file", ""), command = entry.value("command", "");
    if (file.find("/traced_add/traced_add.cu.cpp") == std::string::npos) continue;
    (command.find("trace-pc-guard") != std::string::npos ? cmake_instrumented : cmake_plain) =
        command;
  }
  ASSERT_FALSE(cmake_plain.empty());
  ASSERT_FALSE(cmake_instrumented.empty());
  const Result cc = run(kCC + " -v -c " + kPrograms + "/traced_add.cu -o " + path("t.o"));
  ASSERT_EQ(cc.status, 0) << cc.output;
  // cudalab-cc -v quotes its words: the same words without the quotes.
  auto unquoted = [](std::string s) {
    s.erase(std::remove(s.begin(), s.end(), '\''), s.end());
    return s;
  };
  std::string cc_plain, cc_instrumented;
  std::istringstream lines(unquoted(cc.output));
  for (std::string line; std::getline(lines, line);) {
    if (line.find(" -c ") == std::string::npos) continue;
    (line.find("trace-pc-guard") != std::string::npos ? cc_instrumented : cc_plain) = line;
  }
  ASSERT_FALSE(cc_plain.empty()) << cc.output;
  ASSERT_FALSE(cc_instrumented.empty()) << cc.output;
  EXPECT_EQ(recipe_flags(cc_plain), recipe_flags(cmake_plain));
  EXPECT_EQ(recipe_flags(cc_instrumented), recipe_flags(cmake_instrumented));
  EXPECT_TRUE(recipe_flags(cmake_plain).count("-fno-delete-null-pointer-checks"));
  EXPECT_TRUE(recipe_flags(cmake_instrumented).count("-mllvm -simplifycfg-sink-common=false"));
}

}  // namespace
