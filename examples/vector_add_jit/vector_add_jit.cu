// A vector add as a first @cuda.jit kernel is written in Numba's tutorials,
// in CUDA C++: a kernel, its thread's global index (Numba's cuda.grid(1)),
// a bounds check, and a launch of enough blocks to cover the array. The
// arrays go to the device and back by themselves (cudalab::In and
// cudalab::Out, PyCUDA's drv.In and drv.Out).
//
// It prints the CPU's time for the same work (one core, a plain loop) and
// the kernel's: on the simulator, the time of the CPU's threads running
// it; built with nvcc, the GPU's.
//
// On the simulator:  cudalab-cc -O2 -I framework/include examples/vector_add_jit/vector_add_jit.cu
// -o vector_add_jit For a GPU:         nvcc -O3 -I framework/include
// examples/vector_add_jit/vector_add_jit.cu -o vector_add_jit
#include <cstdio>
#include <vector>

#include "cudalab/framework/buffers.h"
#include "cudalab/framework/timing.h"

__global__ void add(const float* a, const float* b, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // cuda.grid(1)
  if (i < n) out[i] = a[i] + b[i];                      // the last block may run past n
}

int main() {
  const int n = 1 << 20, threads = 256, blocks = (n + threads - 1) / threads;
  std::vector<float> a(n), b(n), out(n, 0.f), want(n);
  for (int i = 0; i < n; ++i) {
    a[i] = float(i % 1000) * 0.5f;
    b[i] = float(i % 7);
  }

  // The launch: the buffers are copied in before, and out is copied back at
  // the end of this statement.
  add<<<blocks, threads>>>(cudalab::In(a), cudalab::In(b), cudalab::Out(out), n);
  cudalab::check(cudaGetLastError(), "the launch");

  const double cpu_ms = cudalab::host_ms(
      [&] {
        for (int i = 0; i < n; ++i) want[i] = a[i] + b[i];
      },
      5);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += out[i] != want[i];
  std::printf("Added %d pairs in %d blocks of %d threads: out[1000] = %.1f + %.1f = %.1f\n", n,
              blocks, threads, a[1000], b[1000], out[1000]);
  std::printf("%s\n", wrong ? "Some sums differ from the CPU's." : "All sums match the CPU's.");

  // The kernel alone, on buffers already on the device (the copies apart).
  float *d_a, *d_b, *d_out;
  cudalab::check(cudaMalloc(&d_a, n * sizeof(float)), "cudaMalloc");
  cudalab::check(cudaMalloc(&d_b, n * sizeof(float)), "cudaMalloc");
  cudalab::check(cudaMalloc(&d_out, n * sizeof(float)), "cudaMalloc");
  const float kernel_ms =
      cudalab::average_ms([&] { add<<<blocks, threads>>>(d_a, d_b, d_out, n); }, 5, "add");
  std::printf("time: the CPU's loop %.3f ms; the kernel on %s %.3f ms\n", cpu_ms,
              cudalab::kernels_run_on(), double(kernel_ms));
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_out);
  return wrong ? 1 : 0;
}

// How CTest runs this example (tests/lit/README.md): on the simulator and,
// where nvcc is found, on a GPU.
// BUILD: SIM_LIBS cudalab_framework GPU_LIBS cudalab_framework_gpu
// TEST: example.vector_add_jit
// LABELS: unit
// RUN: %bin
// CHECK: Added 1048576 pairs in 4096 blocks of 256 threads: out[1000] = 0.0 + 6.0 = 6.0
// CHECK-NEXT: All sums match the CPU's.
// CHECK-NEXT: time: the CPU's loop {{[0-9.]+}} ms; the kernel on the cudalab simulator (CPU
// threads) {{[0-9.]+}} ms
//
// TEST: gpu.example.vector_add_jit
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu
// CHECK: All sums match the CPU's.
// CHECK-NEXT: time: the CPU's loop {{[0-9.]+}} ms; the kernel on the GPU {{[0-9.]+}} ms
