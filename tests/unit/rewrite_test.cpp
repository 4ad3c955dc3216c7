// The launch rewriter: what it changes, what it leaves alone, and that line
// numbers survive.
#include "rewriter/rewrite.h"

#include <gtest/gtest.h>

#include <algorithm>

using cudalab::rewriter::rewrite;

namespace {
std::string body(const std::string& src) {
  auto r = rewrite(src, "t.cu");
  EXPECT_TRUE(r.problems.empty()) << r.problems[0].message;
  // Drop the preamble (#include lines, #line).
  auto p = r.text.find('\n', r.text.find("#line"));
  return r.text.substr(p + 1);
}
size_t lines(const std::string& s) { return size_t(std::count(s.begin(), s.end(), '\n')); }
}  // namespace

TEST(Rewrite, PlainLaunch) {
  std::string out = body("k<<<g, b>>>(x, y);\n");
  EXPECT_NE(out.find("make_launcher([=](auto&&... cudalab_args_) { k(cudalab_args_...); }"),
            std::string::npos);
  EXPECT_NE(out.find("LaunchSite{\"k\", __FILE__, __LINE__})(g, b)(x, y);"), std::string::npos)
      << out;
}

TEST(Rewrite, SharedMemoryAndStream) {
  std::string out = body("k<<<g, b, 64 * sizeof(float), s>>>(x);\n");
  EXPECT_NE(out.find("(g, b, 64 * sizeof(float), s)(x);"), std::string::npos) << out;
}

TEST(Rewrite, TemplateAndQualifiedKernels) {
  std::string out = body("ns::k<float, 32><<<1, 32>>>(p);\n");
  EXPECT_NE(out.find("{ ns::k<float, 32>(cudalab_args_...); }"), std::string::npos) << out;
  EXPECT_NE(out.find("\"ns::k<float,32>\""), std::string::npos) << out;
}

TEST(Rewrite, ConfigurationOverSeveralLinesKeepsLineCount) {
  const std::string src = "int a;\nk<<<dim3(1,\n  2),\n  dim3(32)>>>(p,\n q);\nint b;\n";
  std::string out = body(src);
  EXPECT_EQ(lines(out), lines(src)) << out;
  EXPECT_EQ(out.substr(out.rfind("int b;")), "int b;\n");
}

TEST(Rewrite, LeavesCommentsAndStringsAlone) {
  const std::string src =
      "// k<<<1,1>>>()\n/* k<<<1,1>>>() */\nconst char* s = \"k<<<1,1>>>()\";\n"
      "char c = '<'; auto r = R\"(k<<<1,1>>>)\";\n";
  auto r = rewrite(src, "t.cu");
  EXPECT_TRUE(r.problems.empty());
  EXPECT_EQ(r.launches, 0);
  EXPECT_NE(r.text.find(src), std::string::npos);
}

// A launch inside a #define whose template arguments go over several
// continued lines (as HeCBench's bincount writes it): the kernel goes on one
// line, and the lines it took stay continued, so the macro does not end.
TEST(Rewrite, LaunchInAMacroAfterAContinuedLine) {
  // The kernel's template arguments end a line, <<< starts the next
  // (HeCBench's attention-paged).
  std::string out = body("#define RUN(T) \\\n  k<T, 4>    \\\n    <<<1, 32>>>(p)\nint b;\n");
  EXPECT_NE(out.find("{ k<T, 4>(cudalab_args_...); }"), std::string::npos) << out;
}

TEST(Rewrite, LaunchInAMacroKeepsItsContinuations) {
  const std::string src =
      "#define RUN(T) \\\n"
      "  k<          \\\n"
      "    T,        \\\n"
      "    4><<<1, 32>>>(p)\n"
      "int b;\n";
  std::string out = body(src);
  EXPECT_EQ(lines(out), lines(src)) << out;
  const size_t from = out.find("{ k<"), to = out.find("(cudalab_args_...); }");
  ASSERT_LT(from, to) << out;
  const std::string kernel = out.substr(from + 2, to - from - 2);
  EXPECT_EQ(kernel.find_first_of("\\\n"), std::string::npos) << kernel;
  EXPECT_NE(kernel.find("T,"), std::string::npos) << kernel;
  EXPECT_NE(out.find("LaunchSite{\"k<T,4>\", __FILE__, __LINE__})( \\\n \\\n1, 32)(p)\nint b;"),
            std::string::npos)
      << out;
}

