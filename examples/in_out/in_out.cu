// Device buffers that copy themselves, as PyCUDA's drv.In, drv.Out and
// drv.InOut: cudalab::In(v) copies a host vector to the device for a kernel
// to read, cudalab::Out(v) brings what a kernel wrote back into v, and
// cudalab::InOut(v) does both (framework/include/cudalab/framework/buffers.h).
// Each is made in the launch's argument list and turns into the pointer
// the kernel takes; the copy back happens at the end of that statement.
//
// It prints the CPU's time for the same work (one core, a plain loop) and
// the kernel's: on the simulator, the time of the CPU's threads running
// it; built with nvcc, the GPU's.
//
// On the simulator:  cudalab-cc -O2 -I framework/include examples/in_out/in_out.cu -o in_out
// For a GPU:         nvcc -O3 -I framework/include examples/in_out/in_out.cu -o in_out
#include <cstdio>
#include <vector>

#include "cudalab/framework/buffers.h"
#include "cudalab/framework/timing.h"

// dest[i] = a[i] * b[i]: two inputs, one output (drv.Out, drv.In, drv.In).
__global__ void multiply(float* dest, const float* a, const float* b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dest[i] = a[i] * b[i];
}

// a[i] = 2 * a[i], in place (drv.InOut).
__global__ void double_them(float* a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= 2.f;
}

int main() {
  const int n = 1 << 18, threads = 128, blocks = (n + threads - 1) / threads;
  std::vector<float> a(n), b(n), dest(n, 0.f);
  for (int i = 0; i < n; ++i) {
    a[i] = float(i % 8) * 0.25f;
    b[i] = float(i % 5) - 2.f;
  }

  multiply<<<blocks, threads>>>(cudalab::Out(dest), cudalab::In(a), cudalab::In(b), n);
  cudalab::check(cudaGetLastError(), "multiply");
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += dest[i] != a[i] * b[i];
  std::printf("multiply: dest = a * b for %d elements; dest[3] = %.2f * %.2f = %.2f\n", n, a[3],
              b[3], dest[3]);

  std::vector<float> doubled = a;
  double_them<<<blocks, threads>>>(cudalab::InOut(doubled), n);
  cudalab::check(cudaGetLastError(), "double_them");
  for (int i = 0; i < n; ++i) wrong += doubled[i] != 2.f * a[i];
  std::printf("double_them: a[3] = %.2f became %.2f, in place\n", a[3], doubled[3]);
  std::printf("%s\n",
              wrong ? "Some results differ from the CPU's." : "All results match the CPU's.");

  // The times of the multiply alone: a plain loop on one core, and the
  // kernel on buffers that stay on the device (a named buffer lives, and
  // copies back, until its scope ends).
  const double cpu_ms = cudalab::host_ms(
      [&] {
        for (int i = 0; i < n; ++i) dest[i] = a[i] * b[i];
      },
      5);
  float kernel_ms = 0;
  {
    const cudalab::In d_a(a), d_b(b);
    cudalab::Out d_dest(dest);
    kernel_ms = cudalab::average_ms([&] { multiply<<<blocks, threads>>>(d_dest, d_a, d_b, n); }, 5,
                                    "multiply");
  }
  std::printf("time: the CPU's loop %.3f ms; the kernel on %s %.3f ms\n", cpu_ms,
              cudalab::kernels_run_on(), double(kernel_ms));
  return wrong ? 1 : 0;
}

// How CTest runs this example (tests/lit/README.md): on the simulator and,
// where nvcc is found, on a GPU.
// BUILD: SIM_LIBS cudalab_framework GPU_LIBS cudalab_framework_gpu
// TEST: example.in_out
// LABELS: unit
// RUN: %bin
// CHECK: multiply: dest = a * b for 262144 elements; dest[3] = 0.75 * 1.00 = 0.75
// CHECK-NEXT: double_them: a[3] = 0.75 became 1.50, in place
// CHECK-NEXT: All results match the CPU's.
// CHECK-NEXT: time: the CPU's loop {{[0-9.]+}} ms; the kernel on the cudalab simulator (CPU
// threads) {{[0-9.]+}} ms
//
// TEST: gpu.example.in_out
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu
// CHECK: All results match the CPU's.
// CHECK-NEXT: time: the CPU's loop {{[0-9.]+}} ms; the kernel on the GPU {{[0-9.]+}} ms
