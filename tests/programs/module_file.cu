// Loads a module file built by `cudalab-cc -fatbin` (argv[1]) with
// cuModuleLoad, as NVIDIA's driver-API samples load theirs, and launches
// its kernel. Under CUDALAB_CHECK=all the instrumented build in the file
// runs, and initcheck reports the read of an element never written at
// module_file_kernel.cu:7.
#include <cuda.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  CUmodule module;
  CUfunction scale;
  if (cuModuleLoad(&module, argv[1]) != CUDA_SUCCESS ||
      cuModuleGetFunction(&scale, module, "scale") != CUDA_SUCCESS) {
    std::printf("cannot load %s\n", argv[1]);
    return 1;
  }
  const int n = 256;
  std::vector<float> host(n, 2.0f);
  CUdeviceptr x;
  cuMemAlloc(&x, (n + 64) * sizeof(float));  // room for the extra element
  cuMemcpyHtoD(x, host.data(), n * sizeof(float));
  float s = 1.5f;
  int count = n;
  void* args[] = {&x, &s, &count};
  cuLaunchKernel(scale, 1, 1, 1, 320, 1, 1, 0, nullptr, args, nullptr);
  cuCtxSynchronize();
  cuMemcpyDtoH(host.data(), x, n * sizeof(float));
  int right = 0;
  for (float v : host) right += v == 3.0f;
  std::printf("scaled %d of %d elements\n", right, n);
  return right == n ? 0 : 1;
}

// The tests of this program (tests/lit/README.md); %fatbin is the module
// file tests/CMakeLists.txt has cudalab-cc build from module_file_kernel.cu.
// BUILD: RUNTIME_COMPILE NO_GPU
// TEST: unit.module_file_from_cudalab_cc
// LABELS: unit
// RUN: %bin %fatbin
// CHECK: scaled 256 of 256 elements
//
// The read of an element never written is found (and the program fails).
// TEST: unit.module_file_checked
// LABELS: unit
// RUN: CUDALAB_CHECK=all %bin %fatbin
// EXIT: 1
// CHECK: Uninitialized __global__ memory read
// CHECK-NEXT: at scale in {{.*}}module_file_kernel.cu:7
