// Thrust on the simulator, used as course programs use it: containers and
// copies, raw pointers handed to kernels, device_ptr over cudaMalloc'd
// memory, the algorithms with functors and lambdas, fancy iterators and
// execution policies, each against a known answer.
#include <gtest/gtest.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_free.h>
#include <thrust/device_malloc.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/tuple.h>
#include <thrust/unique.h>
#include <thrust/universal_vector.h>

#include <string>
#include <vector>

#include "cudalab/sim.h"

namespace {

// Memory in the simulator's allocation table (what cudaMalloc gives), and
// where it was allocated.
bool device_memory(const void* p, std::string* site = nullptr) {
  void* base = nullptr;
  size_t size = 0;
  std::string where, name;
  if (!cudalab::sim::find_allocation(p, &base, &size)) return false;
  cudalab::sim::allocation_source(p, &where, &name);
  if (site) *site = where;
  return true;
}

// Managed memory: a copy that says its source is host memory accepts it.
bool managed_memory(const void* p) {
  char c;
  const bool ok = cudaMemcpy(&c, p, 1, cudaMemcpyHostToHost) == cudaSuccess;
  cudaGetLastError();
  return ok;
}

struct Square {
  __host__ __device__ float operator()(float x) const { return x * x; }
};

struct Saxpy {
  float a;
  __host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};

struct IsOdd {
  __host__ __device__ bool operator()(int x) const { return x % 2 != 0; }
};

struct AddPair {
  __host__ __device__ int operator()(const thrust::tuple<int, int>& t) const {
    return thrust::get<0>(t) + thrust::get<1>(t);
  }
};

__global__ void add_index(int* a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += i;
}

template <typename V>
std::vector<typename V::value_type> on_host(const V& v) {
  thrust::host_vector<typename V::value_type> h = v;
  return std::vector<typename V::value_type>(h.begin(), h.end());
}

TEST(Thrust, VectorsCopyBetweenHostAndDevice) {
  thrust::host_vector<int> h(4);
  for (int i = 0; i < 4; ++i) h[i] = 10 * i;
  thrust::device_vector<int> d = h;
  d[1] = 7;
  EXPECT_EQ(d[1], 7);
  EXPECT_EQ(d.size(), 4u);
  thrust::host_vector<int> back(d.begin(), d.end());
  EXPECT_EQ(std::vector<int>(back.begin(), back.end()), (std::vector<int>{0, 7, 20, 30}));
  std::vector<int> s(4);
  thrust::copy(d.begin(), d.end(), s.begin());
  EXPECT_EQ(s, (std::vector<int>{0, 7, 20, 30}));
  d.resize(6, 5);
  EXPECT_EQ(on_host(d), (std::vector<int>{0, 7, 20, 30, 5, 5}));
}

TEST(Thrust, DeviceVectorIsDeviceMemoryForKernelsAndCopies) {
  thrust::device_vector<int> d(100, 1);
  int* raw = thrust::raw_pointer_cast(d.data());
  std::string site;
  ASSERT_TRUE(device_memory(raw, &site));
  EXPECT_EQ(site, "a Thrust container");
  EXPECT_FALSE(managed_memory(raw));
  add_index<<<4, 32>>>(raw, 100);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h(100);
  ASSERT_EQ(cudaMemcpy(h.data(), raw, 100 * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(h[i], 1 + i);
  EXPECT_EQ(thrust::reduce(d.begin(), d.end()), 100 + 99 * 100 / 2);
}

TEST(Thrust, DevicePtrOverCudaMalloc) {
  int* raw = nullptr;
  ASSERT_EQ(cudaMalloc(&raw, 8 * sizeof(int)), cudaSuccess);
  thrust::device_ptr<int> p = thrust::device_pointer_cast(raw);
  thrust::sequence(p, p + 8, 1);
  EXPECT_EQ(thrust::reduce(p, p + 8), 36);
  thrust::sort(thrust::device, p, p + 8, thrust::greater<int>());
  EXPECT_EQ(p[0], 8);
  EXPECT_EQ(thrust::raw_pointer_cast(p), raw);
  ASSERT_EQ(cudaFree(raw), cudaSuccess);
}

TEST(Thrust, DeviceMallocIsCudaMalloc) {
  thrust::device_ptr<float> p = thrust::device_malloc<float>(16);
  ASSERT_TRUE(device_memory(thrust::raw_pointer_cast(p)));
  EXPECT_FALSE(managed_memory(thrust::raw_pointer_cast(p)));
  thrust::fill(p, p + 16, 2.5f);
  EXPECT_EQ(thrust::reduce(p, p + 16), 40.0f);
  thrust::device_free(p);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_FALSE(device_memory(thrust::raw_pointer_cast(p)));
}

TEST(Thrust, TransformWithFunctorsAndLambdas) {
  thrust::device_vector<float> x(4), y(4, 1.0f), z(4);
  thrust::sequence(x.begin(), x.end());
  thrust::transform(x.begin(), x.end(), y.begin(), z.begin(), Saxpy{2.0f});
  EXPECT_EQ(on_host(z), (std::vector<float>{1, 3, 5, 7}));
  thrust::transform(x.begin(), x.end(), z.begin(), Square());
  EXPECT_EQ(on_host(z), (std::vector<float>{0, 1, 4, 9}));
  thrust::transform(thrust::device, x.begin(), x.end(), z.begin(),
                    [] __host__ __device__(float v) { return v + 0.5f; });
  EXPECT_EQ(on_host(z), (std::vector<float>{0.5f, 1.5f, 2.5f, 3.5f}));
  thrust::negate<float> neg;
  thrust::transform(z.begin(), z.end(), z.begin(), neg);
  EXPECT_EQ(z[3], -3.5f);
}

TEST(Thrust, ReductionsAndTransformReduce) {
  thrust::device_vector<int> d(10);
  thrust::sequence(d.begin(), d.end(), 1);
  EXPECT_EQ(thrust::reduce(d.begin(), d.end()), 55);
  EXPECT_EQ(thrust::reduce(d.begin(), d.end(), 100), 155);
  EXPECT_EQ(thrust::reduce(d.begin(), d.end(), 1, thrust::multiplies<int>()), 3628800);
  EXPECT_EQ(thrust::reduce(d.begin(), d.end(), 0, thrust::maximum<int>()), 10);
  thrust::device_vector<float> f(d.begin(), d.end());
  EXPECT_EQ(thrust::transform_reduce(f.begin(), f.end(), Square(), 0.0f, thrust::plus<float>()),
            385.0f);
  EXPECT_EQ(thrust::inner_product(f.begin(), f.end(), f.begin(), 0.0f), 385.0f);
  EXPECT_EQ(thrust::count(d.begin(), d.end(), 3), 1);
  EXPECT_EQ(thrust::count_if(d.begin(), d.end(), IsOdd()), 5);
}

TEST(Thrust, SortAndSortByKey) {
  const std::vector<int> keys{5, 1, 4, 1, 3, 9, 2};
  thrust::device_vector<int> d(keys.begin(), keys.end());
  thrust::sort(d.begin(), d.end());
  EXPECT_EQ(on_host(d), (std::vector<int>{1, 1, 2, 3, 4, 5, 9}));
  thrust::device_vector<int> k(keys.begin(), keys.end());
  thrust::device_vector<char> v(7);
  thrust::sequence(v.begin(), v.end(), 'a');
  thrust::stable_sort_by_key(k.begin(), k.end(), v.begin());
  EXPECT_EQ(on_host(k), (std::vector<int>{1, 1, 2, 3, 4, 5, 9}));
  EXPECT_EQ(on_host(v), (std::vector<char>{'b', 'd', 'g', 'e', 'c', 'a', 'f'}));
  thrust::sort_by_key(k.begin(), k.end(), v.begin(), thrust::greater<int>());
  EXPECT_EQ(on_host(k), (std::vector<int>{9, 5, 4, 3, 2, 1, 1}));
  EXPECT_EQ(v[0], 'f');
  thrust::device_vector<double> big(1000);
  thrust::sequence(big.begin(), big.end(), 1000.0, -1.0);
  thrust::sort(big.begin(), big.end());
  EXPECT_TRUE(thrust::is_sorted(big.begin(), big.end()));
  EXPECT_EQ(big[0], 1.0);
}

TEST(Thrust, Scans) {
  thrust::device_vector<int> d(std::vector<int>{1, 2, 3, 4, 5}.size());
  thrust::sequence(d.begin(), d.end(), 1);
  thrust::device_vector<int> out(5);
  thrust::inclusive_scan(d.begin(), d.end(), out.begin());
  EXPECT_EQ(on_host(out), (std::vector<int>{1, 3, 6, 10, 15}));
  thrust::exclusive_scan(d.begin(), d.end(), out.begin());
  EXPECT_EQ(on_host(out), (std::vector<int>{0, 1, 3, 6, 10}));
  thrust::exclusive_scan(d.begin(), d.end(), out.begin(), 10, thrust::multiplies<int>());
  EXPECT_EQ(on_host(out), (std::vector<int>{10, 10, 20, 60, 240}));
  thrust::inclusive_scan(d.begin(), d.end(), d.begin());  // in place
  EXPECT_EQ(d[4], 15);
}

// The CUDA system's policies that programs built with nvcc name, on a
// stream or not (HeCBench's nosync): here the host's, in the stream's order.
TEST(Thrust, CudaPoliciesOnAStream) {
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  thrust::device_vector<int> d(1000);
  thrust::sequence(thrust::cuda::par.on(s), d.begin(), d.end());
  thrust::inclusive_scan(thrust::cuda::par_nosync.on(s), d.begin(), d.end(), d.begin());
  cudaStreamSynchronize(s);
  EXPECT_EQ(d[999], 999 * 1000 / 2);
  EXPECT_EQ(thrust::reduce(thrust::cuda::par, d.begin(), d.begin() + 3), 0 + 1 + 3);
  EXPECT_EQ(thrust::count(thrust::system::cuda::par.on(s), d.begin(), d.end(), 3), 1);
  cudaStreamDestroy(s);
}

TEST(Thrust, FillSequenceAndExtrema) {
  thrust::device_vector<int> d(6);
  thrust::fill(d.begin(), d.end(), 7);
  EXPECT_EQ(on_host(d), (std::vector<int>(6, 7)));
  thrust::sequence(d.begin(), d.end(), 10, 5);
  EXPECT_EQ(on_host(d), (std::vector<int>{10, 15, 20, 25, 30, 35}));
  const std::vector<int> values{3, -2, 8, 8, -2, 0};
  thrust::copy(values.begin(), values.end(), d.begin());
  EXPECT_EQ(thrust::min_element(d.begin(), d.end()) - d.begin(), 1);  // the first of equals
  EXPECT_EQ(thrust::max_element(d.begin(), d.end()) - d.begin(), 2);
  auto mm = thrust::minmax_element(d.begin(), d.end());
  EXPECT_EQ(*mm.first, -2);
  EXPECT_EQ(*mm.second, 8);
  EXPECT_EQ(mm.first - d.begin(), 1);
  EXPECT_EQ(mm.second - d.begin(), 2);  // Thrust's: the first of the largest too
}

TEST(Thrust, ReduceByKeyUniqueAndCopyIf) {
  const std::vector<int> keys{1, 1, 2, 2, 2, 3, 1};
  thrust::device_vector<int> k(keys.begin(), keys.end());
  thrust::device_vector<int> v(7, 1);
  thrust::device_vector<int> ok(7), ov(7);
  auto ends = thrust::reduce_by_key(k.begin(), k.end(), v.begin(), ok.begin(), ov.begin());
  ASSERT_EQ(ends.first - ok.begin(), 4);
  ok.resize(4);
  ov.resize(4);
  EXPECT_EQ(on_host(ok), (std::vector<int>{1, 2, 3, 1}));
  EXPECT_EQ(on_host(ov), (std::vector<int>{2, 3, 1, 1}));
  auto last = thrust::unique(k.begin(), k.end());
  EXPECT_EQ(last - k.begin(), 4);
  thrust::device_vector<int> d(10), odd(10);
  thrust::sequence(d.begin(), d.end());
  auto end = thrust::copy_if(d.begin(), d.end(), odd.begin(), IsOdd());
  odd.resize(end - odd.begin());
  EXPECT_EQ(on_host(odd), (std::vector<int>{1, 3, 5, 7, 9}));
}

TEST(Thrust, FancyIterators) {
  thrust::counting_iterator<int> first(1), last(11);
  EXPECT_EQ(thrust::reduce(first, last), 55);
  thrust::device_vector<int> d(first, last);
  EXPECT_EQ(d[9], 10);
  auto squares =
      thrust::make_transform_iterator(d.begin(), [] __host__ __device__(int x) { return x * x; });
  EXPECT_EQ(thrust::reduce(squares, squares + 10), 385);
  thrust::device_vector<int> a(3), b(3), sum(3);
  thrust::sequence(a.begin(), a.end());
  thrust::sequence(b.begin(), b.end(), 100);
  auto zip = thrust::make_zip_iterator(thrust::make_tuple(a.begin(), b.begin()));
  thrust::transform(zip, zip + 3, sum.begin(), AddPair());
  EXPECT_EQ(on_host(sum), (std::vector<int>{100, 102, 104}));
  thrust::sort_by_key(thrust::device, b.begin(), b.end(), a.begin(), thrust::greater<int>());
  EXPECT_EQ(on_host(a), (std::vector<int>{2, 1, 0}));
}

TEST(Thrust, HostPolicyAndHostVectors) {
  thrust::host_vector<int> h(5);
  thrust::sequence(thrust::host, h.begin(), h.end(), 5, -1);
  thrust::sort(thrust::host, h.begin(), h.end());
  EXPECT_EQ(std::vector<int>(h.begin(), h.end()), (std::vector<int>{1, 2, 3, 4, 5}));
  std::vector<int> plain{4, 2, 9};
  EXPECT_EQ(thrust::reduce(thrust::host, plain.begin(), plain.end()), 15);
  int raw[3] = {3, 1, 2};
  thrust::sort(raw, raw + 3);
  EXPECT_EQ(raw[0], 1);
}

TEST(Thrust, UniversalVectorIsManagedMemory) {
  thrust::universal_vector<int> u(4, 3);
  ASSERT_TRUE(device_memory(thrust::raw_pointer_cast(u.data())));
  EXPECT_TRUE(managed_memory(thrust::raw_pointer_cast(u.data())));
  add_index<<<1, 4>>>(thrust::raw_pointer_cast(u.data()), 4);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(u[3], 6);
}

}  // namespace
