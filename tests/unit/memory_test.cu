// Memory spaces and the runtime calls around them: symbols, managed and
// mapped memory, pitched 2D/3D memory, stream callbacks, occupancy.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace {

__constant__ float coefficients[4];
__device__ int device_counter;
__managed__ int managed_value;

__global__ void use_symbols(float* out) {
  out[threadIdx.x] = coefficients[threadIdx.x % 4] * 2;
  atomicAdd(&device_counter, 1);
  if (threadIdx.x == 0) managed_value = 77;
}

TEST(Memory, ConstantDeviceAndManagedVariables) {
  const float c[4] = {1, 2, 3, 4};
  ASSERT_EQ(cudaMemcpyToSymbol(coefficients, c, sizeof(c)), cudaSuccess);
  const int zero = 0;
  ASSERT_EQ(cudaMemcpyToSymbol(device_counter, &zero, sizeof(int)), cudaSuccess);
  float* out;
  cudaMalloc(&out, 8 * sizeof(float));
  use_symbols<<<1, 8>>>(out);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> h(8);
  cudaMemcpy(h.data(), out, 8 * sizeof(float), cudaMemcpyDeviceToHost);
  EXPECT_EQ(h[5], 4.0f);
  int count = 0;
  ASSERT_EQ(cudaMemcpyFromSymbol(&count, device_counter, sizeof(int)), cudaSuccess);
  EXPECT_EQ(count, 8);
  EXPECT_EQ(managed_value, 77);
  float back[2];
  ASSERT_EQ(cudaMemcpyFromSymbol(back, coefficients, 2 * sizeof(float), 2 * sizeof(float)),
            cudaSuccess);
  EXPECT_EQ(back[1], 4.0f);
  void* address = nullptr;
  size_t size = 0;
  EXPECT_EQ(cudaGetSymbolAddress(&address, coefficients), cudaSuccess);
  EXPECT_EQ(cudaGetSymbolSize(&size, coefficients), cudaSuccess);
  EXPECT_EQ(size, sizeof(coefficients));
  EXPECT_NE(address, nullptr);
  EXPECT_EQ(cudaMemcpyToSymbol(coefficients, c, sizeof(c), 4), cudaErrorInvalidValue)
      << "past the end of the symbol";
  EXPECT_EQ(cudaMemcpyToSymbol(coefficients, c, 4, 0, cudaMemcpyDeviceToHost),
            cudaErrorInvalidMemcpyDirection);
  cudaGetLastError();
  cudaFree(out);
}

// Each thread loads its next element one whole grid further before it
// knows it exists (a prefetch without a bounds check): on its last round
// that load is a grid past the end of `a`.
__global__ void add_with_prefetch(const float* a, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i];
  for (; i < n; i += stride) {
    const float next = a[i + stride];
    c[i] = x + 1;
    x = next;
  }
}

// Buffers lie one after another in increasing addresses, as cudaMalloc
// gives them on a GPU: a load a whole grid (4 MiB here, far past the guard
// pages) beyond the first buffer's end reads the next buffer, without a
// fault, and the results are right, as on a GPU. (Memcheck reports the
// loads that land in the guard pages and red zones between; those that
// land inside the next buffer are, as compute-sanitizer's are, accesses to
// that buffer.)
TEST(Memory, BuffersLieInIncreasingAddressesAsOnAGpu) {
  constexpr int n = 1 << 20;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  ASSERT_EQ(cudaMalloc(&a, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&c, n * sizeof(float)), cudaSuccess);
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_LT(b - a, 2 * n) << "the next buffer right after, past guard pages";
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = float(i % 1000);
  cudaMemcpy(a, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  add_with_prefetch<<<n / 256, 256>>>(a, c, n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> got(n);
  cudaMemcpy(got.data(), c, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; i += 4099) ASSERT_EQ(got[i], float(i % 1000) + 1) << "element " << i;
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

__global__ void double_all(int* p, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] *= 2;
}

TEST(Memory, ManagedAndMappedMemory) {
  int* m;
  ASSERT_EQ(cudaMallocManaged(&m, 100 * sizeof(int)), cudaSuccess);
  for (int i = 0; i < 100; ++i) m[i] = i;
  double_all<<<2, 32>>>(m, 100);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(m[99], 198);
  cudaFree(m);

  int* pinned;
  ASSERT_EQ(cudaHostAlloc(reinterpret_cast<void**>(&pinned), 10 * sizeof(int), cudaHostAllocMapped),
            cudaSuccess);
  for (int i = 0; i < 10; ++i) pinned[i] = i;
  int* mapped = nullptr;
  ASSERT_EQ(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mapped), pinned, 0), cudaSuccess);
  double_all<<<1, 32>>>(mapped, 10);
  cudaDeviceSynchronize();
  EXPECT_EQ(pinned[9], 18);
  EXPECT_EQ(cudaFreeHost(pinned), cudaSuccess);
  int local[4];
  void* none;
  EXPECT_EQ(cudaHostGetDevicePointer(&none, local, 0), cudaErrorInvalidValue)
      << "only page-locked memory is mapped";
  cudaGetLastError();
  size_t free_bytes = 0, total = 0;
  EXPECT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
  EXPECT_GT(total, free_bytes / 2);
}

