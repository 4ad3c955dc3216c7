// An elementwise function made into a kernel, as Numba's @vectorize makes a
// ufunc: write the function for one element, and apply it to every element
// of arrays on the device. In CUDA C++, Thrust's transform does the launch:
// the function is a __host__ __device__ functor, called by one GPU thread
// per element (and by the CPU for the reference).
//
// It prints the CPU's time for the same work (one core, a plain loop) and
// the kernel's: on the simulator, the time of the CPU's threads running
// it; built with nvcc, the GPU's.
//
// On the simulator:  cudalab-cc -O2 -I framework/include examples/vectorize/vectorize.cu -o
// vectorize For a GPU:         nvcc -O3 -I framework/include examples/vectorize/vectorize.cu -o
// vectorize
#include <thrust/device_vector.h>
#include <thrust/transform.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "cudalab/framework/timing.h"

// The function for one element: the relative difference of x and y, as in
// Numba's @vectorize(['float32(float32, float32)'], target='cuda') example.
struct RelativeDifference {
  __host__ __device__ float operator()(float x, float y) const {
    return fabsf(x - y) / fmaxf(fabsf(x), fabsf(y));
  }
};

int main() {
  const int n = 1 << 20;
  std::vector<float> x(n), y(n), want(n), got(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 1.f + float(i % 100);
    y[i] = 2.f + float(i % 37);
  }
  // The arrays on the device (copied by the device_vector's constructor).
  thrust::device_vector<float> d_x(x.begin(), x.end()), d_y(y.begin(), y.end()), d_out(n);

  // The kernel: one call of the function per element.
  auto apply = [&] {
    thrust::transform(d_x.begin(), d_x.end(), d_y.begin(), d_out.begin(), RelativeDifference{});
  };
  apply();
  thrust::copy(d_out.begin(), d_out.end(), got.begin());

  const RelativeDifference f;
  const double cpu_ms = cudalab::host_ms(
      [&] {
        for (int i = 0; i < n; ++i) want[i] = f(x[i], y[i]);
      },
      5);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += std::fabs(got[i] - want[i]) > 1e-6f * std::fabs(want[i]);
  std::printf("Applied RelativeDifference to %d pairs: f(%.0f, %.0f) = %.4f\n", n, x[3], y[3],
              got[3]);
  std::printf("%s\n",
              wrong ? "Some results differ from the CPU's." : "All results match the CPU's.");
  const float kernel_ms = cudalab::average_ms(apply, 5, "thrust::transform");
  std::printf("time: the CPU's loop %.3f ms; the kernel on %s %.3f ms\n", cpu_ms,
              cudalab::kernels_run_on(), double(kernel_ms));
  return wrong ? 1 : 0;
}

// How CTest runs this example (tests/lit/README.md): on the simulator and,
// where nvcc is found, on a GPU.
// BUILD: SIM_LIBS cudalab_framework GPU_LIBS cudalab_framework_gpu
// REQUIRES: thrust
// TEST: example.vectorize
// LABELS: unit
// RUN: %bin
// CHECK: Applied RelativeDifference to 1048576 pairs: f(4, 5) = 0.2000
// CHECK-NEXT: All results match the CPU's.
// CHECK-NEXT: time: the CPU's loop {{[0-9.]+}} ms; the kernel on the cudalab simulator (CPU
// threads) {{[0-9.]+}} ms
//
// TEST: gpu.example.vectorize
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu
// CHECK: All results match the CPU's.
// CHECK-NEXT: time: the CPU's loop {{[0-9.]+}} ms; the kernel on the GPU {{[0-9.]+}} ms