// An argument written 0 or NULL becomes a LiteralZero (a null pointer or a
// zero, as the parameter needs); a 0 inside an argument does not.
TEST(Rewrite, ZeroAndNullArgumentsAreMarked) {
  std::string out = body("k<<<1, 2>>>(p, 0, NULL, f(0, 1), x0, 10,\n 0 );\n");
  EXPECT_NE(out.find("(p, ::cudalab::detail::LiteralZero{}, ::cudalab::detail::LiteralZero{}, "
                     "f(0, 1), x0, 10,\n ::cudalab::detail::LiteralZero{} );"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("::cudalab::detail::call_kernel("), std::string::npos) << out;
  EXPECT_EQ(body("k<<<1, 2>>>(p, n);\n").find("call_kernel"), std::string::npos);
  // With a comment beside it, after a continued line, next to a lambda with
  // statements; not between a template's brackets.
  std::string more = body(
      "#define L k<<<1, 2>>>(/*out=*/0, \\\n  NULL, [](int a) { int b = a; return b; }, X<1, "
      "0>::v)\n");
  EXPECT_NE(more.find("(/*out=*/::cudalab::detail::LiteralZero{}, \\\n  "
                      "::cudalab::detail::LiteralZero{}, [](int a)"),
            std::string::npos)
      << more;
  EXPECT_NE(more.find("X<1, 0>::v)"), std::string::npos) << more;
}

// Each non-template kernel is registered for cudaLaunchKernel on the line
// its body ends, unless its parameters hold what one line cannot: default
// arguments, or an #if (HeCBench's pad).
TEST(Rewrite, KernelsAreRegisteredWhereTheirParametersFitOnOneLine) {
  auto plain = rewrite("__global__ void k(int* p,\n  int n) {\n}\nint x;\n", "t.cu");
  EXPECT_EQ(plain.registered_kernels, 1);
  EXPECT_NE(plain.text.find("register_kernel(static_cast<void (*)(int* p,   int n)>(&k), \"k\");\n"
                            "int x;"),
            std::string::npos)
      << plain.text;
  const std::string with_if =
      "__global__ void k(int* p\n#ifdef MORE\n, int n\n#endif\n) {\n}\nint x;\n";
  auto r = rewrite(with_if, "t.cu");
  ASSERT_TRUE(r.problems.empty());
  EXPECT_EQ(r.registered_kernels, 0);
  EXPECT_NE(r.text.find(with_if), std::string::npos) << r.text;
  EXPECT_EQ(rewrite("__global__ void k(int n = 1) {}\n", "t.cu").registered_kernels, 0);
  // Nor one a #define defines: its expansions have names of their own.
  const std::string in_macro =
      "#define K(f) \\\n  __global__ void run_##f(int* p) { \\\n    p[0] = f(1); \\\n  }\nK(abs)\n";
  auto m = rewrite(in_macro, "t.cu");
  EXPECT_EQ(m.registered_kernels, 0);
  EXPECT_NE(m.text.find(in_macro), std::string::npos) << m.text;
  EXPECT_EQ(rewrite("#define K(f) __global__ void run_##f(int* p) { p[0] = f(1); }\n", "t.cu")
                .registered_kernels,
            0);
  // A kernel defined outside its namespace is registered by the name written.
  auto outside = rewrite(
      "namespace Aig { __global__ void k(int* p); }\n"
      "__global__ void Aig :: k(int* p) {\n}\n",
      "t.cu");
  EXPECT_EQ(outside.registered_kernels, 1);
  EXPECT_NE(outside.text.find("(&Aig::k), \"Aig::k\");"), std::string::npos) << outside.text;
  // A #define inside a kernel's body, over continued lines, is no reason.
  EXPECT_EQ(
      rewrite("__global__ void k(int* p) {\n#define AT(i) \\\n  p[i]\n  AT(0) = 1;\n}\n", "t.cu")
          .registered_kernels,
      1);
}

// A launch in a #define of a kernel whose name the macro pastes.
TEST(Rewrite, LaunchOfAPastedKernelName) {
  std::string out = body("#define RUN(f) run_##f<<<1, 1>>>(p)\n");
  EXPECT_NE(out.find("{ run_##f(cudalab_args_...); }"), std::string::npos) << out;
  EXPECT_NE(out.find("(&run_##f)"), std::string::npos) << out;
}

// A UTF-8 byte order mark at the start of a file, which nvcc skips.
TEST(Rewrite, ByteOrderMarkIsDropped) {
  auto r = rewrite("\xEF\xBB\xBFint a;\nk<<<1, 1>>>();\n", "t.cu");
  ASSERT_TRUE(r.problems.empty()) << r.problems[0].message;
  EXPECT_EQ(r.launches, 1);
  EXPECT_EQ(r.text.find("\xEF\xBB\xBF"), std::string::npos);
  EXPECT_NE(r.text.find("\nint a;\n"), std::string::npos) << r.text;
}

// nvcc takes a launch with spaces inside its brackets (as clang-format
// once wrote them); so does the rewriter.
TEST(Rewrite, SpacedLaunchBrackets) {
  std::string out = body("k << < g, b >> > (x, y);\nk<< <1, 2>> >(z);\n");
  EXPECT_NE(out.find("LaunchSite{\"k\", __FILE__, __LINE__})( g, b ) (x, y);"), std::string::npos)
      << out;
  EXPECT_NE(out.find("(1, 2)(z);"), std::string::npos) << out;
  EXPECT_EQ(lines(out), 2u);
}

// `operator<< <T>` gives a template its arguments; a shift by a
// parenthesised template is no launch either.
TEST(Rewrite, OperatorTemplateArgumentsAreNotLaunches) {
  auto r = rewrite(
      "template <class T> struct P;\n"
      "template <class T> std::ostream& operator<< <T>(std::ostream&, const P<T>&);\n"
      "friend std::ostream& operator<< <>(std::ostream&, const P<int>&);\n",
      "t.cu");
  EXPECT_EQ(r.launches, 0);
  EXPECT_TRUE(r.problems.empty()) << r.problems[0].message;
}

TEST(Rewrite, ShiftsAreNotLaunches) {
  auto r = rewrite("int x = a << 3; int y = b >> 2; int z = (c >> 1) >> 1;\n", "t.cu");
  EXPECT_EQ(r.launches, 0);
  EXPECT_TRUE(r.problems.empty());
}

TEST(Rewrite, ExternShared) {
  std::string out = body(
      "  extern __shared__ float s[];\n  extern __shared__ __align__(16) unsigned char raw[];\n");
  EXPECT_NE(out.find("static thread_local float* const s = static_cast<float*>("
                     "::cudalab::detail::dynamic_shared_memory());"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("unsigned char* const raw"), std::string::npos) << out;
  std::string after = body("extern double __shared__ sdata[];\n");
  EXPECT_NE(after.find("static thread_local double* const sdata"), std::string::npos) << after;
  // __shared__ first (HeCBench's hungarian): the whole declaration goes.
  std::string first = body("__shared__ extern data sdata[];\nint x;\n");
  EXPECT_EQ(first.find("static thread_local data* const sdata"), 0u) << first;
  EXPECT_EQ(first.find("__shared__"), std::string::npos) << first;
  // A __shared__ that ends the line before is not this declaration's.
  std::string macro = body("#define SMEM __shared__\nextern __shared__ float s[];\n");
  EXPECT_NE(macro.find("#define SMEM __shared__\nstatic thread_local float* const s"),
            std::string::npos)
      << macro;
}

TEST(Rewrite, ExternSharedRows) {
  // An array of rows (cuda-samples' tensor-core GEMMs): a pointer to rows.
  std::string out = body("  extern __shared__ half shmem[][CHUNK_K * K + SKEW_HALF];\n");
  EXPECT_NE(out.find("static thread_local half (*const shmem)[CHUNK_K * K + SKEW_HALF] = "
                     "static_cast<half (*)[CHUNK_K * K + SKEW_HALF]>("
                     "::cudalab::detail::dynamic_shared_memory());"),
            std::string::npos)
      << out;
  std::string cube = body("extern __shared__ int c[][4][8];\n");
  EXPECT_NE(cube.find("int (*const c)[4][8] = static_cast<int (*)[4][8]>"), std::string::npos)
      << cube;
}

TEST(Rewrite, SharedWithAlignas) {
  // nvcc takes the alignas after __shared__; C++ wants it first.
  std::string out = body(
      "  __shared__ alignas(alignof(float4)) float t[2][64];\n"
      "  __shared__\n  alignas(16) int u[4];\n"
      "  extern __shared__ alignas(16) unsigned char raw[];\n");
  EXPECT_NE(out.find("alignas(alignof(float4)) __shared__ float t[2][64];"), std::string::npos)
      << out;
  EXPECT_NE(out.find("alignas(16) __shared__\n int u[4];"), std::string::npos) << out;
  EXPECT_NE(out.find("static thread_local unsigned char* const raw"), std::string::npos) << out;
  EXPECT_EQ(lines(out), 4u) << "lines keep their numbers: " << out;
}

TEST(Rewrite, AnInPlaceXorButterflyIsWarpSynchronous) {
  // Each thread reads its XOR partner's element as that partner writes it:
  // the sums a GPU's lock-step lanes give (NVIDIA's dxtc), wherever the
  // array lives.
  const char* butterflies[] = {
      "__device__ void sums(float3* s) {\n  int i = threadIdx.x;\n  s[i] += s[i ^ 8];\n}\n",
      "__device__ void f(int* a, int t) {\n\n  a[t] = a[t] + a[4 ^ t];\n}\n",
      "__device__ void g(int* a, int t) {\n\n  a[ t ] |= a[t^1];\n}\n"};
  for (const char* src : butterflies)
    EXPECT_EQ(rewrite(src, "t.cu").warp_synchronous_line, 3) << src;
  // Not a butterfly: another index, a comparison, a separate array, a
  // partner read into a local.
  const char* others[] = {
      "__device__ void f(int* a, int t) { a[t] += a[t + 8]; }\n",
      "__device__ bool f(int* a, int t) { return a[t] == a[t ^ 1]; }\n",
      "__device__ void f(int* a, int* b, int t) { a[t] += b[t ^ 1]; }\n",
      "__device__ void f(int* a, int t) { int v = a[t ^ 1]; __syncwarp(); a[t] += v; }\n",
      "__device__ void f(int* a, int t) { a[t] = t ^ 3; }\n"};
  for (const char* src : others) EXPECT_EQ(rewrite(src, "t.cu").warp_synchronous_line, 0) << src;
}

TEST(Rewrite, StaticSharedInAnExternCKernelIsNotDynamic) {
  auto r = rewrite(
      "extern \"C\" __global__ void k(float* o) { __shared__ float t[64];\n  o[0] = t[0];\n}\n",
      "t.cu");
  EXPECT_TRUE(r.problems.empty());
  EXPECT_EQ(r.dynamic_shared, 0);
  EXPECT_NE(r.text.find("__shared__ float t[64];"), std::string::npos) << r.text;
}

TEST(Rewrite, PreambleNamesTheOriginalFile) {
  auto r = rewrite("int x;\n", "dir/my file.cu");
  EXPECT_EQ(r.text.rfind("#include <cuda_runtime.h>\n#line 1 \"dir/my file.cu\"\n", 0), 0u);
}

TEST(Rewrite, UnclosedLaunchIsAProblemWithItsLine) {
  auto r = rewrite("int a;\n\nk<<<1, 2(x);\n", "t.cu");
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].line, 3);
  EXPECT_NE(r.problems[0].message.find(">>>"), std::string::npos);
  EXPECT_TRUE(r.text.empty());
}