// CUDA 12's int-device prefetch and advice, CUDA 13's cudaMemLocation forms
// and stream attachment: the data stays where it is and the arguments are checked.
TEST(Memory, PrefetchAdviceAndAttachmentKeepTheData) {
  int* m;
  ASSERT_EQ(cudaMallocManaged(&m, 64 * sizeof(int)), cudaSuccess);
  for (int i = 0; i < 64; ++i) m[i] = i;
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  cudaMemLocation device{cudaMemLocationTypeDevice, 0}, host{cudaMemLocationTypeHost, 0};
  EXPECT_EQ(cudaMemAdvise(m, 64 * sizeof(int), cudaMemAdviseSetReadMostly, 0), cudaSuccess);
  EXPECT_EQ(cudaMemAdvise(m, 64 * sizeof(int), cudaMemAdviseSetPreferredLocation, device),
            cudaSuccess);
  EXPECT_EQ(cudaStreamAttachMemAsync(stream, m, 0, cudaMemAttachGlobal), cudaSuccess);
  EXPECT_EQ(cudaMemPrefetchAsync(m, 64 * sizeof(int), device, 0, stream), cudaSuccess);
  double_all<<<2, 32, 0, stream>>>(m, 64);
  EXPECT_EQ(cudaMemPrefetchAsync(m, 64 * sizeof(int), host, 0, stream), cudaSuccess);
  EXPECT_EQ(cudaMemPrefetchAsync(m, 64 * sizeof(int), cudaCpuDeviceId, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(m[63], 126);

  EXPECT_EQ(cudaMemPrefetchAsync(m, 64 * sizeof(int), 3), cudaErrorInvalidDevice)
      << "one device: device 3 does not exist";
  cudaGetLastError();
  EXPECT_EQ(
      cudaMemPrefetchAsync(m, 64 * sizeof(int), cudaMemLocation{cudaMemLocationTypeDevice, 1}, 0),
      cudaErrorInvalidDevice);
  cudaGetLastError();
  EXPECT_EQ(cudaMemPrefetchAsync(m, 64 * sizeof(int), device, 7), cudaErrorInvalidValue)
      << "no flags are defined";
  cudaGetLastError();
  // 7: in the enumeration's range (a value past it would be undefined
  // behaviour in C++), but no advice.
  EXPECT_EQ(cudaMemAdvise(m, 64 * sizeof(int), static_cast<cudaMemoryAdvise>(7), 0),
            cudaErrorInvalidValue);
  cudaGetLastError();
  EXPECT_EQ(cudaStreamAttachMemAsync(stream, m, 0, 0x10), cudaErrorInvalidValue);
  cudaGetLastError();
  EXPECT_EQ(cudaMemPrefetchAsync(nullptr, 4, 0), cudaErrorInvalidValue);
  cudaGetLastError();
  cudaStreamDestroy(stream);
  cudaFree(m);
}

__global__ void fill_pitched(float* base, size_t pitch, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < width && y < height) {
    float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(base) + y * pitch);
    row[x] = float(y * 1000 + x);
  }
}

