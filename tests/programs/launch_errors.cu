// Launch and API errors, with the codes CUDA 13.0 returns on an H200
// (driver 580).
// Built for the simulator (a unit test) and by nvcc (a GPU test): both must
// print "all as CUDA", which is how the simulator's codes are kept true.
#include <cstdio>

__global__ void noop() {}
__global__ void fault(int* p) { p[threadIdx.x] = 1; }

static int mismatches = 0;

static void expect(const char* what, cudaError_t got, cudaError_t want) {
  const bool ok = got == want;
  mismatches += !ok;
  std::printf("%-44s %-32s %s\n", what, cudaGetErrorName(got), ok ? "ok" : "MISMATCH");
  if (!ok) std::printf("%-44s expected %s\n", "", cudaGetErrorName(want));
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: nothing to compare\n");
    return 77;
  }
  noop<<<1, 2048>>>();
  expect("2048 threads per block", cudaGetLastError(), cudaErrorInvalidValue);
  noop<<<1, dim3(32, 1, 65)>>>();
  expect("block z = 65", cudaGetLastError(), cudaErrorInvalidValue);
  noop<<<0, 32>>>();
  expect("grid with a zero dimension", cudaGetLastError(), cudaErrorInvalidValue);
  noop<<<1, dim3(0, 1, 1)>>>();
  expect("block with a zero dimension", cudaGetLastError(), cudaErrorInvalidValue);
  noop<<<dim3(1, 70000), 32>>>();
  expect("grid y = 70000", cudaGetLastError(), cudaErrorInvalidValue);
  noop<<<1, 32, 64 * 1024>>>();
  expect("64 KiB dynamic shared memory", cudaGetLastError(), cudaErrorInvalidValue);
  noop<<<1, 1024>>>();
  expect("1024 threads per block", cudaGetLastError(), cudaSuccess);
  expect("cudaDeviceSynchronize after good launch", cudaDeviceSynchronize(), cudaSuccess);

  int* p = nullptr;
  expect("cudaMalloc", cudaMalloc(&p, 400), cudaSuccess);
  int host[200];
  expect("cudaMemcpy past the end of an allocation",
         cudaMemcpy(host, p, 800, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  expect("cudaMemcpy with kind 7", cudaMemcpy(host, p, 4, static_cast<cudaMemcpyKind>(7)),
         cudaErrorInvalidMemcpyDirection);
  expect("cudaFree of a host pointer", cudaFree(host), cudaErrorInvalidValue);
  expect("cudaFree", cudaFree(p), cudaSuccess);
  cudaGetLastError();
  expect("cudaSetDevice(64)", cudaSetDevice(64), cudaErrorInvalidDevice);
  cudaGetLastError();

  int* volatile null_pointer = nullptr;
  fault<<<1, 32>>>(null_pointer);
  expect("sync after a null-pointer write", cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  expect("cudaMalloc after the fault (sticky)", cudaMalloc(&p, 4), cudaErrorIllegalAddress);
  expect("cudaGetLastError after the fault", cudaGetLastError(), cudaErrorIllegalAddress);
  expect("cudaGetLastError again (read once)", cudaGetLastError(), cudaSuccess);
  expect("cudaMemset still fails (sticky)", cudaMemset(p, 0, 4), cudaErrorIllegalAddress);
  std::printf("%s\n", mismatches ? "some differ from CUDA" : "all as CUDA");
  return mismatches ? 1 : 0;
}

// The tests of this program (tests/lit/README.md): the simulator's build
// and nvcc's must both print "all as CUDA".
// BUILD:
// TEST: unit.launch_errors_as_cuda
// LABELS: unit
// RUN: %bin
// CHECK: {{^}}all as CUDA
//
// TEST: gpu.launch_errors_as_cuda
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu
// CHECK: {{^}}all as CUDA