TEST(Rewrite, LaunchWithoutKernelIsAProblem) {
  auto r = rewrite("<<<1, 1>>>(x);\n", "t.cu");
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].line, 1);
}

TEST(Rewrite, ClockCallsBecomeTheRuntimesClock) {
  const std::string src =
      "__global__ void k(long* t) {\n"
      "  t[0] = clock();\n"
      "  t[1] = std::clock() + ::clock() + ::std :: clock ( );\n"
      "  if (t[0]) return clock();\n"
      "}\n"
      "#define NOW clock()\n"
      "long f() { return (long)clock(); }\n";
  auto r = rewrite(src, "t.cu");
  ASSERT_TRUE(r.problems.empty());
  EXPECT_EQ(r.clock_calls, 7);
  const std::string out = body(src);
  EXPECT_EQ(lines(out), lines(src)) << out;
  EXPECT_NE(out.find("  t[0] = ::cudalab::detail::clock();\n"), std::string::npos) << out;
  EXPECT_NE(out.find("  t[1] = ::cudalab::detail::clock() + ::cudalab::detail::clock() + "
                     "::cudalab::detail :: clock ( );\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("return ::cudalab::detail::clock();\n}"), std::string::npos) << out;
  EXPECT_NE(out.find("#define NOW ::cudalab::detail::clock()\n"), std::string::npos) << out;
  EXPECT_NE(out.find("return (long)::cudalab::detail::clock(); }"), std::string::npos) << out;
}

TEST(Rewrite, ClockIsLeftAloneWhereItIsNotACall) {
  // Declarations, the address, members, other scopes, other names, comments
  // and strings keep the C library's clock (or the program's own).
  const std::string src =
      "#include <ctime>\n"
      "clock_t clock();\n"
      "extern \"C\" clock_t clock(void);\n"
      "clock_t (*f)() = &clock;\n"
      "clock_t (*g)() = std::clock;\n"
      "long a = t.clock() + p->clock() + Timer::clock() + ns::std::clock() + T<int>::clock();\n"
      "auto n = clock::now(); long b = my_clock() + clock64() + clock_(); \n"
      "// clock()\n"
      "const char* s = \"clock()\";\n"
      "long c = (clock)();\n";
  auto r = rewrite(src, "t.cu");
  ASSERT_TRUE(r.problems.empty());
  EXPECT_EQ(r.clock_calls, 0);
  EXPECT_NE(r.text.find(src), std::string::npos) << r.text;
}

// Warp-synchronous code (a `volatile` access in a file with shared memory) is
// marked after the last line, for the runtime's lock-step warps; `asm
// volatile`, and `volatile` in a comment or a file without shared memory, are
// not.
TEST(Rewrite, WarpSynchronousCodeIsMarkedAtItsLine) {
  const std::string src =
      "__global__ void k(int* o) {\n"
      "  __shared__ int s[64];\n"
      "  volatile int* v = s;\n"
      "  v[threadIdx.x] += v[threadIdx.x + 1];\n"
      "}\n";
  for (const char* marked :
       {"__global__ void k() { volatile __shared__ float d[4]; d[0] = 1; }\n",
        "__global__ void k() { __shared__ volatile float d[4]; d[0] = 1; }\n",
        "__device__ void f(volatile unsigned int *s) { s[0] += s[1]; }\n__shared__ int x[2];\n",
        "__global__ void k() { __shared__ int s[2]; ((volatile int&)s[0]) = 1; }\n"})
    EXPECT_EQ(rewrite(marked, "t.cu").warp_synchronous_line, 1) << marked;
  auto r = rewrite(src, "dir/red.cu");
  EXPECT_EQ(r.warp_synchronous_line, 3);
  EXPECT_NE(r.text.find("cudalab_warp_synchronous_source = \"red.cu:3\";"), std::string::npos)
      << r.text;
  // The preamble's two lines, the source, a newline, then the mark.
  EXPECT_EQ(lines(r.text.substr(0, r.text.find("#ifndef CUDALAB_WARP"))), lines(src) + 3)
      << "after the last line: the lines keep their numbers";
  for (const char* unmarked :
       {"__global__ void k() { __shared__ int s[2]; asm volatile(\"\" ::: \"memory\"); }\n",
        "// volatile is not enough\n__global__ void k() { __shared__ int s[2]; s[0] = 1; }\n",
        "__global__ void k(volatile int* flag) { while (!*flag) {} }\n",
        "__global__ void k() { __shared__ int s[2]; volatile double x = s[0]; }\n",
        "__global__ void k() { __shared__ int s[2]; int* volatile p = s; }\n",
        // Volatile accesses with barriers between them (NVIDIA's scan), and a
        // function that only passes the pointer on.
        "__device__ int f(volatile int* s, cg::thread_block b) {\n"
        "  for (int o = 1; o < 32; o *= 2) { b.sync(); int t = s[o]; cg::sync(b); s[0] = t; }\n"
        "  return s[0]; }\n__shared__ int x[2];\n",
        "__device__ void g(volatile int* s) { __syncthreads(); s[0] = 1; }\n__shared__ int x[2];\n",
        "__device__ int h(volatile int* s) { return f(s, 1); }\n__shared__ int x[2];\n"}) {
    auto u = rewrite(unmarked, "t.cu");
    EXPECT_EQ(u.warp_synchronous_line, 0) << unmarked;
    EXPECT_EQ(u.text.find("cudalab_warp_synchronous_source"), std::string::npos) << unmarked;
  }
}

// ---- inline PTX -------------------------------------------------------------------------

TEST(Rewrite, InlinePtxBecomesCppOnItsOwnLines) {
  const std::string src =
      "__device__ unsigned lane() {\n"
      "  unsigned l;\n"
      "  asm volatile(\"mov.u32 %0, %%laneid;\"\n"
      "               : \"=r\"(l));\n"
      "  return l;\n"
      "}\n";
  auto r = rewrite(src, "t.cu");
  ASSERT_TRUE(r.problems.empty()) << r.problems[0].message;
  EXPECT_EQ(r.inline_ptx, 1);
  EXPECT_NE(r.text.find("#include <cudalab/detail/ptx.h>\n#line 1"), std::string::npos);
  const std::string out = r.text.substr(r.text.find("#line"));
  EXPECT_EQ(lines(out), lines(src) + 1) << out;
  EXPECT_NE(out.find("::cudalab::ptx::laneid()"), std::string::npos) << out;
  EXPECT_EQ(out.find("asm"), std::string::npos) << out;
  // The statement's second line stays a line of its own; `return` keeps line 5.
  size_t at = 0;
  for (int k = 0; k < 5; ++k) at = out.find('\n', at) + 1;
  EXPECT_EQ(out.compare(at, 10, "  return l"), 0) << out;
}

TEST(Rewrite, InlinePtxInAMacroKeepsItsContinuations) {
  const std::string src =
      "#define LANE(x) asm(\"mov.u32 %0, %%laneid;\" \\\n"
      "                    : \"=r\"(x))\n"
      "int y;\n";
  auto r = rewrite(src, "t.cu");
  ASSERT_TRUE(r.problems.empty()) << r.problems[0].message;
  EXPECT_NE(r.text.find("while (0) \\\n"), std::string::npos) << r.text;
}

TEST(Rewrite, AsmThatIsNotPtxIsLeftAlone) {
  for (const char* host :
       {"unsigned long long t() { unsigned lo, hi; asm volatile(\"rdtsc\" : \"=a\"(lo), "
        "\"=d\"(hi)); return lo; }\n",
        "void f() { asm volatile(\"\" ::: \"memory\"); }\n",
        "void f() { __asm__ __volatile__(\"pause\"); }\n", "void f() { asm(\"nop\"); }\n"}) {
    auto r = rewrite(host, "t.cu");
    EXPECT_TRUE(r.problems.empty()) << host;
    EXPECT_EQ(r.inline_ptx, 0) << host;
    EXPECT_NE(r.text.find(host), std::string::npos) << r.text;
  }
}

TEST(Rewrite, InlinePtxTheSimulatorDoesNotRunIsACompileErrorNamingIt) {
  const struct {
    const char* source;
    const char* says;
  } cases[] = {
      {"__device__ void f(unsigned s, const void* g) {\n\n"
       "  asm volatile(\"cp.async.ca.shared.global [%0], [%1], 16;\" :: \"r\"(s), \"l\"(g));\n}\n",
       "cp.async"},
      {"__device__ void f(int x) {\n\n  asm(\"@p bra DONE;\" :: \"r\"(x));\n}\n", "bra"},
      {"__device__ void f(int x) {\n\n  asm(\"mov.u32 %0, 1;\" :: \"r\"(x));\n}\n",
       "input operand"},
      {"__device__ void f(int x) {\n\n  asm(\"mov.u32 %0, %3;\" : \"=r\"(x));\n}\n",
       "%3 names no operand"},
      {"__device__ void f(unsigned short h) {\n\n  asm(\"neg.f16 %0, %0;\" : \"+h\"(h));\n}\n",
       ".f16"},
      {"__device__ void f(unsigned a, unsigned b, unsigned c) {\n\n"
       "  asm(\"selp.b32 %0, %1, %2, %0;\" : \"+r\"(a) : \"r\"(b), \"r\"(c));\n}\n",
       "predicate"},
      {"__device__ void f(unsigned a) {\n\n  asm(\"mov.u32 %0, %%nosuchreg;\" : \"=r\"(a));\n}\n",
       "%nosuchreg"},
  };
  for (const auto& c : cases) {
    auto r = rewrite(c.source, "t.cu");
    ASSERT_TRUE(r.problems.empty()) << c.source;
    // A static_assert on the statement's own line (3), which fails only if
    // the preprocessor keeps it.
    const std::string out = r.text.substr(r.text.find("#line"));
    size_t at = 0;
    for (int k = 0; k < 3; ++k) at = out.find('\n', at) + 1;
    const std::string third = out.substr(at, out.find('\n', at) - at);
    EXPECT_NE(third.find("static_assert(false, \"inline PTX: "), std::string::npos) << out;
    EXPECT_NE(third.find(c.says), std::string::npos) << third;
    EXPECT_EQ(lines(out), lines(c.source) + 1);
  }
}

// The line of `out` (after its first #line) numbered `n`.
static std::string line_of(const std::string& text, int n) {
  const std::string out = text.substr(text.find("#line"));
  size_t at = 0;
  for (int k = 0; k < n; ++k) at = out.find('\n', at) + 1;
  return out.substr(at, out.find('\n', at) - at);
}

TEST(Rewrite, LibraryInlinePtxTheSimulatorDoesNotRunStopsTheThreadThatReachesIt) {
  const std::string src =
      "__device__ void f(int n) {\n\n  asm volatile(\"bar.sync 1, %0;\" :: \"r\"(n));\n}\n";
  auto r = rewrite(src, "/usr/include/cub/util_ptx.cuh", /*library=*/true);
  ASSERT_TRUE(r.problems.empty());
  EXPECT_EQ(r.text.find("static_assert"), std::string::npos) << r.text;
  EXPECT_NE(line_of(r.text, 3).find("::cudalab::ptx::not_run(\"`bar.sync 1, %0`"),
            std::string::npos)
      << r.text;
  // In a program's own source the same is a compile error at its line.
  auto own = rewrite(src, "t.cu");
  EXPECT_NE(line_of(own.text, 3).find("static_assert(false"), std::string::npos) << own.text;
}

TEST(Rewrite, LibraryInputMacroIsAConstraintAndItsValue) {
  // CUB's `_CUB_ASM_PTR_(ptr)` stands for "l"(ptr).
  const std::string src =
      "#define PTR_(p) \"l\"(p)\n"
      "__device__ unsigned f(const unsigned* p) {\n"
      "  unsigned v;\n"
      "  asm volatile(\"ld.global.cg.u32 %0, [%1];\" : \"=r\"(v) : PTR_(p));\n"
      "  return v;\n}\n";
  auto lib = rewrite(src, "/usr/include/cub/thread/thread_load.cuh", true);
  EXPECT_EQ(lib.inline_ptx, 1) << lib.text;
  // A library's loads and stores are relaxed atomics (no race in the checks).
  EXPECT_NE(line_of(lib.text, 4).find("::cudalab::ptx::atomic_load("), std::string::npos)
      << lib.text;
  auto own = rewrite(src, "t.cu");
  EXPECT_EQ(own.inline_ptx, 0);
  EXPECT_NE(line_of(own.text, 4).find("an operand list the simulator cannot read"),
            std::string::npos)
      << own.text;
}

TEST(Rewrite, InlinePtxFromAMacroParameterTakesItAsALoadOrStoreModifier) {
  const std::string src =
      "#define LOAD(mod, v, p) asm volatile(\"ld.\" #mod \".u32 %0, [%1];\" : \"=r\"(v) : "
      "\"l\"(p))\n"
      "#define ADD(type, v) asm(\"add.\" #type \" %0, %0, 1;\" : \"+r\"(v))\n"
      "int y;\n";
  auto r = rewrite(src, "t.cu");
  ASSERT_TRUE(r.problems.empty());
  EXPECT_EQ(r.inline_ptx, 1) << r.text;
  EXPECT_NE(line_of(r.text, 1).find("cudalab_ptx_a[0]"), std::string::npos) << r.text;
  // It might name .acquire or .release: fences on both sides.
  EXPECT_NE(line_of(r.text, 1).find("__threadfence(); "), std::string::npos) << r.text;
  EXPECT_NE(line_of(r.text, 2).find("built from the macro parameter `type`"), std::string::npos)
      << r.text;
}

TEST(Rewrite, InlinePtxWithPreprocessorBranchesTranslatesEachBranch) {
  const std::string src =
      "__device__ unsigned f(unsigned x) {\n"
      "  unsigned v;\n"
      "  asm(\"{ .reg .pred p; setp.ne.u32 p, %1, 0;\"\n"
      "#ifdef WIDE\n"
      "      \"selp.u32 %0, 1, 2, p;\"\n"
      "#else\n"
      "      \"selp.u32 %0, 3, 4, p;\"\n"
      "#endif\n"
      "      \"}\" : \"=r\"(v) : \"r\"(x));\n"
      "  return v;\n"
      "}\n";
  auto r = rewrite(src, "t.cu");
  ASSERT_TRUE(r.problems.empty());
  EXPECT_EQ(r.inline_ptx, 1);
  const std::string& out = r.text;
  const size_t wide = out.find("#ifdef WIDE\n"), other = out.find("#else\n"),
               end = out.find("#endif\n#line 9\n");
  ASSERT_NE(wide, std::string::npos) << out;
  ASSERT_NE(other, std::string::npos) << out;
  ASSERT_NE(end, std::string::npos) << out;
  EXPECT_NE(out.substr(wide, other - wide).find("#line 3\ndo {"), std::string::npos) << out;
  EXPECT_NE(out.substr(wide, other - wide).find("1u"), std::string::npos) << out;
  EXPECT_NE(out.substr(other, end - other).find("3u"), std::string::npos) << out;
  EXPECT_EQ(out.find("asm("), std::string::npos) << out;
  // What follows the statement keeps its line: `return v;` is line 10.
  EXPECT_NE(out.find("#line 9\n;\n  return v;"), std::string::npos) << out;
}

TEST(Rewrite, InlinePtxExitEndsTheThread) {
  auto r = rewrite("__device__ void f() {\n  asm volatile(\"exit;\");\n}\n", "t.cu");
  EXPECT_EQ(r.inline_ptx, 1);
  EXPECT_NE(line_of(r.text, 2).find("cudalab_exit_thread();"), std::string::npos) << r.text;
}

TEST(Rewrite, LaunchThroughASubscriptOrAMember) {
  for (const char* launch :
       {"table[i % 2]<<<1, 32>>>(p);", "ops.fill<<<1, 32>>>(p);", "ops->kernels[1]<<<1, 32>>>(p);",
        "ns::table[0] <<<1, 32>>>(p);", "(pick(2))<<<1, 32>>>(p);"}) {
    auto r = rewrite(std::string("void f() {\n  ") + launch + "\n}\n", "t.cu");
    ASSERT_TRUE(r.problems.empty()) << launch << ": " << r.problems[0].message;
    EXPECT_EQ(r.launches, 1) << launch;
    // Evaluated once on the host; the threads call the launch's copy.
    const std::string kernel(launch, std::string(launch).find("<<<"));
    std::string name = kernel;
    while (!name.empty() && name.back() == ' ') name.pop_back();
    EXPECT_NE(r.text.find("make_launcher([cudalab_kernel_ = (" + name +
                          ")](auto&&... cudalab_args_) { cudalab_kernel_(cudalab_args_...); }"),
              std::string::npos)
        << launch << "\n"
        << r.text;
  }
}

TEST(Rewrite, AKernelNamedIsCalledByItsName) {
  for (const char* launch :
       {"k<<<1, 32>>>(p);", "ns::k<float, 4><<<1, 32>>>(p);", "k<decltype(a.b)><<<1, 32>>>(p);"}) {
    auto r = rewrite(std::string("void f() {\n  ") + launch + "\n}\n", "t.cu");
    ASSERT_TRUE(r.problems.empty()) << launch;
    const std::string name(launch, std::string(launch).find("<<<"));
    EXPECT_NE(r.text.find("make_launcher([=](auto&&... cudalab_args_) { " + name +
                          "(cudalab_args_...); }"),
              std::string::npos)
        << launch << "\n"
        << r.text;
  }
}

// nvcc's Thrust brings more of Thrust with each header than the simulator's
// (thrust/sort.h declares thrust::sequence and thrust::device there): a file
// that includes Thrust gets the rest after its last Thrust include, and its
// lines keep their numbers.
TEST(Rewrite, ThrustHeadersComeWithWhatNvccsBringAlong) {
  const std::string src =
      "#include <vector>\n#include <thrust/sort.h>\n#include <thrust/count.h>\n"
      "void f(int* p) { thrust::sequence(thrust::device, p, p + 4); }\n";
  auto r = rewrite(src, "t.cu");
  ASSERT_TRUE(r.problems.empty());
  const size_t count = r.text.find("#include <thrust/count.h>\n");
  const size_t policy = r.text.find("#include <thrust/execution_policy.h>\n");
  const size_t sequence = r.text.find("#include <thrust/sequence.h>\n");
  ASSERT_NE(count, std::string::npos) << r.text;
  EXPECT_GT(policy, count) << r.text;
  EXPECT_NE(sequence, std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("#include <thrust/sort.h>", count), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("#line 4 \"t.cu\"\nvoid f("), std::string::npos) << r.text;
  // CUB's headers bring Thrust's iterators under nvcc (HeCBench's rle).
  auto cub = rewrite("#include <cub/cub.cuh>\nthrust::constant_iterator<int> one(1);\n", "t.cu");
  EXPECT_NE(cub.text.find("#include <cub/cub.cuh>\n#include <thrust/iterator/constant_iterator.h>"),
            std::string::npos)
      << cub.text;
  EXPECT_NE(cub.text.find(".h>\n#line 2 \"t.cu\"\nthrust::"), std::string::npos) << cub.text;
  // A file that names nothing of Thrust's gets nothing.
  const std::string none = "#include <thrust/sort.h>\nint x;\n";
  EXPECT_EQ(rewrite(none, "t.cu").text.find("sequence.h"), std::string::npos);
}