TEST(Memory, PitchedTwoAndThreeDimensionalCopies) {
  const int w = 100, h = 7;
  float* d;
  size_t pitch = 0;
  ASSERT_EQ(cudaMallocPitch(&d, &pitch, w * sizeof(float), h), cudaSuccess);
  EXPECT_EQ(pitch, 512u) << "rows start on 512-byte boundaries";
  fill_pitched<<<dim3(4, h), 32>>>(d, pitch, w, h);
  std::vector<float> host(w * h);
  ASSERT_EQ(cudaMemcpy2D(host.data(), w * sizeof(float), d, pitch, w * sizeof(float), h,
                         cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(host[6 * w + 99], 6099.0f);
  EXPECT_EQ(cudaMemcpy2D(host.data(), 16, d, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost),
            cudaErrorInvalidPitchValue);
  cudaGetLastError();
  cudaFree(d);

  const cudaExtent extent = make_cudaExtent(10 * sizeof(int), 4, 3);
  cudaPitchedPtr volume;
  ASSERT_EQ(cudaMalloc3D(&volume, extent), cudaSuccess);
  std::vector<int> in(10 * 4 * 3), out(in.size());
  for (size_t i = 0; i < in.size(); ++i) in[i] = int(i);
  cudaMemcpy3DParms up{};
  up.srcPtr = make_cudaPitchedPtr(in.data(), 10 * sizeof(int), 10, 4);
  up.dstPtr = volume;
  up.extent = extent;
  up.kind = cudaMemcpyHostToDevice;
  ASSERT_EQ(cudaMemcpy3D(&up), cudaSuccess);
  cudaMemcpy3DParms down{};
  down.srcPtr = volume;
  down.dstPtr = make_cudaPitchedPtr(out.data(), 10 * sizeof(int), 10, 4);
  down.extent = extent;
  down.kind = cudaMemcpyDeviceToHost;
  ASSERT_EQ(cudaMemcpy3D(&down), cudaSuccess);
  EXPECT_EQ(out, in);
  cudaFree(volume.ptr);
}

void CUDART_CB_like(cudaStream_t, cudaError_t status, void* user) {
  *static_cast<int*>(user) = status == cudaSuccess ? 1 : -1;
}

TEST(Memory, StreamCallbacksRunAfterTheWorkBeforeThem) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  int called = 0, host_fn = 0;
  ASSERT_EQ(cudaStreamAddCallback(s, CUDART_CB_like, &called, 0), cudaSuccess);
  ASSERT_EQ(cudaLaunchHostFunc(
                s, [](void* p) { *static_cast<int*>(p) = 5; }, &host_fn),
            cudaSuccess);
  cudaStreamSynchronize(s);
  EXPECT_EQ(called, 1);
  EXPECT_EQ(host_fn, 5);
  cudaStreamDestroy(s);
}

__global__ void big_shared(int* out) {
  extern __shared__ int buffer[];
  buffer[threadIdx.x] = int(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = buffer[31 - threadIdx.x];
}

TEST(Memory, OccupancyAndKernelAttributes) {
  int blocks = 0;
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, big_shared, 256, 0),
            cudaSuccess);
  EXPECT_EQ(blocks, 8);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, big_shared, 1024, 0);
  EXPECT_EQ(blocks, 2);
  // Values measured on an H100.
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, big_shared, 64, 0);
  EXPECT_EQ(blocks, 32);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, big_shared, 128, 100 * 1024);
  EXPECT_EQ(blocks, 0) << "more than the kernel's 48 KiB: it cannot run at all";
  int min_grid = 0, size = 0;
  ASSERT_EQ(cudaOccupancyMaxPotentialBlockSize(&min_grid, &size, big_shared), cudaSuccess);
  EXPECT_EQ(size, 1024);
  EXPECT_EQ(min_grid, 264);

  int* out;
  cudaMalloc(&out, 32 * sizeof(int));
  big_shared<<<1, 32, 100 * 1024>>>(out);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue) << "over 48 KiB without opting in";
  ASSERT_EQ(
      cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024),
      cudaSuccess);
  big_shared<<<1, 32, 100 * 1024>>>(out);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, big_shared, 128, 100 * 1024);
  EXPECT_EQ(blocks, 2) << "once raised: 228 KiB hold two blocks of 100 KiB";
  int h[32];
  cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost);
  EXPECT_EQ(h[0], 31);
  cudaFuncAttributes attr;
  ASSERT_EQ(cudaFuncGetAttributes(&attr, big_shared), cudaSuccess);
  EXPECT_EQ(attr.maxDynamicSharedSizeBytes, 100 * 1024);
  EXPECT_EQ(attr.maxThreadsPerBlock, 1024);
  EXPECT_EQ(
      cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 300 * 1024),
      cudaErrorInvalidValue);
  cudaGetLastError();
  cudaFree(out);
}

}  // namespace
