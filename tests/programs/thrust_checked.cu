// A course-style Thrust program: kernels work on a device_vector's memory,
// on cudaMalloc'd memory seen through device_ptr and on device_malloc'd
// memory that Thrust filled, between Thrust's algorithms. Under
// CUDALAB_CHECK=all it must give no finding, and it prints what an H100
// prints (tests/CMakeLists.txt holds the expected text).
#include <thrust/device_free.h>
#include <thrust/device_malloc.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/extrema.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <cstdio>

struct Mod7 {
  __host__ __device__ int operator()(int x) const { return (x * 37) % 7; }
};

__global__ void scale(int* a, int n, int by) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= by;
}

__global__ void gather(const int* from, const int* index, int* to, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) to[i] = from[index[i]];
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device\n");
    return 77;
  }
  const int n = 1000;
  thrust::device_vector<int> keys(n), values(n);
  thrust::transform(thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n),
                    keys.begin(), Mod7());
  thrust::sequence(values.begin(), values.end());
  scale<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(values.data()), n, 3);
  thrust::stable_sort_by_key(keys.begin(), keys.end(), values.begin());
  thrust::device_vector<int> sums(7), heads(7);
  thrust::reduce_by_key(keys.begin(), keys.end(), values.begin(), heads.begin(), sums.begin());
  thrust::host_vector<int> h = sums;
  std::printf("sums");
  for (int i = 0; i < 7; ++i) std::printf(" %d", h[i]);
  std::printf("\n");

  int* raw = nullptr;
  cudaMalloc(&raw, n * sizeof(int));
  thrust::device_ptr<int> p = thrust::device_pointer_cast(raw);
  thrust::exclusive_scan(values.begin(), values.end(), p);
  thrust::device_ptr<int> index = thrust::device_malloc<int>(n);
  thrust::sequence(index, index + n, n - 1, -1);
  thrust::device_vector<int> out(n);
  gather<<<(n + 127) / 128, 128>>>(raw, thrust::raw_pointer_cast(index),
                                   thrust::raw_pointer_cast(out.data()), n);
  auto mm = thrust::minmax_element(out.begin(), out.end());
  std::printf("scan last %d max %d at %d min %d at %d\n", static_cast<int>(p[n - 1]),
              static_cast<int>(*mm.second), static_cast<int>(mm.second - out.begin()),
              static_cast<int>(*mm.first), static_cast<int>(mm.first - out.begin()));
  thrust::device_free(index);
  cudaFree(raw);
  std::printf("%s\n", cudaGetErrorName(cudaGetLastError()));
  return 0;
}

// The tests of this program (tests/lit/README.md): what an H100 prints, and
// no finding under every check.
// REQUIRES: thrust
// BUILD:
// TEST: unit.thrust_checked_as_cuda
// LABELS: unit
// RUN: %bin
// CHECK: {{^}}sums 213213 214929 213642 215358 214071 212787 214500
// CHECK-NEXT: {{^}}scan last 1495509 max 1495509 at 0 min 0 at 998
// CHECK-NEXT: {{^}}cudaSuccess
//
// TEST: unit.thrust_checked_no_finding
// LABELS: unit
// RUN: CUDALAB_CHECK=all %bin
// CHECK: ERROR SUMMARY: 0 errors
//
// TEST: gpu.thrust_checked_as_cuda
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu
// CHECK: {{^}}sums 213213 214929 213642 215358 214071 212787 214500
// CHECK-NEXT: {{^}}scan last 1495509 max 1495509 at 0 min 0 at 998
// CHECK-NEXT: {{^}}cudaSuccess
